"""The match day's record (docs/scenario-extensions.md, "The match-day record"): each
request's state after publish, worked out from what was written as it happened (a
publish, an offer made and answered, a release, a revoke), and what every view shows of
it. Pure: the adapters give the stored facts and the clock.

Once a request has a state beyond `open`, no run decides it any more: the record does.
A published or accepted grant is a granted place everywhere at once; an open offer
holds its places (the engine gets it locked); a request declined, lapsed, released or
revoked is out of every decide (the engine does not get it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.decide import Usage
from pitchpass.core.deciding.locked import check_locked_fit
from pitchpass.core.deciding.places import capacities, footprint
from pitchpass.core.model import Request, Scenario
from pitchpass.core.reading.problems import Problem

OFFER_OPEN, OFFER_ACCEPTED, OFFER_DECLINED, OFFER_LAPSED = "open", "accepted", "declined", "lapsed"


class State(StrEnum):
    OPEN = "open"  # decided by the runs: nothing published or offered of it
    GRANTED = "granted"  # a grant published
    OFFERED = "offered"  # offered a place from the waitlist, not answered yet
    ACCEPTED = "accepted"  # the place offered accepted: a published grant
    DECLINED = "declined"  # the place offered declined: off the waitlist
    LAPSED = "lapsed"  # the place offered not answered in time: off the waitlist
    RELEASED = "released"  # a published grant released as a no-show
    REVOKED = "revoked"  # a published grant taken back by hand


HOLDS = frozenset({State.GRANTED, State.OFFERED, State.ACCEPTED})  # places held
PUBLISHED = frozenset({State.GRANTED, State.ACCEPTED})  # a granted place: pass and door
CLOSED = frozenset({State.DECLINED, State.LAPSED, State.RELEASED, State.REVOKED})


@dataclass(frozen=True)
class Entry:
    """A request's state after publish, and its reason in words where it has one."""

    state: State
    text: str = ""
    released: tuple[str, ...] = ()  # of a grant still held: the phases released from it


def state_of(
    locked: bool,
    revoked: str,
    no_show: bool,
    offer: str | None,
    until: datetime | None,
    now: datetime,
) -> Entry:
    """The record of one request from what was written of it: a revoke or a release (its
    reason in `revoked`) wins over all; then a published grant (`locked`: published, or
    an offer accepted); then the offer's answer (an open one past `until` has lapsed,
    whether or not the worker has marked it yet)."""
    if revoked:
        return Entry(State.RELEASED if no_show else State.REVOKED, revoked)
    if locked:
        return Entry(State.ACCEPTED if offer == OFFER_ACCEPTED else State.GRANTED)
    if offer == OFFER_OPEN and until is not None and until <= now:
        offer = OFFER_LAPSED
    return {
        OFFER_OPEN: Entry(State.OFFERED),
        OFFER_DECLINED: Entry(State.DECLINED, "its crew declined the place offered"),
        OFFER_LAPSED: Entry(State.LAPSED, "the place offered was not accepted in time"),
    }.get(offer or "", Entry(State.OPEN))


def engine_locked(state: State) -> bool | None:
    """How the engine gets a request of this state: locked (it holds its places), not
    locked (it is decided), or None: left out (decided by nobody any more)."""
    if state in CLOSED:
        return None
    return state in HOLDS


_REASON = {
    State.DECLINED: ReasonCode.DECLINED,
    State.LAPSED: ReasonCode.LAPSED,
    State.RELEASED: ReasonCode.RELEASED,
    State.REVOKED: ReasonCode.REVOKED,
}


