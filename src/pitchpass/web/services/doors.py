"""Passes and the zone doors: every published grant gets a pass for its crew; a steward
checks it at a door and every scan is recorded. What a door decides is the core's
(core/match_day/doors.py); this module reads the rows, locks the match and writes the scan."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from django.contrib.auth.models import User
from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import F, OuterRef, Subquery, Window
from django.db.models.functions import RowNumber

from pitchpass.core.deciding.places import places_in
from pitchpass.core.explaining.coverage import phase_at
from pitchpass.core.match_day import doors as core
from pitchpass.core.model import Phase, Request
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.changes import check_text
from pitchpass.web.services import access, late_scans, times
from pitchpass.web.services.snapshot import once, plan_of

SALT = "pitchpass.pass"
CODE_MAX = 100  # longer is not a pass
KEY_MAX = 64
DOOR_ROLES = ("steward", "officer", "admin")
QUEUED_FOR = timedelta(days=1)  # a scan sent later than this after it was made is refused


def signed(code: str) -> str:
    """What the QR code carries: the pass's code, signed with the site's secret."""
    return signing.Signer(salt=SALT).sign(code)


def typed(code: str) -> str:
    """The code as printed under the QR code, for a steward to type."""
    return f"{code[:5]}-{code[5:]}"


def plain_code(text: str) -> str | None:
    """The pass code in what was scanned or typed; None if a signed one does not check."""
    text = text.strip()
    if ":" in text:
        try:
            return signing.Signer(salt=SALT).unsign(text)
        except signing.BadSignature:
            return None
    return text.replace("-", "").replace(" ", "").upper()


def digest(code: str, key: str) -> str:
    """How a door's offline list names a pass: HMAC-SHA256 under the list's own `key`
    (a new one each time a list is fetched, sent with it), so that no two lists name a
    pass alike and no table made beforehand turns a copied list into codes."""
    return hmac.new(key.encode(), f"pitchpass-pass:{code}".encode(), hashlib.sha256).hexdigest()


def _rows(match: m.Match) -> list[m.Pass]:
    return list(
        m.Pass.objects.filter(request__match=match)
        .select_related("request__by", "request__zone", "request__offer")
        .order_by("request__position")
    )


def core_pass(row: m.Pass) -> core.Pass:
    r = row.request
    phases = store.held_phases(r)  # not released, and (from the waitlist) those offered
    # The organisation by name: the door says whose crew it is as a steward reads it.
    request = Request(r.key, r.match.key, r.by.name, r.zone.key, phases, r.crew, r.submitted)
    return core.pass_of(request, r.zone.via, r.revoked or None)


def passes_for(user: User, match_key: str) -> list[dict[str, Any]]:
    """The match's passes: its home officer and admins get all of them, anyone else their
    own organisation's (a steward, of none: the door checks, it does not list)."""
    match = access.check_match(user, match_key)
    who = access.profile(user)
    if who.role == "steward":
        raise ServiceError(ErrorCode.FORBIDDEN, "stewards check passes at the door page")
    return passes_of(match, None if access.manages(user, match) else who.organisation_id)


def passes_of(match: m.Match, organisation: int | None) -> list[dict[str, Any]]:
    """The match's passes (`organisation`: only that one's), each as the API has it: read
    only (each is made as its grant is published: persistence/passes.py)."""
    rows = _rows(match)
    if organisation is not None:
        rows = [p for p in rows if p.request.by_id == organisation]
    frame = _frame(match)
    return [pass_json(p, match, frame) for p in rows]


def _frame(match: m.Match) -> dict[str, Any]:
    """What every pass of the match prints beside its own: the match, its kick-off, the
    zones' names and each phase's times (with their date and the venue's time zone)."""
    kickoff = match.kickoff
    return {
        "match": f"{match.home.name} v {match.away.name}",
        "venue": match.venue.name,
        "kickoff": times.text(match, kickoff),
        "names": dict(match.venue.zones.values_list("key", "name")),
        "times": {
            p.id: times.span(
                match, kickoff + timedelta(minutes=p.start), kickoff + timedelta(minutes=p.end)
            )
            for p in plan_of(match)
        },
    }


