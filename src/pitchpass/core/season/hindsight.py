"""The price of deciding match by match (docs/scenario-extensions.md, "Hindsight"): the
season as a league publishes it, each match decided in kick-off order with what the
matches before it granted held (as the desk decides it: "Season rules on the desk"),
against the season decided jointly and exactly with hindsight, on the same requests.
Pure: both are the core's decide; this module orders the matches and compares."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pitchpass.core.codes import Status
from pitchpass.core.deciding.decide import MatchResult, decide
from pitchpass.core.model import Request, Scenario
from pitchpass.core.season.season_report import season_report


@dataclass(frozen=True)
class Hindsight:
    """The season both ways, each in the document's order of matches."""

    match_by_match: tuple[MatchResult, ...]
    jointly: tuple[MatchResult, ...]


def match_by_match(
    scenario: Scenario, progress: Callable[[int, int], None] | None = None
) -> tuple[MatchResult, ...]:
    """Each match decided in kick-off order (document order among equal kick-offs) as the
    desk decides it when it comes: its own requests, with the grants of the matches
    before it held (locked) and what is locked already at the matches after it (grants
    published: the desk holds them whatever their match), their other requests not yet
    known; its grants then held for the next. `progress(done, of)` after each match."""
    place = {m.id: n for n, m in enumerate(scenario.matches)}
    order = sorted(scenario.matches, key=lambda m: (m.kickoff, place[m.id]))
    locked = [r for r in scenario.requests if r.locked]
    held: list[Request] = []
    results: dict[str, MatchResult] = {}
    for n, match in enumerate(order):
        done = {m.id for m in order[: n + 1]}
        later = [r for r in locked if r.match not in done]  # published at matches to come
        seen = done | {r.match for r in later}
        part = dataclasses.replace(
            scenario,
            matches=tuple(m for m in scenario.matches if m.id in seen),
            requests=(*held, *later, *scenario.requests_of(match.id)),
            incidents=tuple(i for i in scenario.incidents if i.match == match.id),
        )
        (result,) = decide(part, [match.id])
        results[match.id] = result
        held += [
            dataclasses.replace(d.request, locked=True)
            for d in result.decisions
            if d.status is Status.GRANTED
        ]
        if progress is not None:
            progress(n + 1, len(order))
    return tuple(results[m.id] for m in scenario.matches)


def hindsight(scenario: Scenario, progress: Callable[[int, int], None] | None = None) -> Hindsight:
    return Hindsight(match_by_match(scenario, progress), decide(scenario))


def compared(scenario: Scenario, found: Hindsight) -> dict[str, Any]:
    """What deciding match by match cost, against hindsight (the JSON of `pitchpass season
    --hindsight`): grants in all and per organisation, each minimum's grants, each
    rotation's spread, and each request refused match by match that hindsight grants
    (and each the other way), named with the reasons it was refused."""
    before = season_report(scenario, found.match_by_match)
    after = season_report(scenario, found.jointly)
    granted_after = {o["organisation"]: o["granted"] for o in after["organisations"]}
    minimums_after = {(x["minimum"], x["club"], x["to"]): x["granted"] for x in after["minimums"]}
    return {
        "names": {o.id: o.name for o in scenario.organisations},
        "granted": {
            "match_by_match": _granted(found.match_by_match),
            "hindsight": _granted(found.jointly),
        },
        "organisations": [
            {
                "organisation": o["organisation"],
                "name": o["name"],
                "asked": o["asked"],
                "match_by_match": o["granted"],
                "hindsight": granted_after.get(o["organisation"], 0),
            }
            for o in before["organisations"]
        ],
        "minimums": [
            {
                "minimum": x["minimum"],
                "club": x["club"],
                "to": x["to"],
                "at_least": x["at_least"],
                "match_by_match": x["granted"],
                "hindsight": minimums_after.get((x["minimum"], x["club"], x["to"]), 0),
            }
            for x in before["minimums"]
        ],
        "rotations": [
            {
                "zone": b["zone"],
                "phase": b["phase"],
                "tier": b["tier"],
                "match_by_match": b["spread"],
                "hindsight": a["spread"],
            }
            for b, a in zip(before["rotations"], after["rotations"], strict=True)
        ],
        "avoidable": _changed(found.match_by_match, found.jointly),
        "hindsight_refuses": _changed(found.jointly, found.match_by_match),
    }


def _granted(results: tuple[MatchResult, ...]) -> int:
    return sum(1 for r in results for d in r.decisions if d.status is Status.GRANTED)


def _changed(
    refused_in: tuple[MatchResult, ...], granted_in: tuple[MatchResult, ...]
) -> list[dict[str, Any]]:
    """The requests refused in the first that the second grants, with the first's
    reasons, in the document's order."""
    granted = {
        (r.match.id, d.request.id)
        for r in granted_in
        for d in r.decisions
        if d.status is Status.GRANTED
    }
    return [
        {
            "match": r.match.id,
            "request": d.request.id,
            "organisation": d.request.by,
            "reasons": [reason.text for reason in d.reasons],
        }
        for r in refused_in
        for d in r.decisions
        if d.status is Status.REFUSED and (r.match.id, d.request.id) in granted
    ]
