"""Deciding one match: tiers, eligibility, the granted set, reasons, usage and coverage."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pitchpass.core.allocate import Item, first_come, most_granted, room_left
from pitchpass.core.codes import Mode, Status
from pitchpass.core.coverage import Coverage, cover
from pitchpass.core.model import Match, Request, Scenario, Venue
from pitchpass.core.places import Cell, capacities, footprint, usage
from pitchpass.core.policy import ineligibility, tier_of
from pitchpass.core.reasons import Reason, capacity_reason


@dataclass(frozen=True)
class Decision:
    request: Request
    status: Status
    tier: str
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class Usage:
    zone: str
    phase: str
    used: int
    capacity: int


@dataclass(frozen=True)
class MatchResult:
    match: Match
    decisions: tuple[Decision, ...]  # requests of the match in document order
    usage: tuple[Usage, ...]  # zones in document order, phases in plan order
    incidents: tuple[Coverage, ...]

    def decision(self, request_id: str) -> Decision:
        return next(d for d in self.decisions if d.request.id == request_id)


def decide(scenario: Scenario, match_ids: Iterable[str] | None = None) -> tuple[MatchResult, ...]:
    """Decide every match (or those named), each on its own, in document order."""
    wanted = None if match_ids is None else set(match_ids)
    return tuple(
        decide_match(scenario, m.id) for m in scenario.matches if wanted is None or m.id in wanted
    )


def decide_match(scenario: Scenario, match_id: str) -> MatchResult:
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    policy = scenario.policy
    requests = scenario.requests_of(match_id)
    tiers = {
        r.id: tier_of(r, scenario.organisation(r.by), match, policy, scenario.competition.partners)
        for r in requests
    }
    barred = {r.id: ineligibility(r, match, venue, policy) for r in requests}
    items = {r.id: Item(r.id, tiers[r.id][0], r.crew, footprint(r, venue)) for r in requests}
    capacity = capacities(venue, scenario.phases)
    room = room_left(capacity, [items[r.id] for r in requests if r.locked])
    candidates = sorted(
        (r for r in requests if not r.locked and not barred[r.id]),
        key=lambda r: (tiers[r.id][0], r.submitted, r.id),
    )
    ordered = [items[r.id] for r in candidates]
    if policy.within_tier is Mode.FIRST_COME:
        chosen = first_come(room, ordered)
    else:
        chosen = most_granted(room, ordered, match_id)
    granted = [r for r in requests if r.locked or r.id in chosen]
    used = usage(granted, venue)
    holders = _holders(granted, tiers, venue)
    decisions = []
    for r in requests:
        if r.locked or r.id in chosen:
            decisions.append(Decision(r, Status.GRANTED, tiers[r.id][1]))
        else:
            reasons = barred[r.id] or _no_room(items[r.id], used, capacity, holders)
            decisions.append(Decision(r, Status.REFUSED, tiers[r.id][1], tuple(reasons)))
    return MatchResult(
        match,
        tuple(decisions),
        tuple(Usage(z, p, used.get((z, p), 0), cap) for (z, p), cap in capacity.items()),
        tuple(cover(i, venue, scenario.phases, granted) for i in scenario.incidents_of(match_id)),
    )


def _holders(
    granted: list[Request], tiers: dict[str, tuple[int, str]], venue: Venue
) -> dict[Cell, list[tuple[str, int]]]:
    """For each cell, (tier name, granted crews) in tier order: who holds its places."""
    counts: dict[Cell, dict[tuple[int, str], int]] = {}
    for request in granted:
        for cell in footprint(request, venue):
            per_tier = counts.setdefault(cell, {})
            per_tier[tiers[request.id]] = per_tier.get(tiers[request.id], 0) + 1
    return {
        cell: [(name, n) for (_, name), n in sorted(per_tier.items())]
        for cell, per_tier in counts.items()
    }


def _no_room(
    item: Item,
    used: dict[Cell, int],
    capacity: dict[Cell, int],
    holders: dict[Cell, list[tuple[str, int]]],
) -> list[Reason]:
    """A `capacity` reason for every cell where the request does not fit beside the grants."""
    return [
        capacity_reason(
            zone,
            phase,
            used.get((zone, phase), 0),
            capacity[zone, phase],
            item.crew,
            holders.get((zone, phase), []),
        )
        for zone, phase in item.cells
        if used.get((zone, phase), 0) + item.crew > capacity[zone, phase]
    ]
