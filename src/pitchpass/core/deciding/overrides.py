"""Decisions by hand: a match's officer grants or refuses one request against the policy,
with a written reason. The rules are written in docs/scenario-extensions.md (an extension
of docs/contract.md); the independent oracle in tests/core checks them.

In short: overrides are taken in the order they were made, the last of a request counting.
A refusal by hand takes the request out of the decision and lists it refused with the
officer's reason (code `override`). A grant by hand makes the request locked, as
`what-if --grant` does: it sets aside the policy's order, the room left and the deadline,
never a zone's closing nor a club's say over its own room, and it must fit beside the
published (locked) grants and the grants by hand kept before it. An override that cannot
stand lapses, alone, with the reasons why.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.decide import Decision, MatchResult, decide_match
from pitchpass.core.deciding.places import Cell, capacities, footprint
from pitchpass.core.deciding.policy import beyond_override, club_names, tier_of
from pitchpass.core.deciding.reasons import Reason, capacity_reason
from pitchpass.core.explaining.whatif import Changes, WhatIf, apply_changes, check_changes, what_if
from pitchpass.core.model import Scenario
from pitchpass.core.reading.problems import ScenarioInvalid

ByHand = Literal["granted", "refused"]  # what an override makes of a request


@dataclass(frozen=True)
class Override:
    request: str
    status: Status  # GRANTED or REFUSED
    reason: str  # the officer's words


@dataclass(frozen=True)
class Lapsed:
    """An override that no longer stands, and why (in the core's reasons where it has
    them: a zone closed, no consent, no room)."""

    override: Override
    why: str
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class Overridden:
    result: MatchResult  # decisions in document order, those refused by hand included
    kept: tuple[Override, ...]  # the overrides in effect, in the order made
    lapsed: tuple[Lapsed, ...]
    # A refused request -> the grants by hand holding places where it finds none.
    crowded_by: Mapping[str, tuple[Override, ...]] = dataclasses.field(default_factory=dict)


def standing(
    scenario: Scenario, match_id: str, overrides: Sequence[Override]
) -> tuple[tuple[Override, ...], tuple[Lapsed, ...]]:
    """(kept, lapsed): which of the match's overrides stand, taken in the order made."""
    requests = {r.id: r for r in scenario.requests_of(match_id)}
    last = {o.request: n for n, o in enumerate(overrides)}
    kept: list[Override] = []
    lapsed: list[Lapsed] = []
    for n, override in enumerate(overrides):
        request = requests.get(override.request)
        if last[override.request] != n:
            lapsed.append(Lapsed(override, "replaced by a later override of the request"))
        elif request is None:
            lapsed.append(Lapsed(override, "the request is no longer in the match"))
        elif override.status is Status.REFUSED and request.locked:
            lapsed.append(Lapsed(override, "a published grant is revoked, not refused by hand"))
        elif override.status is Status.GRANTED and not request.locked:
            blockers = grant_blockers(scenario, match_id, kept, override.request)
            if blockers:
                lapsed.append(Lapsed(override, _words(blockers), blockers))
            else:
                kept.append(override)
        else:
            kept.append(override)  # a refusal, or a grant by hand since published
    return tuple(kept), tuple(lapsed)


def grant_blockers(
    scenario: Scenario, match_id: str, overrides: Iterable[Override], request_id: str
) -> tuple[Reason, ...]:
    """Why a grant by hand of the request, made after `overrides` (taken as standing),
    cannot be made: every reason no grant by hand sets aside (a zone closed on the way,
    no consent of the room's club), then, for every zone and phase where it does not fit
    beside the published grants and the grants by hand, a `capacity` reason whose
    `used` counts those places. None: it can be made."""
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    requests = {r.id: r for r in scenario.requests_of(match_id)}
    request = requests[request_id]
    names = club_names(scenario, match)
    blockers = beyond_override(request, match, venue, scenario.policy, names)
    if request.locked:
        return tuple(blockers)
    by_hand = {o.request for o in overrides if o.status is Status.GRANTED} - {request_id}
    used: dict[Cell, int] = {}
    crews: dict[Cell, dict[str, int]] = {}  # "published" | "by-hand" -> crews
    for other in requests.values():
        if other.locked or other.id in by_hand:
            kind = "published" if other.locked else "by-hand"
            for cell in footprint(other, venue):
                used[cell] = used.get(cell, 0) + other.crew
                counts = crews.setdefault(cell, {})
                counts[kind] = counts.get(kind, 0) + 1
    room = capacities(venue, scenario.phases)
    for zone, phase in footprint(request, venue):
        taken = used.get((zone, phase), 0)
        if taken + request.crew > room[zone, phase]:
            holders = sorted(crews.get((zone, phase), {}).items(), reverse=True)
            blockers.append(
                capacity_reason(zone, phase, taken, room[zone, phase], request.crew, holders)
            )
    return tuple(blockers)


def _words(reasons: Iterable[Reason]) -> str:
    return "; ".join(r.text for r in reasons)


def as_changes(overrides: Iterable[Override]) -> Changes:
    """The overrides as what-if changes: grants by hand locked, refusals taken out."""
    chosen = list(overrides)
    return Changes(
        grant=tuple(o.request for o in chosen if o.status is Status.GRANTED),
        refuse=tuple(o.request for o in chosen if o.status is Status.REFUSED),
    )


def decide_overridden(
    scenario: Scenario, match_id: str, overrides: Sequence[Override]
) -> Overridden:
    """The match decided with the overrides that stand."""
    kept, lapsed = standing(scenario, match_id, overrides)
    result = decide_match(_with(scenario, as_changes(kept)), match_id)
    refusals = {o.request: o.reason for o in kept if o.status is Status.REFUSED}
    result = with_refusals(scenario, result, refusals)
    return Overridden(result, kept, lapsed, _crowded_by(scenario, result, kept))