def shown(entry: Entry, decision: Mapping[str, Any] | None, published_run: bool) -> dict[str, Any]:
    """What every view shows of a request: its decision (`decide --json`'s shape:
    status, tier, reasons; None if no run decided it as it is) with the record over it,
    and its `state`. An open request's state is `proposed` unless the run deciding it was
    published (`published_run`: a published refusal, on the waitlist); a request no run
    decided is `waiting`."""
    tier = (decision or {}).get("tier", "")
    if entry.state in PUBLISHED:
        reasons = [] if not entry.released else [{"code": ReasonCode.RELEASED, "text": (
            f"its {', '.join(entry.released)} place released as a no-show (none of its crew"
            " had checked in by its release time); it holds the others")}]  # fmt: skip
        return {"status": Status.GRANTED, "tier": tier, "reasons": reasons, "state": entry.state}
    if entry.state is State.OFFERED:
        return {"status": Status.OFFERED, "tier": tier, "reasons": [], "state": entry.state}
    if entry.state in CLOSED:
        status = Status.REFUSED if entry.state in (State.DECLINED, State.LAPSED) else Status.REVOKED
        reason = {"code": _REASON[entry.state], "text": entry.text}
        return {"status": status, "tier": tier, "reasons": [reason], "state": entry.state}
    if decision is None:
        return {"status": Status.WAITING, "tier": "", "reasons": [], "state": Status.WAITING}
    state = "published" if published_run else "proposed"
    return {**decision, "state": state}


def to_publish(granted: Collection[str], record: Mapping[str, Entry]) -> list[str]:
    """The run's grants (`granted`) a publish makes published grants: those still open
    (a published one is already; an offered one is published when its crew accepts; a
    closed one is decided by nobody)."""
    return sorted(k for k in granted if record.get(k, Entry(State.OPEN)).state is State.OPEN)


def publish_fits(scenario: Scenario, match_id: str, newly: Collection[str]) -> list[Problem]:
    """Whether the grants about to be published fit beside the places the record holds
    now (`scenario` as the engine gets the match: held requests locked): a match-day event
    since the run (an offer accepted, a place offered) may have taken their places. One
    problem for each zone and phase over capacity, naming the requests there."""
    wanted = set(newly)
    requests = tuple(
        dataclasses.replace(r, locked=True) if r.id in wanted else r
        for r in scenario.requests
        if r.match == match_id
    )
    return check_locked_fit(dataclasses.replace(scenario, requests=requests))


def usage(scenario: Scenario, match_id: str, holding: Collection[str]) -> tuple[Usage, ...]:
    """The places the requests of `holding` take in every zone and phase of the match (the
    `usage` of `decide --json`, zones in document order, phases in plan order): the grid
    of the match day, the record's held places and the run's grants of the open requests
    (more than capacity if they no longer fit: a publish says so)."""
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    room = capacities(venue, scenario.phases)
    used: dict[tuple[str, str], int] = {}
    wanted = set(holding)
    for r in scenario.requests_of(match_id):
        if r.id in wanted:
            for cell in footprint(r, venue):
                used[cell] = used.get(cell, 0) + r.crew
    return tuple(Usage(z, p, used.get((z, p), 0), n) for (z, p), n in room.items())


@dataclass(frozen=True)
class Taken:
    """A zone and phase with no room for a request: its places and who holds them."""

    zone: str
    phase: str
    used: int
    capacity: int
    holders: tuple[str, ...]


def taken(
    scenario: Scenario, match_id: str, wanted: Request, holding: Collection[str]
) -> list[Taken]:
    """Each zone and phase of `wanted`'s places (its footprint) where the requests of
    `holding` leave no room for its crew, with who holds them: why a place cannot be
    given back, in numbers and names."""
    venue = scenario.venue(scenario.match(match_id).venue)
    used = {(u.zone, u.phase): u for u in usage(scenario, match_id, holding)}
    held = [r for r in scenario.requests_of(match_id) if r.id in set(holding)]
    out = []
    for cell in footprint(wanted, venue):
        cell_use = used[cell]
        if cell_use.used + wanted.crew > cell_use.capacity:
            there = tuple(r.id for r in held if cell in footprint(r, venue))
            out.append(Taken(cell[0], cell[1], cell_use.used, cell_use.capacity, there))
    return out
