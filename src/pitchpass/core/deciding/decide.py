"""Deciding one match: tiers, eligibility, the granted set, reasons, usage and coverage."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from pitchpass.core.codes import Mode, Status
from pitchpass.core.deciding.allocate import Item, first_come, most_granted, room_left
from pitchpass.core.deciding.places import Cell, capacities, footprint
from pitchpass.core.deciding.policy import club_names, ineligibility, tier_of
from pitchpass.core.deciding.reasons import Reason, capacity_reason
from pitchpass.core.explaining.coverage import Coverage, cover
from pitchpass.core.model import Match, Request, Scenario
from pitchpass.core.reading.problems import Unproven


# Decisions and usage cells are made by the ten thousand in a season: named tuples are
# immutable like the frozen dataclasses of the model and several times cheaper to create.
class Decision(NamedTuple):
    request: Request
    status: Status
    tier: str
    reasons: tuple[Reason, ...] = ()


class Usage(NamedTuple):
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
    # Where the solver's time limit passed before the choice was proven the best (kept).
    unproven: tuple[Unproven, ...] = ()

    def decision(self, request_id: str) -> Decision:
        return next(d for d in self.decisions if d.request.id == request_id)


def decide(scenario: Scenario, match_ids: Iterable[str] | None = None) -> tuple[MatchResult, ...]:
    """Decide every match (or those named), in document order: each on its own, or, with
    season rules, the whole document jointly (season_decide)."""
    wanted = None if match_ids is None else set(match_ids)
    if scenario.policy.season is not None:
        from pitchpass.core.season.season_decide import decide_season

        return tuple(r for r in decide_season(scenario) if wanted is None or r.match.id in wanted)
    return tuple(
        decide_match(scenario, m.id) for m in scenario.matches if wanted is None or m.id in wanted
    )


@dataclass(frozen=True)
class Setting:
    """A match made ready to choose: its requests' tiers, what rules each out, the places
    each would take (`items`, only for those that may be granted) and the room left."""

    match: Match
    requests: tuple[Request, ...]
    tiers: dict[str, tuple[int, str]]
    barred: dict[str, list[Reason]]
    items: dict[str, Item]
    capacity: dict[Cell, int]
    room: dict[Cell, int]

    def ordered(self) -> list[Request]:
        """The requests that may be chosen, in the policy's order (tier, submitted, id)."""
        tiers = self.tiers
        return sorted(
            (r for r in self.requests if not r.locked and not self.barred[r.id]),
            key=lambda r: (tiers[r.id][0], r.submitted, r.id),
        )


def decide_match(scenario: Scenario, match_id: str) -> MatchResult:
    """Decide one match: on its own, or, where the document has season rules, jointly with
    its other matches (their published grants locked, their open requests decided with
    it: `decide`), the others' decisions left out. The desk decides a match so."""
    if scenario.policy.season is not None:
        return decide(scenario, [match_id])[0]
    setting = set_up(scenario, match_id)
    unproven: list[Unproven] = []
    return finish(scenario, setting, choose(scenario, setting, unproven), unproven=unproven)


def set_up(scenario: Scenario, match_id: str) -> Setting:
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    policy = scenario.policy
    requests = scenario.requests_of(match_id)
    tiers = {
        r.id: tier_of(r, scenario.organisation(r.by), match, policy, scenario.competition.partners)
        for r in requests
    }
    names = club_names(scenario, match)
    barred = {r.id: ineligibility(r, match, venue, policy, names) for r in requests}
    # Only requests that may be granted need their places worked out.
    items = {
        r.id: Item(r.id, tiers[r.id][0], r.crew, footprint(r, venue))
        for r in requests
        if r.locked or not barred[r.id]
    }
    capacity = capacities(venue, scenario.phases)
    room = room_left(capacity, [items[r.id] for r in requests if r.locked])
    return Setting(match, requests, tiers, barred, items, capacity, room)


def choose(
    scenario: Scenario, setting: Setting, unproven: list[Unproven] | None = None
) -> set[str]:
    """The ids the match on its own grants besides its locked requests (docs/contract.md 4);
    in `unproven`, where the solver's time limit passed before its best was proven."""
    ordered = [setting.items[r.id] for r in setting.ordered()]
    if scenario.policy.within_tier is Mode.FIRST_COME:
        return first_come(setting.room, ordered)
    return most_granted(setting.room, ordered, setting.match.id, unproven)


def finish(
    scenario: Scenario,
    setting: Setting,
    chosen: set[str],
    more: Mapping[str, tuple[Reason, ...]] | None = None,
    unproven: Iterable[Unproven] = (),
) -> MatchResult:
    """The match's result with `chosen` granted besides its locked requests; `more`: the
    season's own reasons of some requests (season_decide), after those of docs/contract.md."""
    requests, tiers, items, capacity = (
        setting.requests, setting.tiers, setting.items, setting.capacity
    )  # fmt: skip
    granted = [r for r in requests if r.locked or r.id in chosen]
    held = [items[r.id] for r in granted]
    used: dict[Cell, int] = {}
    for item in held:
        for cell in item.cells:
            used[cell] = used.get(cell, 0) + item.crew
    holders: dict[Cell, list[tuple[str, int]]] | None = None  # only needed for a refusal
    decisions = []
    extra = more or {}
    for r in requests:
        if r.locked or r.id in chosen:
            decisions.append(Decision(r, Status.GRANTED, tiers[r.id][1], extra.get(r.id, ())))
            continue
        reasons = setting.barred[r.id]
        if not reasons:
            holders = holders if holders is not None else _holders(held, tiers)
            reasons = _no_room(items[r.id], used, capacity, holders)
        if r.id in extra:
            reasons = [*reasons, *extra[r.id]]
        decisions.append(Decision(r, Status.REFUSED, tiers[r.id][1], tuple(reasons)))
    venue = scenario.venue(setting.match.venue)
    return MatchResult(
        setting.match,
        tuple(decisions),
        tuple(Usage(z, p, used.get((z, p), 0), cap) for (z, p), cap in capacity.items()),
        tuple(
            cover(i, venue, scenario.phases, granted)
            for i in scenario.incidents_of(setting.match.id)
        ),
        tuple(unproven),
    )


def _holders(
    held: list[Item], tiers: dict[str, tuple[int, str]]
) -> dict[Cell, list[tuple[str, int]]]:
    """For each cell, (tier name, granted crews) in tier order: who holds its places."""
    counts: dict[Cell, dict[tuple[int, str], int]] = {}
    for item in held:
        for cell in item.cells:
            per_tier = counts.setdefault(cell, {})
            per_tier[tiers[item.id]] = per_tier.get(tiers[item.id], 0) + 1
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
