"""What-if: decide a scenario as it is and with changes, and report what differs."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pitchpass.core.codes import Status
from pitchpass.core.deciding.decide import MatchResult, decide
from pitchpass.core.deciding.locked import check_locked_fit
from pitchpass.core.explaining.coverage import Source
from pitchpass.core.explaining.report import decide_json
from pitchpass.core.model import Scenario, Venue
from pitchpass.core.reading.fields import MAX_COUNT
from pitchpass.core.reading.problems import Problem, ScenarioInvalid, did_you_mean


@dataclass(frozen=True)
class CapacityChange:
    zone: str
    phase: str | None  # None: every phase
    places: int


@dataclass(frozen=True)
class Changes:
    grant: tuple[str, ...] = ()  # made locked
    refuse: tuple[str, ...] = ()  # taken out
    capacity: tuple[CapacityChange, ...] = ()  # applied in order: a later one wins


_CAPACITY = re.compile(r"^(?P<zone>[^@=]+?)(?:@(?P<phase>[^@=]+?))?=(?P<n>-?\d+)$")


def parse_capacity(text: str, where: str = "--capacity") -> CapacityChange:
    """`ZONE[@PHASE]=N`, as typed on the command line."""
    match = _CAPACITY.match(text.strip())
    if match is None:
        raise ScenarioInvalid(
            [Problem(where, f'"{text}" is not ZONE=N or ZONE@PHASE=N (e.g. tunnel@post-match=48)')]
        )
    phase = match["phase"].strip() if match["phase"] else None
    return CapacityChange(match["zone"].strip(), phase, int(match["n"]))


def apply_changes(scenario: Scenario, changes: Changes) -> Scenario:
    """The scenario with the changes, or ScenarioInvalid naming every bad change."""
    problems = check_changes(scenario, changes)
    if problems:
        raise ScenarioInvalid(problems)
    refused, granted = set(changes.refuse), set(changes.grant)
    requests = tuple(
        dataclasses.replace(r, locked=True) if r.id in granted else r
        for r in scenario.requests
        if r.id not in refused
    )
    venues = tuple(_with_capacity(v, changes.capacity) for v in scenario.venues)
    changed = dataclasses.replace(scenario, requests=requests, venues=venues)
    problems = check_locked_fit(changed)
    if problems:
        flag = ", ".join(
            f
            for f, given in (("--grant", changes.grant), ("--capacity", changes.capacity))
            if given
        )
        raise ScenarioInvalid(Problem(flag, "with these changes, " + p.message) for p in problems)
    return changed


def check_changes(scenario: Scenario, changes: Changes) -> list[Problem]:
    """Every problem of the changes themselves: unknown ids, zones, phases; a request
    both granted and refused; a capacity out of bounds."""
    problems = []
    ids = [r.id for r in scenario.requests]
    for flag, chosen in (("--grant", changes.grant), ("--refuse", changes.refuse)):
        for request_id in chosen:
            if request_id not in ids:
                hint = did_you_mean(request_id, ids)
                problems.append(Problem(flag, f'unknown request "{request_id}"{hint}'))
    for request_id in sorted(set(changes.grant) & set(changes.refuse)):
        problems.append(Problem("--refuse", f'request "{request_id}" is both granted and refused'))
    zones = {z.id for v in scenario.venues for z in v.zones}
    phases = [p.id for p in scenario.phases]
    for change in changes.capacity:
        if change.zone not in zones:
            hint = did_you_mean(change.zone, zones)
            problems.append(Problem("--capacity", f'unknown zone "{change.zone}"{hint}'))
        if change.phase is not None and change.phase not in phases:
            hint = did_you_mean(change.phase, phases)
            problems.append(Problem("--capacity", f'unknown phase "{change.phase}"{hint}'))
        if not 0 <= change.places <= MAX_COUNT:
            problems.append(
                Problem("--capacity", f"capacity must be 0 to {MAX_COUNT:,}, not {change.places}")
            )
    return problems


def _with_capacity(venue: Venue, capacity: Sequence[CapacityChange]) -> Venue:
    zones = []
    for zone in venue.zones:
        places = dict(zone.capacity)
        for change in capacity:
            if change.zone == zone.id:
                for phase in places:
                    if change.phase in (None, phase):
                        places[phase] = change.places
        zones.append(
            dataclasses.replace(zone, capacity=places) if places != zone.capacity else zone
        )
    return dataclasses.replace(venue, zones=tuple(zones))


@dataclass(frozen=True)
class WhatIf:
    before: tuple[MatchResult, ...]
    after: tuple[MatchResult, ...]
    changes: tuple[tuple[str, str, str], ...]  # (request, before, after)
    incidents: tuple[tuple[str, tuple[Source, ...], tuple[Source, ...]], ...]


def what_if(
    scenario: Scenario,
    changes: Changes,
    match_ids: Iterable[str] | None = None,
    base: Changes = Changes(),
) -> WhatIf:
    """Decide the scenario as it stands and with `changes`, and what differs.

    `base` is what stands already (an officer's overrides): "before" is the scenario with
    it, "after" with it and `changes` on top, a change of a request winning over the base.
    A request the base refuses is "refused" while it stays out (the base takes it out by
    hand; `changes` taking a request out is "removed")."""
    wanted = None if match_ids is None else list(match_ids)
    if wanted is not None:
        _check_in_matches(scenario, changes, wanted)
    problems = check_changes(scenario, changes)
    if problems:
        raise ScenarioInvalid(problems)
    standing = apply_changes(scenario, base) if base != Changes() else scenario
    changed = apply_changes(scenario, on_top(base, changes))
    before, after = decide(standing, wanted), decide(changed, wanted)
    shown = {r.id for r in scenario.requests if wanted is None or r.match in wanted}
    by_hand = set(base.refuse) & shown
    status_before = {d.request.id: d.status.value for r in before for d in r.decisions}
    status_before |= dict.fromkeys(by_hand, Status.REFUSED.value)
    status_after = {d.request.id: d.status.value for r in after for d in r.decisions}
    status_after |= dict.fromkeys(by_hand - set(changes.grant), Status.REFUSED.value)
    # Both lists follow the document: requests and incidents of all matches interleaved
    # as written, not grouped by match.
    request_changes = tuple(
        (r.id, status_before[r.id], status_after.get(r.id, Status.REMOVED.value))
        for r in scenario.requests
        if r.id in status_before
        and status_before[r.id] != status_after.get(r.id, Status.REMOVED.value)
    )
    covered_before = _covered_by(before)
    covered_after = _covered_by(after)
    incident_changes = tuple(
        (i.id, covered_before[i.id], covered_after[i.id])
        for i in scenario.incidents
        if i.id in covered_before and covered_before[i.id] != covered_after[i.id]
    )
    return WhatIf(before, after, request_changes, incident_changes)


def on_top(base: Changes, changes: Changes) -> Changes:
    """`changes` made after `base`: for a request both name, `changes` wins."""
    mine = set(changes.grant) | set(changes.refuse)
    return Changes(
        grant=(*(r for r in base.grant if r not in mine), *changes.grant),
        refuse=(*(r for r in base.refuse if r not in mine), *changes.refuse),
        capacity=(*base.capacity, *changes.capacity),
    )


def _check_in_matches(scenario: Scenario, changes: Changes, match_ids: list[str]) -> None:
    """A change to a request of another match than those shown would silently do nothing."""
    match_of = {r.id: r.match for r in scenario.requests}
    problems = [
        Problem(flag, f'request "{rid}" is in match {match_of[rid]}, not in {", ".join(match_ids)}')
        for flag, ids in (("--grant", changes.grant), ("--refuse", changes.refuse))
        for rid in ids
        if rid in match_of and match_of[rid] not in match_ids
    ]
    if problems:
        raise ScenarioInvalid(problems)


def _covered_by(results: Iterable[MatchResult]) -> dict[str, tuple[Source, ...]]:
    return {c.incident.id: c.covered_by for r in results for c in r.incidents}


def what_if_json(result: WhatIf) -> dict[str, Any]:
    return {
        "changes": [{"request": r, "before": b, "after": a} for r, b, a in result.changes],
        "incidents": [
            {
                "incident": i,
                "before": [s.as_json() for s in before],
                "after": [s.as_json() for s in after],
            }
            for i, before, after in result.incidents
        ],
        "result": decide_json(result.after),
    }
