"""Match day after publishing (docs/scenario-extensions.md, "Match day"): the waitlist,
deciding it again against the places freed, the offer's time to accept, the no-show
release and the no-show bar. Pure: the adapters give the requests, the scans and the
clock (as minutes after kick-off, or as moments)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.decide import MatchResult, decide_match
from pitchpass.core.deciding.policy import club_names, ineligibility, tier_of
from pitchpass.core.model import Phase, Request, Scenario


@dataclass(frozen=True)
class Waiting:
    request: str
    by: str
    tier: str
    place: int  # 1: the next to be offered a place, as the policy orders them


OPEN = "open"  # an offer's state while it waits for an answer


@dataclass(frozen=True)
class Kept:
    """A request as the desk keeps it, for who holds places and who waits."""

    request: str
    locked: bool  # a published grant
    current: bool  # as the published run decided it (not changed since)
    offer: str | None = None  # its offer's state, if it was ever offered a place


def held_and_waiting(
    standing: Iterable[Kept], published: Sequence[tuple[str, str, Sequence[str]]] | None
) -> tuple[list[str], list[str]]:
    """Who holds places (published grants, open offers) and who waits (docs "The
    waitlist"): refused in the published run (`published`: (request, status, reason
    codes) of each decision, None before a publish), as it is now, not refused by hand
    (the officer's word is not undone by a freed place), never offered a place."""
    rows = {s.request: s for s in standing}
    held = [s.request for s in rows.values() if s.locked or s.offer == OPEN]
    if published is None:
        return held, []
    waiting = [
        key
        for key, status, codes in published
        if status == Status.REFUSED
        and key in rows
        and rows[key].current
        and not rows[key].locked
        and rows[key].offer is None
        and ReasonCode.OVERRIDE not in codes
    ]
    return held, waiting


def to_come(request: Request, plan: Sequence[Phase], minute: float) -> tuple[str, ...]:
    """The phases of the request that have not ended yet at `minute` (those a place freed
    then could still be of use in), in the request's order."""
    ends = {p.id: p.end for p in plan}
    return tuple(p for p in request.phases if ends[p] > minute)


def still_wanted(request: Request, plan: Sequence[Phase], minute: float) -> bool:
    """Whether some phase of the request has not ended yet at `minute`."""
    return bool(to_come(request, plan, minute))


def waitlist(
    scenario: Scenario, match_id: str, waiting: Iterable[str], minute: float | None = None
) -> list[Waiting]:
    """The requests of `waiting` that a freed place could go to, in the policy's order
    (tier, then the time sent, then the id): those the deadline, a closed zone or a
    missing consent refuse are not on it, nor (with `minute`) one whose phases are over."""
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    names = club_names(scenario, match)
    wanted = set(waiting)
    ranked = []
    for r in scenario.requests_of(match_id):
        if r.id not in wanted or r.locked:
            continue
        if ineligibility(r, match, venue, scenario.policy, names):
            continue
        if minute is not None and not still_wanted(r, scenario.phases, minute):
            continue
        organisation = scenario.organisation(r.by)
        rank, tier = tier_of(r, organisation, match, scenario.policy, scenario.competition.partners)
        ranked.append(((rank, r.submitted, r.id), r, tier))
    ranked.sort(key=lambda item: item[0])
    return [Waiting(r.id, r.by, tier, n) for n, (_, r, tier) in enumerate(ranked, 1)]


@dataclass(frozen=True)
class Promotion:
    promoted: tuple[str, ...]  # offered a place now, in the policy's order
    result: MatchResult  # the held requests and the waitlist, decided
    phases: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    # ^ the phases each promoted request is offered: those still to come at the minute


def promote(
    scenario: Scenario,
    match_id: str,
    held: Iterable[str],
    waiting: Iterable[str],
    minute: float | None = None,
) -> Promotion:
    """Decide the waitlist again against the places left: every `held` request (published
    grants, offers not yet answered) locked, never taken back; the requests still on the
    waitlist deciding as docs/contract.md says, each (with `minute`) for its phases still to
    come only (a place in a phase over is of use to nobody: it is neither asked for nor
    offered); every other request of the match left out."""
    keep = set(held)
    listed = waitlist(scenario, match_id, waiting, minute)
    compete = {w.request for w in listed}

    def competing(r: Request) -> Request:
        if minute is None:
            return r
        return dataclasses.replace(r, phases=to_come(r, scenario.phases, minute))

    requests = tuple(
        dataclasses.replace(r, locked=True)
        if r.id in keep
        else competing(r)
        if r.id in compete
        else r
        for r in scenario.requests
        if r.match != match_id or r.id in keep or r.id in compete
    )
    result = decide_match(dataclasses.replace(scenario, requests=requests), match_id)
    decided = result.decisions
    granted = {d.request.id: d.request.phases for d in decided if d.status is Status.GRANTED}
    promoted = tuple(w.request for w in listed if w.request in granted)
    return Promotion(promoted, result, {key: granted[key] for key in promoted})


LAPSED = "lapsed"  # an offer's state once its time passed unanswered


def offer_state(state: str, until: datetime, now: datetime) -> str:
    """An offer's state at `now`: an open one past its time has lapsed, whether or not
    the worker has marked it yet (it is answered as lapsed, never accepted)."""
    return LAPSED if state == OPEN and until <= now else state


def offer_until(
    request: Request, plan: Sequence[Phase], minute: float, accept_within: int
) -> float:
    """The minute by which a crew offered a place at `minute` must accept: `accept_within`
    minutes later, and no later than the end of the first of its phases still to come."""
    ends = sorted(p.end for p in plan if p.id in request.phases and p.end > minute)
    latest = ends[0] if ends else minute
    return min(minute + accept_within, latest)


NO_SHOW, REQUEST = "no-show", "request"


@dataclass(frozen=True)
class Event:
    """A no-show of an organisation, or a request it sent, at a moment of its season."""

    by: str
    moment: datetime
    kind: str  # NO_SHOW | REQUEST
    request: str


def barred(events: Iterable[Event], limit: int) -> dict[str, int]:
    """The requests refused for their organisation's no-shows (id -> how many): once an
    organisation has had `limit` no-shows, the next request it sends is refused and the
    count starts again. At one moment a no-show comes before a request; 0: never."""
    if limit <= 0:
        return {}
    order = {NO_SHOW: 0, REQUEST: 1}
    count: dict[str, int] = {}
    out: dict[str, int] = {}
    for event in sorted(events, key=lambda e: (e.moment, order[e.kind], e.request)):
        if event.kind == NO_SHOW:
            count[event.by] = count.get(event.by, 0) + 1
        elif count.get(event.by, 0) >= limit:
            out[event.request] = count[event.by]
            count[event.by] = 0
    return out
