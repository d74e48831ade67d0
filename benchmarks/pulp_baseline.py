"""The naive exact baseline: PuLP + CBC, one MILP model per match, as first written.

What an engineer would write before knowing where the time goes: for every match (even
one where everything fits) a binary variable per eligible request, a capacity row per
zone and phase, then the contract's lexicographic objective as a sequence of solves:

1. for each tier in priority order, maximise the number granted in that tier, then fix
   that count with an equality row;
2. the tie-break (the lexicographically greatest set in priority order) as weighted
   objectives over consecutive chunks of CHUNK requests (weights 2**15 .. 2**0), each
   chunk's values fixed before the next is solved.

The chunks keep every objective far below the range where CBC's tolerances (integrality
1e-6, a float objective) could blur two neighbouring values: one weighted objective over
all 30-60 requests (weights up to 2**59) is what one writes first, and it is not exact.

Tiers and eligibility are written here again, from docs/contract.md, rather than taken from
the engine, so that the equality check in decide_season.py compares two implementations.
Only the validated `Scenario` (load_document) is shared. The baseline decides the granted
set only: no reasons, usage or coverage (which makes it a little faster than it would be).

Deliberately not used: `threads=1` (CBC's bundled build stalls ~10 s in ~0.3% of runs with
it), and any shortcut the engine takes (skipping matches without contention, splitting a
match into independent groups, dropping requests that cannot fit).
"""

from __future__ import annotations

from dataclasses import dataclass

import pulp

from pitchpass.core import Scenario
from pitchpass.core.model import Match, Organisation, Request, Venue

CHUNK = 16  # requests per tie-break objective: weights up to 2**15


class BaselineFailed(Exception):
    """CBC did not report an optimal solution."""


@dataclass(frozen=True)
class Candidate:
    request: Request
    rank: int
    cells: tuple[tuple[str, str], ...]


def decide_season(scenario: Scenario) -> dict[str, list[str]]:
    """Match id -> ids of its granted requests (document order), for every match."""
    organisations = {o.id: o for o in scenario.organisations}
    venues = {v.id: v for v in scenario.venues}
    per_match: dict[str, list[Request]] = {m.id: [] for m in scenario.matches}
    for request in scenario.requests:
        per_match[request.match].append(request)
    return {
        match.id: decide_match(
            scenario, match, venues[match.venue], per_match[match.id], organisations
        )
        for match in scenario.matches
    }


def decide_match(
    scenario: Scenario,
    match: Match,
    venue: Venue,
    requests: list[Request],
    organisations: dict[str, Organisation],
) -> list[str]:
    zones = {z.id: z for z in venue.zones}
    room = {(z.id, p.id): z.capacity[p.id] for z in venue.zones for p in scenario.phases}
    candidates = []
    for request in requests:
        cells = tuple(
            (z, p) for p in request.phases for z in (request.zone, *zones[request.zone].via)
        )
        if request.locked:
            for cell in cells:
                room[cell] -= request.crew
        elif _eligible(request, match, zones, scenario):
            rank = _rank(request, organisations[request.by], match, scenario)
            candidates.append(Candidate(request, rank, cells))
    candidates.sort(key=lambda c: (c.rank, c.request.submitted, c.request.id))
    chosen = _solve(candidates, room, match.id)
    return [r.id for r in requests if r.locked or r.id in chosen]


def _eligible(request: Request, match: Match, zones: dict, scenario: Scenario) -> bool:
    if request.submitted > match.kickoff - scenario.policy.deadline:
        return False
    zone = zones[request.zone]
    for zone_id in (zone.id, *zone.via):
        if any(phase in zones[zone_id].closed for phase in request.phases):
            return False
    if zone.occupant is not None:
        club = match.home if zone.occupant == "home" else match.away
        if request.by != club and club not in request.consent:
            return False
    return True


def _rank(request: Request, organisation: Organisation, match: Match, scenario: Scenario) -> int:
    partners = scenario.competition.partners
    for rank, tier in enumerate(scenario.policy.tiers):
        rule = tier.rule
        if (
            rule == "any"
            or (rule == "host" and organisation.id == match.host)
            or (rule == "partner" and organisation.id in partners)
            or (rule == "club" and organisation.id in (match.home, match.away))
            or (rule.startswith("org:") and organisation.id == rule[4:])
            or (rule.startswith("kind:") and organisation.kind == rule[5:])
        ):
            return rank
    return len(scenario.policy.tiers)  # unranked: below every tier


def _solve(candidates: list[Candidate], room: dict, label: str) -> set[str]:
    problem = pulp.LpProblem("match", pulp.LpMaximize)
    grant = [pulp.LpVariable(f"x{i}", cat="Binary") for i in range(len(candidates))]
    for cell, places in room.items():
        terms = [c.request.crew * grant[i] for i, c in enumerate(candidates) if cell in c.cells]
        if terms:
            problem += pulp.lpSum(terms) <= places
    solver = pulp.PULP_CBC_CMD(msg=False)
    for rank in sorted({c.rank for c in candidates}):
        in_tier = pulp.lpSum(grant[i] for i, c in enumerate(candidates) if c.rank == rank)
        best = _maximise(problem, in_tier, solver, label)
        problem += in_tier == round(best)
    for start in range(0, len(candidates), CHUNK):
        chunk = range(start, min(start + CHUNK, len(candidates)))
        weights = {i: 1 << (chunk.stop - 1 - i) for i in chunk}
        _maximise(problem, pulp.lpSum(weights[i] * grant[i] for i in chunk), solver, label)
        for i in chunk:
            problem += grant[i] == round(grant[i].value())
    return {c.request.id for c, var in zip(candidates, grant, strict=True) if round(var.value())}


def _maximise(problem: pulp.LpProblem, objective, solver, label: str) -> float:
    problem.setObjective(objective)
    status = problem.solve(solver)
    if pulp.LpStatus[status] != "Optimal":
        raise BaselineFailed(f"CBC: {pulp.LpStatus[status]} for match {label}")
    return pulp.value(problem.objective) or 0.0