def _with(scenario: Scenario, changes: Changes) -> Scenario:
    """The scenario with standing overrides made (they fit: no check needed again)."""
    if changes == Changes():
        return scenario
    out, locked = set(changes.refuse), set(changes.grant)
    requests = tuple(
        dataclasses.replace(r, locked=True) if r.id in locked and not r.locked else r
        for r in scenario.requests
        if r.id not in out
    )
    return dataclasses.replace(scenario, requests=requests)


def with_refusals(
    scenario: Scenario, result: MatchResult, refusals: Mapping[str, str]
) -> MatchResult:
    """The result with the requests refused by hand (id -> the officer's reason) put
    back in document order, refused in their tier with the reason code `override`."""
    if not refusals:
        return result
    match = result.match
    decided = {d.request.id: d for d in result.decisions}
    decisions = []
    for request in scenario.requests_of(match.id):
        if request.id in refusals:
            organisation = scenario.organisation(request.by)
            partners = scenario.competition.partners
            _, tier = tier_of(request, organisation, match, scenario.policy, partners)
            reason = Reason(ReasonCode.OVERRIDE, refusals[request.id])
            decisions.append(Decision(request, Status.REFUSED, tier, (reason,)))
        elif request.id in decided:
            decisions.append(decided[request.id])
    return dataclasses.replace(result, decisions=tuple(decisions))


def _crowded_by(
    scenario: Scenario, result: MatchResult, kept: Sequence[Override]
) -> dict[str, tuple[Override, ...]]:
    full = {
        d.request.id: {
            (r.zone or "", r.phase or "") for r in d.reasons if r.code is ReasonCode.CAPACITY
        }
        for d in result.decisions
    }
    return crowding(scenario, result.match.id, kept, full)


def crowding(
    scenario: Scenario,
    match_id: str,
    kept: Sequence[Override],
    full: Mapping[str, Iterable[Cell]],
) -> dict[str, tuple[Override, ...]]:
    """For each request refused for room (id -> the zones and phases where it found
    none): the grants by hand (not of a request published before) holding places there."""
    original = {r.id: r for r in scenario.requests_of(match_id)}
    grants = [
        o
        for o in kept
        if o.status is Status.GRANTED and o.request in original and not original[o.request].locked
    ]
    if not grants:
        return {}
    venue = scenario.venue(scenario.match(match_id).venue)
    cells = {o.request: set(footprint(original[o.request], venue)) for o in grants}
    out = {}
    for request_id, where in full.items():
        holders = tuple(o for o in grants if cells[o.request] & set(where))
        if holders:
            out[request_id] = holders
    return out


def what_if_overridden(
    scenario: Scenario, match_id: str, overrides: Sequence[Override], changes: Changes
) -> WhatIf:
    """What-if for one match whose "before" is the match with its standing overrides and
    whose "after" has `changes` on top (a change of a request wins over its override).
    Both list the requests refused by hand, as the board does."""
    kept, _ = standing(scenario, match_id, overrides)
    answer = what_if(scenario, changes, [match_id], base=as_changes(kept))
    refusals = {o.request: o.reason for o in kept if o.status is Status.REFUSED}
    still = {k: v for k, v in refusals.items() if k not in changes.grant}
    return dataclasses.replace(
        answer,
        before=tuple(with_refusals(scenario, r, refusals) for r in answer.before),
        after=tuple(with_refusals(scenario, r, still) for r in answer.after),
    )


def only_if(scenario: Scenario, grant: Iterable[str]) -> dict[str, tuple[Reason, ...]]:
    """The requests a what-if grants outright although no grant by hand could, each with
    what it sets aside (a zone closed on the way, the room's club's consent): what-if
    answers as if these were not so, and says "only if"."""
    out = {}
    for request_id in grant:
        request = next(r for r in scenario.requests if r.id == request_id)
        match = scenario.match(request.match)
        venue = scenario.venue(match.venue)
        reasons = beyond_override(
            request, match, venue, scenario.policy, club_names(scenario, match)
        )
        if reasons and not request.locked:
            out[request_id] = tuple(reasons)
    return out


def without_room(
    scenario: Scenario, match_id: str, kept: Sequence[Override], changes: Changes
) -> tuple[str, tuple[Reason, ...]] | None:
    """The first grant by hand of a what-if that does not fit, with its `capacity`
    reasons (None: all fit). Its grants by hand are the standing ones no change names,
    then its own, in that order, each beside the published grants and those before it,
    with the what-if's refusals and capacities made (docs/scenario-extensions.md)."""
    problems = check_changes(scenario, changes)
    if problems:
        raise ScenarioInvalid(problems)
    named = set(changes.grant) | set(changes.refuse)
    if changes.capacity or changes.refuse:  # the places a refusal frees count
        scenario = apply_changes(
            scenario, Changes(refuse=changes.refuse, capacity=changes.capacity)
        )
    before = [o for o in kept if o.request not in named]
    grants = [o for o in before if o.status is Status.GRANTED]
    grants += [Override(key, Status.GRANTED, "what-if") for key in changes.grant]
    made = [o for o in before if o.status is Status.REFUSED]
    present = {r.id for r in scenario.requests_of(match_id)}
    for grant in grants:
        if grant.request in present:
            blockers = grant_blockers(scenario, match_id, made, grant.request)
            full = tuple(b for b in blockers if b.code is ReasonCode.CAPACITY)
            if full:
                return grant.request, full
        made.append(grant)
    return None
