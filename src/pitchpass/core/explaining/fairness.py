"""When a refusal looks unfair, and why it is not: a request refused for room while a
request the policy ranks after it holds places where it was refused (of a lower tier,
or of its tier and sent later). Under most-granted the engine grants the most requests of
each tier in turn, so a large crew can lose its place to smaller ones ranked after it;
this names them, so that the desk can explain the policy where it matters, and only
there. Grants that are not the policy's choice (published, or made by hand) are left out:
their own reasons explain them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pitchpass.core.deciding.places import footprint
from pitchpass.core.deciding.policy import tier_of
from pitchpass.core.model import Scenario


@dataclass(frozen=True)
class RankedAfter:
    request: str  # the grant holding places
    why: str  # "a lower tier (club)" or "sent later, same tier (partner)"
    cells: tuple[tuple[str, str], ...]  # where it holds places the refused one needed


def ranked_after(
    scenario: Scenario,
    match_id: str,
    refused: str,
    full: Iterable[tuple[str, str]],
    granted: Iterable[str],
) -> tuple[RankedAfter, ...]:
    """The requests of `granted` (the policy's grants of the match) that hold places in a
    cell of `full` (where `refused` was refused for room) and that the policy ranks after
    `refused`: a lower tier, or the same tier and sent later (sent at the same moment: the
    id after, as the engine orders them). In the order of `granted`."""
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    partners = frozenset(scenario.competition.partners)
    requests = {r.id: r for r in scenario.requests_of(match_id)}

    def rank(request_id: str) -> tuple[int, str]:
        request = requests[request_id]
        return tier_of(request, scenario.organisation(request.by), match, scenario.policy, partners)

    if refused not in requests:
        return ()
    wanted = set(full)
    own_rank, own_tier = rank(refused)
    sent = requests[refused].submitted
    out = []
    for other in granted:
        if other not in requests or other == refused:
            continue
        cells = tuple(c for c in footprint(requests[other], venue) if c in wanted)
        if not cells:
            continue
        other_rank, other_tier = rank(other)
        if other_rank > own_rank:
            out.append(RankedAfter(other, f"a lower tier ({other_tier})", cells))
        elif other_rank == own_rank and requests[other].submitted > sent:
            out.append(RankedAfter(other, f"sent later, same tier ({own_tier})", cells))
        elif other_rank == own_rank and requests[other].submitted == sent and other > refused:
            # The engine's order within a tier: the time sent, then the id (decide.py).
            why = f"sent at the same moment, same tier ({own_tier}), its id after"
            out.append(RankedAfter(other, why, cells))
    return tuple(out)


def its_tier_or_below(
    scenario: Scenario,
    match_id: str,
    refused: str,
    full: Iterable[tuple[str, str]],
    granted: Iterable[str],
) -> bool:
    """Whether a request of `granted` holds places in a cell of `full` and is of the tier
    of `refused` or a lower one: what its refusal's own numbers already tell (the crews
    holding a full cell, by tier), so the policy's explanation can be given to one who
    may not learn which requests those are, or when they were sent."""
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    requests = {r.id: r for r in scenario.requests_of(match_id)}
    if refused not in requests:
        return False
    wanted = set(full)
    partners = frozenset(scenario.competition.partners)

    def rank(request_id: str) -> int:
        request = requests[request_id]
        organisation = scenario.organisation(request.by)
        return tier_of(request, organisation, match, scenario.policy, partners)[0]

    own = rank(refused)
    return any(
        other in requests
        and other != refused
        and rank(other) >= own
        and any(c in wanted for c in footprint(requests[other], venue))
        for other in granted
    )


def full_cells(reasons: Iterable[Mapping[str, object]]) -> tuple[tuple[str, str], ...]:
    """The cells of the `capacity` reasons of a decision as JSON (docs/contract.md's shape)."""
    return tuple((str(r["zone"]), str(r["phase"])) for r in reasons if r.get("code") == "capacity")
