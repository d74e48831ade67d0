"""The zone doors on match day: whether a pass lets one person of its crew in (or out) at a
door, and which crews were inside a zone at a moment. Pure: the adapters read the passes
and the scans, and give the clock as minutes after kick-off."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from pitchpass.core.model import Phase, Request

Direction = Literal["in", "out"]  # a scan's way through a door (the API's schema too)
IN, OUT = get_args(Direction)
DIRECTIONS: tuple[str, ...] = get_args(Direction)

# Why a door refuses, in the order they are checked (the first that applies is told).
UNKNOWN = "unknown"  # not a pass of this match
REVOKED = "revoked"  # its grant was taken back
WRONG_ZONE = "wrong-zone"  # neither its zone nor one it is reached through
WRONG_PHASE = "wrong-phase"  # not one of its phases
NOT_YET_OPEN = "not-yet-open"  # the clock is before the phase's start
CREW_INSIDE = "crew-inside"  # every person of its crew is inside already
NONE_INSIDE = "none-inside"  # out, with none of its crew inside
FULL = "full"  # the zone holds as many people as its places in that phase
# A scan made offline (sent later) that the door admitted while the crew was inside in
# full already, by the scans of other doors: recorded for the officer, not counted.
CONFLICT = "conflict"
CLOSED = "phase-over"  # the clock is past the phase's end and its tolerance
REASONS = (
    UNKNOWN, REVOKED, WRONG_ZONE, WRONG_PHASE, NOT_YET_OPEN, CLOSED, CREW_INSIDE, CONFLICT,
    NONE_INSIDE, FULL,
)  # fmt: skip

# A door opens this many minutes before its phase starts (crews set up first), and lets
# a crew in until this many minutes after it ends (a phase's end is not to the second).
OPENS_BEFORE = 15
CLOSES_AFTER = 15


def open_between(plan: Sequence[Phase]) -> tuple[float, float]:
    """The minutes the match's doors are open: from OPENS_BEFORE its first phase starts to
    CLOSES_AFTER its last one ends (the match-day header shows for as long)."""
    return min(p.start for p in plan) - OPENS_BEFORE, max(p.end for p in plan) + CLOSES_AFTER


@dataclass(frozen=True)
class Pass:
    """A published grant as its crew's pass: the zones its places are in (its zone, then
    the zones it is reached through), its phases and how many people it admits."""

    request: str
    org: str
    zones: tuple[str, ...]
    phases: tuple[str, ...]
    crew: int
    revoked: str | None = None


def pass_of(request: Request, via: Sequence[str], revoked: str | None = None) -> Pass:
    """The pass of a published grant: the zones it takes places in, as `places.cells_of`
    takes them (its zone, then its zone's `via`, as listed)."""
    zones = tuple(dict.fromkeys((request.zone, *via)))
    return Pass(request.id, request.by, zones, request.phases, request.crew, revoked)


@dataclass(frozen=True)
class Door:
    zone: str
    phase: str
    direction: str  # IN | OUT


@dataclass(frozen=True)
class Verdict:
    admitted: bool
    reason: str | None  # one of REASONS when refused
    text: str

    @property
    def result(self) -> str:
        return "admitted" if self.admitted else "refused"


def check(
    door: Door,
    found: Pass | None,
    *,
    inside_crew: int,
    inside_zone: int,
    capacity: int,
    phase: Phase,
    minute: float | None,
    offline: bool = False,
) -> Verdict:
    """Whether one person of the pass's crew goes through the door. `inside_crew` is how
    many of its crew are inside this zone, `inside_zone` how many people are (its places
    in `phase`: `capacity`); `minute` the clock (None: not checked): a door opens
    OPENS_BEFORE minutes before its phase and closes CLOSES_AFTER minutes after it.
    `offline`: the scan was made by a door without its connection and sent later (it let
    the person in already): a crew in full then is a `conflict` for the officer. Going
    out is never refused for the clock, the phase or the places: one who is in may always
    leave."""
    if found is None:
        return _no(
            UNKNOWN, "not a pass of this match: check the code, or send the crew to the desk"
        )
    who = f"{found.request} ({found.org}, crew {found.crew})"
    if door.direction == OUT:
        if inside_crew <= 0:
            return _no(NONE_INSIDE, f"{who}: none of its crew is inside {door.zone}")
        left = inside_crew - 1
        return Verdict(True, None, f"{who}: out of {door.zone}; {left} of its crew still inside")
    if found.revoked is not None:
        return _no(REVOKED, f"{who}: its place was taken back ({found.revoked})")
    if door.zone not in found.zones:
        return _no(WRONG_ZONE, f"{who}: its pass is for {_listed(found.zones)}, not {door.zone}")
    if door.phase not in found.phases:
        return _no(WRONG_PHASE, f"{who}: its pass is for {_listed(found.phases)}, not {door.phase}")
    opens = phase.start - OPENS_BEFORE
    if minute is not None and minute < opens:
        wait = _minutes(opens - minute)
        return _no(NOT_YET_OPEN, f"{who}: {door.phase} opens at minute {opens:g}, in {wait}")
    closes = phase.end + CLOSES_AFTER
    if minute is not None and minute > closes:
        return _no(CLOSED, f"{who}: {door.phase} closed at minute {closes:g}")
    if inside_crew >= found.crew and offline:
        return _no(
            CONFLICT,
            f"{who}: all {found.crew} of its crew were inside already at that moment (another"
            " door let them in): scanned offline, recorded as a conflict for the officer,"
            " not counted inside",
        )
    if inside_crew >= found.crew:
        return _no(CREW_INSIDE, f"{who}: all {found.crew} of its crew are inside already")
    if inside_zone >= capacity:
        return _no(
            FULL, f"{door.zone} holds {inside_zone} of {capacity} people: one must leave first"
        )
    count = f"{inside_crew + 1} of its {found.crew}"
    return Verdict(
        True, None, f"{who}: in, {count}; {inside_zone + 1} of {capacity} in {door.zone}"
    )


def place_gone(found: Pass, phases: Sequence[str], why: str) -> Verdict:
    """An offline scan that let one of a crew in before its place was released (the
    release was made before the scan was sent), where the place does not fit back (`why`:
    which zone and phase it would put over, and who holds it now): a conflict for the
    officer, not counted inside."""
    return _no(
        CONFLICT,
        f"{found.request} ({found.org}, crew {found.crew}): scanned offline before its"
        f" {_listed(phases)} place was released, but the place has gone since ({why}):"
        " recorded as a conflict for the officer, not counted inside",
    )


def given_back(verdict: Verdict, phases: Sequence[str], released_at: str) -> Verdict:
    """An offline scan that let one of a crew in before its place was released (at
    `released_at`, in words), where the place fitted back: the verdict the door gave, with
    what the steward should know (the release is undone; the crew holds the place)."""
    return Verdict(
        verdict.admitted,
        verdict.reason,
        f"{verdict.text}; its {_listed(phases)} place, released as a no-show at"
        f" {released_at}, is given back (scanned offline before the release)",
    )


def lets_in(
    passes: Iterable[Pass], zones: Sequence[str], phases: Sequence[str]
) -> list[tuple[str, str, list[Pass]]]:
    """The stewards' list: for each zone and phase (in the orders given), the passes its
    door lets in then, as `check` admits them while the clock and the places allow: not
    revoked, for the zone (or one reached through it) and for the phase. A zone and
    phase no pass is for is left out."""
    valid = [p for p in passes if p.revoked is None]
    cells = [
        (zone, phase, [p for p in valid if zone in p.zones and phase in p.phases])
        for zone in zones
        for phase in phases
    ]
    return [cell for cell in cells if cell[2]]


def _no(reason: str, text: str) -> Verdict:
    return Verdict(False, reason, text)


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _minutes(n: float) -> str:
    whole = max(1, round(n))
    return f"{whole} minute{'s' if whole != 1 else ''}"


@dataclass(frozen=True)
class Scan:
    """A scan as the door recorded it; only admitted ones move anybody."""

    request: str
    zone: str
    direction: str
    minute: float  # after kick-off
    admitted: bool = True


def step(crew: int, people: int, direction: str, admitted: bool) -> tuple[int, int]:
    """Who is inside after one scan (of its crew, and in all) from who was before: one
    more in, one fewer out (never fewer than none of a crew), nobody moved if refused."""
    if not admitted:
        return crew, people
    if direction == IN:
        return crew + 1, people + 1
    return max(0, crew - 1), people - (1 if crew > 0 else 0)


def counted(scans: Iterable[Scan], start: dict[str, int]) -> list[tuple[int, int]]:
    """After each scan (in the order given, one zone's): how many of its crew, and how
    many people, are inside; `start`: each crew inside before the first (the count `inside`
    gives, kept with the scans by the adapters so a scan need not read them all)."""
    crews = dict(start)
    people = sum(crews.values())
    out = []
    for scan in scans:
        crew, people = step(crews.get(scan.request, 0), people, scan.direction, scan.admitted)
        crews[scan.request] = crew
        out.append((crew, people))
    return out


def inside(scans: Iterable[Scan], zone: str, minute: float | None = None) -> dict[str, int]:
    """How many of each crew are in `zone` (at `minute`, or after every scan), from the
    admitted scans in the order they happened; crews with none inside are left out."""
    count: dict[str, int] = {}
    for scan in scans:
        if scan.zone != zone or not scan.admitted or (minute is not None and scan.minute > minute):
            continue
        step = 1 if scan.direction == IN else -1
        count[scan.request] = max(0, count.get(scan.request, 0) + step)
    return {request: n for request, n in count.items() if n > 0}


def peaks_from(scans: Iterable[Scan], zone: str, minute: float) -> tuple[dict[str, int], int]:
    """The most of each crew, and the most people, inside `zone` at any moment from
    `minute` on, from the admitted scans in the order they happened: what one more person
    let in at `minute` would be added to. A scan sent later from a door that was offline
    (its `scanned` time in the past) is checked against these, not against the count at
    its own moment alone: later scans already admitted stand, so a backdated one never
    puts more of a crew inside than its crew, nor more people than the zone's places."""
    count: dict[str, int] = {}
    crews: dict[str, int] = {}
    people = 0
    started = False
    for scan in sorted((s for s in scans if s.zone == zone and s.admitted), key=lambda s: s.minute):
        if not started and scan.minute > minute:
            started = True
            crews = dict(count)
            people = sum(count.values())
        step = 1 if scan.direction == IN else -1
        count[scan.request] = max(0, count.get(scan.request, 0) + step)
        if started:
            crews[scan.request] = max(crews.get(scan.request, 0), count[scan.request])
            people = max(people, sum(count.values()))
    if not started:
        crews, people = dict(count), sum(count.values())
    return {k: n for k, n in crews.items() if n > 0}, people


def present(
    scans: Iterable[Scan], zone: str, minute: float, filming: Iterable[Request]
) -> list[str]:
    """The crews with cameras that were inside `zone` at the incident's `minute` (in the
    order given): its coverage as the doors saw it, beside what the plan said. A whole
    minute, as one is typed ("84'", minute 100), is the whole of it, until the next: a
    crew let in during it was there; a minute with a fraction (an incident logged at its
    time) is that moment."""
    scans = list(scans)
    there = {request for request, n in inside(scans, zone, minute).items() if n > 0}
    if float(minute).is_integer():
        there |= {
            s.request
            for s in scans
            if s.zone == zone
            and s.admitted
            and s.direction == IN
            and minute < s.minute < minute + 1
        }
    return [r.id for r in filming if r.cameras >= 1 and r.id in there]