def pass_json(row: m.Pass, match: m.Match, frame: dict[str, Any]) -> dict[str, Any]:
    """A pass as the API, the passes page and the printed sheet have it: its code, whose,
    where (zone ids, and their names), when (phases, and each one's times) and the crew."""
    found = core_pass(_with_match(row, match))
    out: dict[str, Any] = {
        "request": found.request,
        "code": signed(row.code),
        "typed": typed(row.code),
        "org": row.request.by.name,
        "zone": row.request.zone.key,
        "zones": list(found.zones),
        "phases": list(found.phases),
        "crew": found.crew,
        "match": frame["match"],
        "venue": frame["venue"],
        "kickoff": frame["kickoff"],
        "zone_names": [frame["names"].get(z, z) for z in found.zones],
        "phase_times": [f"{p}: {frame['times'][p]}" for p in found.phases if p in frame["times"]],
    }
    if found.revoked:
        out["revoked"] = found.revoked
    return out


def _with_match(row: m.Pass, match: m.Match) -> m.Pass:
    row.request.match = match
    return row


@dataclass(frozen=True)
class DoorView:
    """What a door page shows: the zone and phase, who is inside against its places."""

    zone: str
    zone_name: str
    phase: str
    inside: int
    capacity: int
    crews: dict[str, int]  # request id -> people inside


def check_door(user: User | m.Profile, match: m.Match) -> None:
    """Who works a match's doors: the stewards assigned to its venue (by a league admin),
    the home club's officers (the venue is theirs) and league admins; anyone else is
    refused (403) at the door, its offline list and its scans, before any pass is read."""
    who = user if isinstance(user, m.Profile) else access.profile(user)
    if who.role not in DOOR_ROLES:
        raise ServiceError(ErrorCode.FORBIDDEN, "stewards, officers and admins check passes")
    if who.role == "officer" and who.organisation_id != match.home_id:
        raise ServiceError(
            ErrorCode.FORBIDDEN, "only the home club's officers work its doors, with its stewards"
        )
    assigned = getattr(match, "assigned", None)  # read with the match (check_match_of)
    if assigned is None and who.role == "steward":
        assigned = who.venues.filter(pk=match.venue_id).exists()
    if who.role == "steward" and not assigned:
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            "this venue's doors are worked by the stewards a league admin assigned to it",
        )


def _zone_and_phase(match: m.Match, zone: str, phase: str) -> tuple[m.Zone, Phase]:
    return _zone(match, zone), _phase(match, phase)


def _zone(match: m.Match, zone: str, lock: bool = False) -> m.Zone:
    """The venue's zone (`lock`: its row locked until the transaction ends: a scan there
    waits for the one before, at any door of the zone; scans elsewhere do not)."""
    rows = m.Zone.objects.filter(venue_id=match.venue_id, key=zone)
    found = (rows.select_for_update() if lock else rows).first()
    if found is None:
        raise ServiceError(ErrorCode.INVALID, f'no zone "{zone}" at {match.venue.name}', "zone")
    return found


def _phase(match: m.Match, phase: str) -> Phase:
    plan = {p.id: p for p in plan_of(match)}
    if phase not in plan:
        raise ServiceError(ErrorCode.INVALID, f'no phase "{phase}" in this match', "phase")
    return plan[phase]


def capacity(zone: m.Zone, phase: str) -> int:
    """The zone's places in the phase, as stored (core.places.places_in)."""
    return places_in(store.capacity_of(zone) or 0, phase)


def _scans(match: m.Match, zone: str) -> list[core.Scan]:
    kickoff = match.kickoff
    rows = m.Scan.objects.filter(match=match, zone=zone, result="admitted").order_by(
        "scanned", "id"
    )
    return [  # plain tuples, no model rows: a busy door has thousands
        core.Scan(request, zone, direction, _minute(scanned, kickoff))
        for request, direction, scanned in rows.values_list("request", "direction", "scanned")
    ]


def _minute(when: datetime, kickoff: datetime) -> float:
    return (when - kickoff).total_seconds() / 60


def _check_door_text(**texts: str) -> None:
    """What names a door (a zone, a phase) from a page's or the API's query string: text
    the database can look up (no NUL, no lone surrogate), or a 400 in the error shape."""
    for name, value in texts.items():
        check_text(value, name)


def door(user: User, match_key: str, zone: str, phase: str) -> DoorView:
    _check_door_text(zone=zone, phase=phase)
    match = access.check_match(user, match_key)
    check_door(user, match)
    found, _ = _zone_and_phase(match, zone, phase)
    crews = core.inside(_scans(match, zone), zone)
    return DoorView(zone, found.name, phase, sum(crews.values()), capacity(found, phase), crews)


@dataclass(frozen=True)
class OfflineList:
    """What a door keeps for when its connection drops: its key, and each pass of the
    zone by its digest under that key (`digest`), without the code itself."""

    key: str
    passes: list[dict[str, Any]]


