"""`pitchpass demo`: tell the story a scenario holds, worked out by the engine, not written in.

For each match: who was refused and why; which incidents no camera caught; and, for
each such incident, the refused crews that would have caught it: how many more places
would have let them in, and whom granting them outright would have bumped.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.text import Text

from pitchpass.cli.terminal import caught_by, match_heading, usage_grid
from pitchpass.core import Changes, MatchResult, Scenario, decide, what_if
from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.decide import Decision
from pitchpass.core.deciding.reasons import places_to_fit
from pitchpass.core.explaining.coverage import Coverage, would_have_caught
from pitchpass.core.explaining.whatif import CapacityChange

SEED = "manchester-derby-2017.yaml"


def default_scenario() -> Path:
    """The seed story: ./scenarios/ if run from a checkout, else the source tree's."""
    here = Path("scenarios") / SEED
    if here.is_file():
        return here
    return Path(__file__).resolve().parents[2] / "scenarios" / SEED


def tell(console: Console, scenario: Scenario, path: Path) -> None:
    for result in decide(scenario):
        console.rule(match_heading(scenario, result))
        granted = sum(d.status is Status.GRANTED for d in result.decisions)
        console.print(
            f"{len(result.decisions)} requests to film: {granted} granted, "
            f"{len(result.decisions) - granted} refused."
        )
        console.print(usage_grid(scenario, result))
        for decision in result.decisions:
            if decision.status is Status.REFUSED:
                _refusal(console, scenario, decision)
        console.print()
        for coverage in result.incidents:
            _incident(console, scenario, coverage)
            if not coverage.covered_by:
                _what_could_have_caught(console, scenario, path, result, coverage)
        console.print()


def _say(console: Console, what: RenderableType, indent: int = 4) -> None:
    """Print indented; wrapped lines keep the indent."""
    console.print(Padding(what, (0, 0, 0, indent)))


def _describe(scenario: Scenario, decision: Decision) -> str:
    r = decision.request
    people = f"{r.crew} {'person' if r.crew == 1 else 'people'}"
    return (
        f"{r.id} by {scenario.organisation(r.by).name}, tier {decision.tier}: {people} in "
        f"{r.zone}, {', '.join(r.phases)}"
    )


def _refusal(console: Console, scenario: Scenario, decision: Decision) -> None:
    _say(console, Text.assemble(("Refused ", "bold red"), _describe(scenario, decision)), 0)
    for reason in decision.reasons:
        _say(console, f"because {reason.text}")


def _incident(console: Console, scenario: Scenario, coverage: Coverage) -> None:
    incident = coverage.incident
    where = f" ({coverage.phase or 'outside every phase'}), {incident.zone}"
    console.print(Text.assemble((f"Minute {incident.minute:g}", "bold"), where))
    if incident.what:
        _say(console, incident.what)
    _say(console, caught_by(scenario, coverage))


def _what_could_have_caught(
    console: Console, scenario: Scenario, path: Path, result: MatchResult, coverage: Coverage
) -> None:
    incident = coverage.incident
    refused = [d.request for d in result.decisions if d.status is Status.REFUSED]
    for request in would_have_caught(coverage, refused):
        decision = result.decision(request.id)
        request = decision.request
        _say(console, f"Refused, and it would have caught this: {_describe(scenario, decision)}")
        room = [r for r in decision.reasons if r.code is ReasonCode.CAPACITY]
        if room and len(room) == len(decision.reasons):
            more = tuple(CapacityChange(z, p, n) for (z, p), n in places_to_fit(room).items())
            answer = what_if(scenario, Changes(capacity=more), [result.match.id])
            flags = " ".join(f"--capacity {c.zone}@{c.phase}={c.places}" for c in more)
            now = answer.after[0].decision(request.id).status
            caught = incident.id in {i for i, _, _ in answer.incidents}
            verdict = "granted, and the incident caught" if caught else f"{now.value}"
            _say(console, f"What if there had been room? pitchpass what-if {path} {flags}")
            _say(console, f"-> {request.id} {verdict}", 6)
        bumped = _bumped_by_granting(scenario, result, request.id)
        flag = f"--grant {request.id}"
        _say(console, f"What if it had been granted outright? pitchpass what-if {path} {flag}")
        _say(console, "-> " + ("bumped: " + "; ".join(bumped) if bumped else "nobody bumped"), 6)


def _bumped_by_granting(scenario: Scenario, result: MatchResult, request_id: str) -> list[str]:
    answer = what_if(scenario, Changes(grant=(request_id,)), [result.match.id])
    bumped = []
    for changed_id, before, after in answer.changes:
        if before == Status.GRANTED and after == Status.REFUSED:
            decision = result.decision(changed_id)
            bumped.append(_describe(scenario, decision))
    return bumped
