"""Rich renderings of decisions, what-if results and fixture imports for people at a terminal."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from pitchpass.core import MatchResult, Scenario
from pitchpass.core.codes import Status
from pitchpass.core.deciding.reasons import Reason
from pitchpass.core.explaining.coverage import Coverage, Source
from pitchpass.core.explaining.whatif import WhatIf
from pitchpass.core.reading.fixtures import Imported
from pitchpass.core.reading.problems import Problem


def match_heading(scenario: Scenario, result: MatchResult) -> Text:
    match = result.match
    venue = scenario.venue(match.venue)
    home = scenario.organisation(match.home).name
    away = scenario.organisation(match.away).name
    when = match.kickoff.strftime("%Y-%m-%d %H:%M %Z").strip()
    return Text.assemble(
        (f"{home} v {away}", "bold"), f"  {venue.name}, kick-off {when}  ", (match.id, "dim")
    )


# Below this width the reasons do not fit in a column: they are listed under the table.
WIDE = 120


def requests_table(scenario: Scenario, result: MatchResult, with_reasons: bool = True) -> Table:
    table = Table(title="Requests", title_justify="left", expand=with_reasons)
    table.add_column("request", no_wrap=True)
    table.add_column("organisation", max_width=24)
    table.add_column("zone", max_width=20)
    table.add_column("phases", max_width=24)
    table.add_column("crew", no_wrap=True)
    table.add_column("tier", no_wrap=True)
    table.add_column("status", no_wrap=True)
    if with_reasons:
        table.add_column("reasons", min_width=30, ratio=1)
    for decision in result.decisions:
        request = decision.request
        granted = decision.status is Status.GRANTED
        status = Text(decision.status.value, style="green" if granted else "bold red")
        if request.locked:
            status.append(" (locked)", style="dim")
        crew = f"{request.crew}" + (" no camera" if request.cameras == 0 else "")
        cells: list[str | Text] = [
            request.id,
            scenario.organisation(request.by).name,
            request.zone,
            ", ".join(request.phases),
            crew,
            decision.tier,
            status,
        ]
        if with_reasons:
            cells.append("\n".join(reason.text for reason in decision.reasons))
        table.add_row(*cells)
    return table


def reason_lines(result: MatchResult) -> Group:
    """The reasons of every refusal, one per line, for terminals too narrow for a column."""
    lines = [Text("Reasons", style="italic")]
    for decision in result.decisions:
        for reason in decision.reasons:
            lines.append(Text(f"  {decision.request.id}: {reason.text}"))
    return Group(*lines)


def usage_grid(scenario: Scenario, result: MatchResult) -> Table:
    table = Table(title="Places used of capacity", title_justify="left")
    table.add_column("zone")
    phases = [p.id for p in scenario.phases]
    for phase in phases:
        table.add_column(phase, justify="right")
    cells = {(u.zone, u.phase): u for u in result.usage}
    for zone in scenario.venue(result.match.venue).zones:
        row: list[Text | str] = [zone.id]
        for phase in phases:
            u = cells[zone.id, phase]
            row.append(Text(f"{u.used}/{u.capacity}", style=_fullness(u.used, u.capacity)))
        table.add_row(*row)
    return table


def _fullness(used: int, capacity: int) -> str:
    if capacity == 0:
        return "dim"
    share = used / capacity
    if share >= 1:
        return "bold red"
    if share >= 0.75:
        return "yellow"
    return "green" if used else "dim green"


def incident_lines(scenario: Scenario, coverages: Sequence[Coverage]) -> Group:
    lines = [Text("Incidents", style="italic")]
    if not coverages:
        lines.append(Text("  none logged", style="dim"))
    for coverage in coverages:
        incident = coverage.incident
        minute = f"{incident.minute:g}'"
        line = Text(f"  {incident.id}  {minute} ({coverage.phase or 'outside every phase'}) ")
        line.append(f"{incident.zone}: {incident.what}  ")
        line.append_text(caught_by(scenario, coverage))
        lines.append(line)
    return Group(*lines)


def caught_by(scenario: Scenario, coverage: Coverage) -> Text:
    if not coverage.covered_by:
        return Text("not caught on camera", style="bold white on red")
    names = [
        f"{s.id} ({scenario.organisation(s.org).name})" if s.org else s.id
        for s in coverage.covered_by
    ]
    return Text("caught by " + ", ".join(names), style="green")


def print_decisions(console: Console, scenario: Scenario, results: Sequence[MatchResult]) -> None:
    for result in results:
        console.rule(match_heading(scenario, result))
        for note in result.unproven:  # the solver's time limit passed first: said at the top
            console.print(Text(note.text(), style="bold yellow"))
        wide = console.width >= WIDE
        console.print(requests_table(scenario, result, with_reasons=wide))
        if not wide and any(d.reasons for d in result.decisions):
            console.print(reason_lines(result))
        console.print(usage_grid(scenario, result))
        console.print(incident_lines(scenario, result.incidents))
        console.print()


def print_what_if(
    console: Console,
    scenario: Scenario,
    result: WhatIf,
    only_if: Mapping[str, Sequence[Reason]] | None = None,
) -> None:
    """The changes, then the grants made "only if" (what they set aside, which no
    officer's grant by hand could: docs/scenario-extensions.md)."""
    _print_changes(console, scenario, result)
    for request_id, reasons in (only_if or {}).items():
        console.print(
            Text.assemble(
                (f"{request_id} is granted here only if: ", "bold yellow"),
                "; ".join(r.text for r in reasons),
                " (no grant by hand sets this aside)",
            )
        )


def _print_changes(console: Console, scenario: Scenario, result: WhatIf) -> None:
    if not result.changes and not result.incidents:
        console.print("No decision and no incident's coverage would change.")
        return
    if result.changes:
        table = Table(title="Requests whose decision would change", title_justify="left")
        for column in ("request", "match", "organisation", "before", "after", "why, after"):
            table.add_column(column)
        after = {d.request.id: d for r in result.after for d in r.decisions}
        for request_id, was, will_be in result.changes:
            request = next(r for r in scenario.requests if r.id == request_id)
            why = after[request_id].reasons if request_id in after else ()
            table.add_row(
                request_id,
                request.match,
                scenario.organisation(request.by).name,
                _status(was),
                _status(will_be),
                "\n".join(reason.text for reason in why),
            )
        console.print(table)
    for incident_id, covered_before, covered_after in result.incidents:
        console.print(
            Text.assemble(
                (f"{incident_id}: ", "bold"),
                f"caught by {_sources(covered_before)} -> caught by {_sources(covered_after)}",
            )
        )


def _status(value: str) -> Text:
    style = {"granted": "green", "refused": "bold red"}.get(value, "dim")
    return Text(value, style=style)


def _sources(covered_by: Sequence[Source]) -> str:
    return ", ".join(s.id for s in covered_by) or "nobody"


def _televising(broadcasters: Sequence[str] | None) -> str:
    if broadcasters is None:
        return "its host"
    return ", ".join(broadcasters) or "nobody"


def print_fixtures(
    console: Console,
    done: Imported,
    skipped: Sequence[Problem],
    written: Path | str | None,
    stale: Mapping[str, str],
) -> None:
    """What a fixture list adds, moves and leaves alone (`pitchpass fixtures`)."""
    console.print(
        f"{len(done.added)} added, {len(done.moved)} moved, {len(done.unchanged)} unchanged"
        + (f", {len(done.retold)} with new broadcasters" if done.retold else "")
        + (f", {len({p.path.split('.')[0] for p in skipped})} left out" if skipped else "")
    )
    for key in done.added:
        console.print(f"  added  {key}")
    for moved in done.moved:
        change = []
        if moved.kickoff_before != moved.kickoff_after:
            change.append(f"kick-off {moved.kickoff_before} -> {moved.kickoff_after}")
        if moved.venue_before != moved.venue_after:
            change.append(f"venue {moved.venue_before} -> {moved.venue_after}")
        console.print(f"  moved  {moved.match}: {'; '.join(change)}", soft_wrap=True)
        if moved.requests:
            console.print(f"         the deadline of its {moved.requests} requests moves with it")
        if moved.now_late:
            console.print(f"         now late: {', '.join(moved.now_late)}", soft_wrap=True)
        if moved.now_in_time:
            console.print(f"         now in time: {', '.join(moved.now_in_time)}", soft_wrap=True)
        if moved.match in stale:
            console.print(f"         {stale[moved.match]}", soft_wrap=True)
        elif moved.now_late or moved.now_in_time:
            console.print("         decisions made before are stale for these: decide again")
    for told in done.retold:
        change = []
        if told.host_before != told.host_after:
            change.append(f"host {told.host_before or 'none'} -> {told.host_after}")
        if told.televised_by_before != told.televised_by_after:
            change.append(
                f"televised by {_televising(told.televised_by_before)}"
                f" -> {_televising(told.televised_by_after)}"
            )
        console.print(f"  retold {told.match}: {'; '.join(change)}", soft_wrap=True)
        if told.match in stale:
            console.print(f"         {stale[told.match]}", soft_wrap=True)
    for problem in skipped:
        console.print(f"  left out  {problem}", soft_wrap=True)
    if written is None:
        console.print("nothing written (--output FILE writes a scenario, --write the database)")
    else:
        console.print(f"wrote {written}")