def offline_list(user: User, match_key: str, zone: str) -> OfflineList:
    """The door's list for offline: a key made for this list alone, and each pass whose
    places are in `zone` by its keyed digest, with what the door checks offline."""
    _check_door_text(zone=zone)
    match = access.check_match(user, match_key)
    check_door(user, match)
    _zone_and_phase(match, zone, plan_of(match)[0].id)
    key = secrets.token_hex(16)
    kept = []
    for row in _rows(match):
        found = core_pass(_with_match(row, match))
        if zone not in found.zones:
            continue
        kept.append(
            {
                "digest": digest(row.code, key),
                "request": found.request,
                "org": row.request.by.name,
                "zones": list(found.zones),
                "phases": list(found.phases),
                "crew": found.crew,
                "revoked": found.revoked,
            }
        )
    return OfflineList(key, kept)


def do_check_in(user: User, match_key: str, body: dict[str, Any], now: datetime) -> dict[str, Any]:
    """One scan at a door (`body` as http/schemas.CheckInIn has checked it): the core
    says admitted or refused, and the scan is recorded. `key` (the door's own id for the
    scan) makes a resent scan answer as the first did; `scanned` is when a door that was
    offline made it. Locks the zone's row (not the
    match: the other zones' doors, and the desk, do not wait), as pretix's check-in locks
    the ticket's; who is inside is read from the newest scans (kept with them), so a scan
    costs the same at an empty door and after thousands."""
    code, zone, phase = body["code"], body["zone"], body["phase"]
    direction, key = body["direction"], body.get("key") or ""
    # Types, lengths and the direction are the body's schema's (http/schemas.CheckInIn),
    # checked once at each way in; what the database can store is checked here.
    for name, value in (("code", code), ("zone", zone), ("phase", phase), ("key", key)):
        check_text(value, name)
    scanned = _scanned(body.get("scanned"), now)
    try:
        with transaction.atomic():
            return _check_in(user, match_key, code, zone, phase, direction, key, scanned, now, body)
    except IntegrityError:  # its key was used before: a resend, or two tabs at once
        if not key:
            raise
        with transaction.atomic():  # the first scan of that key stands
            match = access.check_match(user, match_key)
            again = m.Scan.objects.get(match=match, key=key)
            plain = plain_code(code)
            row = m.Pass.objects.filter(code=plain, request__match=match).first() if plain else None
            _check_same_scan(again, row, zone, phase, direction)
            return _answer(again)


def _check_in(
    user: User,
    match_key: str,
    code: str,
    zone: str,
    phase: str,
    direction: str,
    key: str,
    scanned: datetime,
    now: datetime,
    body: dict[str, Any],
) -> dict[str, Any]:
    """do_check_in's work, in its transaction. A key used before fails the insert (the
    constraint one_scan_a_key): no statement reads it first, the common scan pays none."""
    who = access.profile(user)
    match = access.check_match_of(who, match_key, door=True)
    check_door(who, match)
    found_zone = _zone(match, zone, lock=True)  # its doors wait here, no other zone's
    found_phase = _phase(match, phase)
    # Read after the lock, in a statement of its own: on PostgreSQL a statement that
    # waited for the lock would still see the door as it was when it started. The pass,
    # its crew inside and the door's newest scan in one statement.
    at_door = m.Scan.objects.filter(match=match, zone=zone).order_by("-scanned", "-id")
    plain = plain_code(code)
    newest_of_crew = at_door.filter(request=OuterRef("request__key"))
    row = (
        m.Pass.objects.select_related("request__by", "request__zone", "request__offer")
        .filter(code=plain, request__match=match)
        .annotate(
            crew_inside=Subquery(newest_of_crew.values("crew_inside")[:1]),
            door_scanned=Subquery(at_door.values("scanned")[:1]),
            door_inside=Subquery(at_door.values("zone_inside")[:1]),
        )
        .first()
        if plain
        else None
    )  # a pass is made when its grant is published or first listed: none, no code
    if row is not None:
        newest = None if row.door_scanned is None else (row.door_scanned, row.door_inside)
    else:  # not a pass of the match: the door's count is read on its own
        newest = at_door.values_list("scanned", "zone_inside").first()
    the_pass = core_pass(_with_match(row, match)) if row is not None else None
    request = the_pass.request if the_pass else ""
    minute = _minute(scanned, match.kickoff)
    offline = body.get("scanned") is not None
    if offline and row is not None and the_pass is not None and row.request.released:
        the_pass = late_scans.pass_then(match, row.request, the_pass, minute)  # as it was then
    live = newest is None or newest[0] <= scanned  # else sent later by an offline door
    if live:  # who is inside now, kept with the newest scans: no history read
        people = newest[1] if newest is not None else 0
        crew = (row.crew_inside or 0) if row is not None else 0
    else:  # against every moment from its own on (core peaks_from), as it was then
        scans = _scans(match, zone)
        if direction == core.IN:
            crews, people = core.peaks_from(scans, zone, minute)
        else:  # one who was in then may leave
            crews = core.inside(scans, zone, minute)
            people = sum(crews.values())
        crew = crews.get(request, 0)
    verdict = core.check(
        core.Door(zone, phase, direction),
        the_pass,
        inside_crew=crew,
        inside_zone=people,
        capacity=capacity(found_zone, phase),
        phase=found_phase,
        minute=minute,
        offline=offline,
    )
    if verdict.admitted and direction == core.IN and offline and row is not None and the_pass:
        verdict = _undo_releases(match, row.request, the_pass, zone, minute, scanned, verdict)
    crew_after, zone_after = core.step(crew, people, direction, verdict.admitted)
    scan = m.Scan.objects.create(
        match=match, pass_of=row, request=request, zone=zone, phase=phase,
        direction=direction, result=verdict.result, reason=verdict.reason or "",
        text=verdict.text, by=user, username=user.get_username(), scanned=scanned,
        received=now, key=key, crew_inside=crew_after, zone_inside=zone_after,
    )  # fmt: skip
    if not live:  # its own counts are those of its moment, and it moves those after
        _count_again(match, zone)
    return _answer(scan)


