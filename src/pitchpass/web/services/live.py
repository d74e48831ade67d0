"""The match-day header of the board and the door page: where the match stands now (the
phase and the minute, stoppage time as "45+2"), who is inside each zone, who is due for
release next and when, the offers open and their deadlines, and the minute an incident
logged now would carry. The core decides each (core/reading/minutes.py,
core/match_day/release.py); this reads, filters by who asks and puts times in words.
Nothing is written."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User

from pitchpass.core.match_day import release
from pitchpass.core.match_day.doors import open_between
from pitchpass.core.reading.minutes import Clock, clock_at
from pitchpass.web.errors import ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.services import access, doors, entries, times, waitlist
from pitchpass.web.services.snapshot import plan_of, requests_of
from pitchpass.web.services.waitlist import moment_of as at

RELEASES_SHOWN = 5  # the soonest; the header says how many more


@dataclass(frozen=True)
class ZoneNow:
    zone: str  # its name
    people: int
    places: int | None  # in the phase now; None outside every phase
    crews: list[str]  # "BT Sport (2)": for those who work the doors or manage the match


@dataclass(frozen=True)
class Due:
    request: str
    org: str
    phase: str
    at: str  # with its date, the venue's time zone and the minute


@dataclass(frozen=True)
class OpenOffer:
    request: str
    org: str
    until: str
    phases: tuple[str, ...] = ()  # the phases offered (those still to come when offered)


@dataclass(frozen=True)
class Live:
    """None of it is shown before the doors open (`opens` says when) nor once over."""

    now: str  # the venue's time now, with its date and zone
    clock: Clock
    on: bool  # the doors are open (core.doors.open_between)
    opens: str  # when the doors open, in words
    inside: list[ZoneNow]
    names: bool  # whether `inside` names the crews (else people counts only)
    releases: list[Due]
    more_releases: int
    offers: list[OpenOffer]
    log_minute: str | None  # None: this user does not log incidents
    zones: list[tuple[str, str]]  # (id, name): where an incident may be logged
    conflicts: list[str] = dataclasses.field(default_factory=list)
    # ^ offline scans the doors could not count (for those who see every crew by name)


def live_for(user: User, match_key: str, now: datetime) -> Live | None:
    return live_of(user, access.check_match(user, match_key), now)


def live_of(user: User, match: m.Match, now: datetime) -> Live | None:
    """The header as this user may see it: the clock for everyone; who is inside by name,
    and every release and offer, for the home club's officers, admins and the stewards of
    the venue; a media user its own releases and offers and the people counts only.
    None once the match is over (the doors closed after its last phase)."""
    plan = plan_of(match)
    minute = waitlist.minute_of(match, now)
    start, end = open_between(plan)
    if minute > end:
        return None
    clock = clock_at(minute, plan)
    on = minute >= start
    opens = times.text(match, match.kickoff + timedelta(minutes=start))
    everything = access.manages(user, match) or _works_doors(user, match)
    own = None if everything else {r.key for r in access.seen_list(user, match)}
    names = {r.key: r.by.name for r in requests_of(match)} if on else {}
    zones = list(match.venue.zones.order_by("position")) if on else []
    due = _releases(match, now, own) if on else []
    shown = [
        Due(x.request, names.get(x.request, ""), x.phase, times.clock(match, at(match, x.minute)))
        for x in due[:RELEASES_SHOWN]
    ]  # in words: only those shown
    return Live(
        now=times.text(match, now),
        clock=clock,
        on=on,
        opens=opens,
        inside=_inside(match, zones, clock.phase, names if everything else None) if on else [],
        names=everything,
        releases=shown,
        more_releases=max(0, len(due) - RELEASES_SHOWN),
        offers=_offers(match, now, own, names) if on else [],
        log_minute=clock.typed if on and _logs_incidents(user) else None,
        zones=[(z.key, z.name) for z in zones],
        conflicts=_conflicts(match) if on and everything else [],
    )


def conflicts_after(user: User, match: m.Match, live: Live | None) -> list[str]:
    """The door conflicts once the header no longer lists them (the doors closed, or not
    yet open), for those the header would show them to: they stay the officer's to act
    on after the match."""
    if live is not None and live.on:
        return []
    if not (access.manages(user, match) or _works_doors(user, match)):
        return []
    return _conflicts(match)


def _conflicts(match: m.Match) -> list[str]:
    return [
        f"{times.text(match, when, times.SECONDS)}, {zone} door: {text}"
        for zone, when, text in doors.conflicts(match)
    ]


def _works_doors(user: User, match: m.Match) -> bool:
    try:
        doors.check_door(user, match)
    except ServiceError:
        return False
    return True


def _logs_incidents(user: User) -> bool:
    try:
        entries.check_logs_incidents(user)
    except ServiceError:
        return False
    return True


def _inside(
    match: m.Match, zones: list[m.Zone], phase: str | None, names: dict[str, str] | None
) -> list[ZoneNow]:
    counted = doors.inside_now(match) if doors.any_admitted(match) else {}  # none yet: none in
    out = []
    for zone in zones:
        people, crews = counted.get(zone.key, (0, {}))
        by_org: dict[str, int] = {}
        for request, n in crews.items():
            org = (names or {}).get(request, request)
            by_org[org] = by_org.get(org, 0) + n
        out.append(
            ZoneNow(
                zone.name,
                people,
                doors.capacity(zone, phase) if phase else None,
                [f"{org} ({n})" for org, n in by_org.items()] if names is not None else [],
            )
        )
    return out


def _releases(match: m.Match, now: datetime, own: set[str] | None) -> list[release.Release]:
    if own is not None and not any(r.locked for r in requests_of(match) if r.key in own):
        return []  # none of its own published: nothing of its own to release
    return [x for x in waitlist.releases_ahead(match, now) if own is None or x.request in own]


def _offers(
    match: m.Match, now: datetime, own: set[str] | None, names: dict[str, str]
) -> list[OpenOffer]:
    return [
        OpenOffer(
            o.request.key,
            names.get(o.request.key, ""),
            times.clock(match, o.until),
            tuple(o.phases or o.request.phases),
        )
        for o in waitlist.open_offers(match, now)
        if own is None or o.request.key in own
    ]