def _undo_releases(
    match: m.Match,
    row: m.Request,
    found: core.Pass,
    zone: str,
    minute: float,
    scanned: datetime,
    verdict: core.Verdict,
) -> core.Verdict:
    """An offline scan that let one of a crew in by a release time of its grant, sent
    after that release was made: the release is undone if the place still fits, else the
    scan is a conflict for the officer (services/late_scans.py)."""
    phases = late_scans.check_undo(match, row, core.Scan(row.key, zone, core.IN, minute))
    if not phases:
        return verdict
    undone = late_scans.do_undo(match, row, phases, scanned)
    if undone.gone:
        return core.place_gone(found, phases, undone.gone)
    return core.given_back(verdict, undone.phases, undone.released_at) if undone.phases else verdict


def _count_again(match: m.Match, zone: str) -> None:
    """Who is inside after each scan of the door, counted again from the first (the core's
    `counted`): a scan sent later by an offline door moves the counts after its moment."""
    rows = list(
        m.Scan.objects.filter(match=match, zone=zone)
        .order_by("scanned", "id")
        .only("request", "direction", "result", "crew_inside", "zone_inside")
    )
    scans = [core.Scan(r.request, zone, r.direction, 0.0, r.result == "admitted") for r in rows]
    changed = []
    for r, (crew, people) in zip(rows, core.counted(scans, {}), strict=True):
        if (r.crew_inside, r.zone_inside) != (crew, people):
            r.crew_inside, r.zone_inside = crew, people
            changed.append(r)
    m.Scan.objects.bulk_update(changed, ["crew_inside", "zone_inside"], batch_size=500)


def _check_same_scan(
    again: m.Scan, row: m.Pass | None, zone: str, phase: str, direction: str
) -> None:
    """A scan sent again with its `key` is answered as the first was, if it is the same
    scan (the same pass, or no pass, at the same door); a key sent with another code,
    zone, phase or direction is a 409: a key names one scan, and answering it would tell
    what the first scan found."""
    same = (again.pass_of_id, again.zone, again.phase, again.direction) == (
        row.pk if row is not None else None, zone, phase, direction
    )  # fmt: skip
    if not same:
        raise ServiceError(
            ErrorCode.CONFLICT,
            "this scan's key was sent before with another pass, zone, phase or direction:"
            " a door gives each scan a key of its own",
            "key",
        )


def _scanned(value: Any, now: datetime) -> datetime:
    if value is None:
        return now
    if not isinstance(value, str) or len(value) > 40:
        raise ServiceError(ErrorCode.INVALID, "scanned is a date and time (ISO 8601)", "scanned")
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ServiceError(
            ErrorCode.INVALID, "scanned is a date and time (ISO 8601)", "scanned"
        ) from None
    if when.tzinfo is None:
        raise ServiceError(ErrorCode.INVALID, "scanned needs a timezone", "scanned")
    if when > now + timedelta(minutes=5) or when < now - QUEUED_FOR:
        raise ServiceError(
            ErrorCode.INVALID, "scanned must be within the last day, not in the future", "scanned"
        )
    return when


def _answer(scan: m.Scan) -> dict[str, Any]:
    out: dict[str, Any] = {"result": scan.result, "reason": scan.reason or None, "text": scan.text}
    if scan.request:
        out["request"] = scan.request
    return out


def scans_at(user: User, match_key: str, zone: str, limit: int = 20) -> list[m.Scan]:
    """The newest scans at a zone's door, for the steward's page."""
    _check_door_text(zone=zone)
    match = access.check_match(user, match_key)
    check_door(user, match)
    return list(m.Scan.objects.filter(match=match, zone=zone).order_by("-scanned", "-id")[:limit])


def conflicts(match: m.Match) -> list[tuple[str, datetime, str]]:
    """The scans the doors recorded as a conflict for the officer (offline scans that could
    not be counted: a crew inside in full already, a place released and gone since), in
    the order made: (zone, when scanned, what the door said)."""
    rows = m.Scan.objects.filter(match=match, reason=core.CONFLICT).order_by("scanned", "id")
    return list(rows.values_list("zone", "scanned", "text"))


def any_admitted(match: m.Match) -> bool:
    """Whether a zone door of the match has let anyone in (once per page)."""
    return once(
        "admitted", match, lambda: m.Scan.objects.filter(match=match, result="admitted").exists()
    )


def present_at(match: m.Match, zone: str, minute: float) -> list[str]:
    """The crews with cameras inside `zone` at `minute`, as the doors counted them."""
    filming = [
        Request(r.key, match.key, "", r.zone.key, tuple(r.phases), r.crew, r.submitted, r.cameras)
        for r in m.Request.objects.filter(match=match, pass_of__isnull=False).select_related("zone")
    ]
    return core.present(_scans(match, zone), zone, minute, filming)


def inside_now(match: m.Match) -> dict[str, tuple[int, dict[str, int]]]:
    """Who is inside each zone now, as the doors counted: zone id -> (people, request id
    -> people of its crew), from the newest admitted scan of each zone and of each crew in
    it (kept with the scans), not the doors' whole history."""
    admitted = m.Scan.objects.filter(match=match, result="admitted")
    newest = [F("scanned").desc(), F("id").desc()]
    zones = admitted.annotate(
        n=Window(RowNumber(), partition_by=[F("zone")], order_by=newest)
    ).filter(n=1)
    # The newest scan of each crew, whatever it left inside: a condition on its count in
    # this filter would be applied before the window (the ORM puts it in the inner query)
    # and find the crew's scan before it went out.
    crews = admitted.annotate(
        n=Window(RowNumber(), partition_by=[F("zone"), F("request")], order_by=newest)
    ).filter(n=1)
    out: dict[str, tuple[int, dict[str, int]]] = {
        zone: (people, {}) for zone, people in zones.values_list("zone", "zone_inside")
    }
    for zone, request, people in crews.values_list("zone", "request", "crew_inside"):
        if people:
            out.setdefault(zone, (0, {}))[1][request] = people
    return out


@dataclass(frozen=True)
class DoorChoices:
    """What a steward picks a door from: the venue's zones and the match's phases, and
    the phase the clock is in (the one offered first; else the first phase)."""

    match: str
    match_name: str
    zones: list[tuple[str, str]]  # (id, name), in the venue's order
    phases: list[str]
    now_phase: str | None  # None: the clock is outside every phase
    default_phase: str
    zone: tzinfo  # the venue's time zone (services/times.py)
    zone_name: str  # the same as a browser names it (door.js)


def door_choices(user: User, match_key: str, now: datetime) -> DoorChoices:
    match = access.check_match(user, match_key)
    check_door(user, match)
    plan = plan_of(match)
    zones = list(match.venue.zones.order_by("position").values_list("key", "name"))
    clock = phase_at(_minute(now, match.kickoff), plan)
    name = _named(match)
    phases = [p.id for p in plan]
    return DoorChoices(
        match.key,
        name,
        zones,
        phases,
        clock,
        clock or plan[0].id,
        times.zone_of(match),
        times.zone_name(match),
    )


def match_name(user: User, match_key: str) -> str:
    """The match as a page names it: its clubs and its day ("... v ..., Sun 10 Dec 2017")."""
    return _named(access.check_match(user, match_key))


def _named(match: m.Match) -> str:
    return f"{match.home.name} v {match.away.name}, {times.text(match, match.kickoff, times.DAY)}"
