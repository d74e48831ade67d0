"""What users do to a match's requests and incidents: the lists; submitting, changing
and withdrawing requests; consent; logging incidents; the export. Each `do_*` runs in one
transaction that first locks the match row (changes.py), so that two people acting on one
match at once are serialised and no zone is ever over-booked. Deciding is decisions.py.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction

from pitchpass.core import Frame, Scenario, check_document, check_request, read_frame
from pitchpass.core.deciding.policy import closes_at, deadline_of, needs_consent, occupant_club
from pitchpass.core.explaining.coverage import phase_at
from pitchpass.core.reading.minutes import NotAMinute, clock_minute, football_minute
from pitchpass.core.reading.problems import Problem
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.limits import ID_LENGTH
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import audit
from pitchpass.web.persistence.changes import (
    changed,
    check_id,
    check_text,
    lock_match,
    recorded,
    stored_invalid,
)
from pitchpass.web.services import access, notices, waitlist
from pitchpass.web.services.access import check_manages
from pitchpass.web.services.snapshot import plan_of, scenario_of

REQUEST_FIELDS = ("id", "zone", "phases", "crew", "cameras", "consent")


def matches_for(user: User) -> list[dict[str, Any]]:
    """The matches the user may see, in kick-off order."""
    return [
        {
            "id": match.key,
            "competition": match.competition.key,
            "venue": match.venue.key,
            "home": match.home.key,
            "away": match.away.key,
            "kickoff": match.kickoff.isoformat(),
            "host": match.host.key if match.host else None,
        }
        for match in access.visible_matches(user)
    ]


LIST_SECONDS = 3600  # how long a view of a match's list is kept in the cache


def requests_for(user: User, match_key: str) -> list[dict[str, Any]]:
    """The match's requests the user may see, in docs/contract.md's shape. Kept in
    Django's cache under the match's version and frame and whose view it is (role,
    organisation, whether they manage the match): every change to a request moves the
    version on, and a load or an admin's edit the frame, so a list read back is never
    older than the match's row read with it. A broadcaster's system polls its list:
    read back, it costs the match's row alone (benchmarks/RESULTS-web.md: reads made 15%
    of the bare read worked out at every call)."""
    who = access.profile(user)
    row = access.check_match_row(user, match_key)
    view = f"{who.role}:{who.organisation_id}:{access.manages(user, row)}"
    key = f"pitchpass-list:{row.pk}:{row.version}:{row.frame}:{view}"

    def read() -> list[dict[str, Any]]:
        match = access.check_match(user, match_key)  # with its clubs (an officer's view)
        return store.requests_json(access.visible_requests(user, match))

    return cache.get_or_set(key, read, LIST_SECONDS)  # type: ignore[return-value]


def requests_close(match: m.Match) -> datetime | None:
    """When requests close (core.policy.closes_at, with the competition's deadline). None
    if the deadline as stored is not one the core accepts: the match is then not a valid
    scenario, and what reads it says so."""
    deadline = deadline_of(match.competition.deadline)
    if deadline is None:
        return None
    return closes_at(match.kickoff, deadline)


def _check_deadline(match: m.Match, now: datetime) -> None:
    cutoff = requests_close(match)
    if cutoff is None:
        scenario_of(match)  # raises the stored match's problem
    elif now > cutoff:
        when = cutoff.isoformat(timespec="minutes")
        raise ServiceError(ErrorCode.DEADLINE_PASSED, f"requests closed at {when}, the deadline")


def do_submit_request(user: User, match_key: str, body: dict[str, Any], now: datetime) -> str:
    """Add a request (media: for their own organisation; admin: for `by`); the core checks
    it against the match as stored. What needs no lock is done before the match is locked
    (check_submission: the request checked against the match's frame, moved on only by a
    load or an admin's edit, and checked again under the lock if it moved meanwhile).
    Holding the match's lock (changes.lock_match): the version moved on, the row inserted
    after the match's last (the id's uniqueness is the database's: a clash is a 409), its
    consent, the audit entry in the match's chain, the notice to a club whose consent it
    needs. The request's id."""
    check_text(body)
    who = access.profile(user)
    match = access.check_match_of(who, match_key)
    admin = who.role == "admin"
    by = _requester(who, body)
    if body.get("consent") and not admin:
        raise ServiceError(
            ErrorCode.FORBIDDEN, "consent is given by the occupant club's officer", "consent"
        )
    wanted = body.get("id")
    # Checked now only when chosen; a number is given under the match's lock.
    request_id = check_id(_request_id(match, by, wanted, admin) if wanted else f"{by}.1")
    entry = {k: body[k] for k in REQUEST_FIELDS if body.get(k) is not None}
    entry |= {"id": request_id, "match": match.key, "by": by, "submitted": now.isoformat()}
    checked = check_submission(match, entry, now)
    requester = _organisation(who, by)
    try:
        return _write_submission(user, match, checked, requester, now, wanted, admin)
    except IntegrityError as error:
        if not _id_taken(error):
            raise
        # Told after the lock has gone: the request that held the id may be withdrawn by
        # now, and is then told of as it was.
        raise _clash(match, entry["id"], by, wanted, admin) from None
    except m.Match.DoesNotExist:  # removed since it was read
        raise ServiceError(ErrorCode.NOT_FOUND, f'no match "{match_key}"', "match") from None


class Checked(NamedTuple):
    """A new request as checked against its match's frame, ready to be written."""

    entry: dict[str, Any]  # in docs/contract.md's shape
    zone: int  # its zone's row
    club: str | None  # the club whose consent it needs and was not given, if any


def check_submission(match: m.Match, entry: dict[str, Any], now: datetime) -> Checked:
    """The deadline, then the core's check of the request against the match's frame (read
    once), and what it needs of a club (core.policy.needs_consent). Takes no lock."""
    _check_deadline(match, now)
    frame = frame_of(match)
    _check_with_core(frame, entry)
    zones = m.Zone.objects.filter(venue_id=match.venue_id, key=entry["zone"])
    zone = zones.values_list("pk", flat=True).first()
    if zone is None or frame.scenario is None:  # an admin's edit since the frame was read
        raise ServiceError(
            ErrorCode.CONFLICT, "the match changed while the request was checked: send it again"
        )
    asked = needs_consent(
        frame.scenario, match.key, entry["zone"], entry["by"], entry.get("consent", ())
    )
    return Checked(entry, zone, None if asked is None else asked[0])


def _new_row(
    match: m.Match, checked: Checked, requester: m.Organisation, now: datetime
) -> m.Request:
    entry = checked.entry
    return m.Request(
        match=match,
        key=entry["id"],
        by=requester,
        zone_id=checked.zone,
        phases=list(entry["phases"]),
        crew=entry["crew"],
        cameras=entry.get("cameras", 1),
        submitted=now,
        submitted_offset=0,
        changed_in=match.version,
    )


def _write_submission(
    user: User,
    match: m.Match,
    checked: Checked,
    requester: m.Organisation,
    now: datetime,
    wanted: Any,
    admin: bool,
) -> str:
    """The request and its audit entry written holding the match's lock. The request's
    id."""
    with transaction.atomic():
        frame = match.frame
        match = lock_match(match)
        if match.frame != frame:  # a load or an admin's edit since the check
            checked = check_submission(match, checked.entry, now)
        entry = checked.entry
        changed(match)
        if not wanted:  # the first free number, now that no one else can take it
            entry["id"] = check_id(_request_id(match, entry["by"], wanted, admin))
        row = _new_row(match, checked, requester, now)
        store.add_request(row)
        consent = sorted(set(entry.get("consent", [])))
        if consent:
            row.consent.set(m.Organisation.objects.filter(key__in=consent))
        after = store.request_json(match.key, row, consent, entry["zone"])
        audit(user, "submit", match, entry["id"], None, after)
        if checked.club is not None:
            club = m.Organisation.objects.get(key=checked.club)
            notices.consent_asked(match, row, club)
    return str(entry["id"])


def _id_taken(error: IntegrityError) -> bool:
    """Whether the database refused the row for its id (the unique (match, key)
    constraint, as PostgreSQL and SQLite name it), not for another reason."""
    said = str(error)
    return "unique_request_key" in said or (
        "UNIQUE constraint failed" in said and f"{m.Request._meta.db_table}.key" in said
    )


def _clash(match: m.Match, request_id: str, by: str, wanted: Any, admin: bool) -> ServiceError:
    """What a submission whose id is taken is told. A media user never learns whose it
    is (an id held by another organisation, or no longer held: "choose another")."""
    holder = match.requests.filter(key=request_id).values_list("by__key", flat=True).first()
    typed = str(wanted or "")
    if not admin and holder != by:  # loaded from a file: not theirs to learn
        return ServiceError(
            ErrorCode.DUPLICATE, f'the reference "{typed}" cannot be used: choose another', "id"
        )
    taken = f'your reference "{typed}" is taken: ' if typed != request_id else ""
    return ServiceError(ErrorCode.DUPLICATE, f'{taken}request "{request_id}" exists already', "id")


def _organisation(who: m.Profile, by: str) -> m.Organisation:
    """The requester's row: a media user's own organisation (read with the profile)."""
    own = who.organisation if who.role == "media" else None
    return own if own is not None and own.key == by else m.Organisation.objects.get(key=by)


def _requester(who: m.Profile, body: dict[str, Any]) -> str:
    if who.role == "media" and who.organisation is not None:
        if body.get("by") not in (None, who.organisation.key):
            raise ServiceError(ErrorCode.FORBIDDEN, "media users submit for their own organisation")
        return who.organisation.key
    if who.role == "admin":
        if not body.get("by"):
            raise ServiceError(ErrorCode.INVALID, "an admin names the requester in by", "by")
        return str(body["by"])
    who_they = {"officer": "club officers", "steward": "stewards"}.get(
        who.role, "users without a role"
    )
    raise ServiceError(ErrorCode.FORBIDDEN, f"{who_they} do not submit requests")


def _request_id(match: m.Match, by: str, wanted: Any, admin: bool) -> str:
    """Admins choose ids freely; others' ids start with their organisation's, so that a
    clash (409) can only ever be with their own requests, never tell of another's."""
    if admin and wanted:
        return str(wanted)
    prefix = f"{by}."
    if wanted:  # a reference typed with the prefix already keeps it once
        reference = str(wanted).removeprefix(prefix)
        if "." in reference:
            # Without dots the id spaces of organisations "sky" and "sky.news" never meet:
            # "sky" could otherwise take, or learn of, "sky.news.exclusive".
            raise ServiceError(
                ErrorCode.INVALID,
                f'a reference cannot hold a "." (the request\'s id is "{prefix}" and the'
                " reference)",
                "id",
            )
        request_id = prefix + reference
        if len(request_id) > ID_LENGTH:
            raise ServiceError(
                ErrorCode.INVALID,
                f'the reference is too long: with "{prefix}" in front, an id has at most'
                f" {ID_LENGTH} characters",
                "id",
            )
        return request_id
    taken = set(match.requests.filter(key__startswith=prefix).values_list("key", flat=True))
    return _free_id(prefix, taken)


def _free_id(prefix: str, taken: set[str], number: int = 1) -> str:
    """The prefix and the first number from `number` on that makes an id not taken yet."""
    while f"{prefix}{number}" in taken:
        number += 1
    return f"{prefix}{number}"


def _check_with_core(frame: Frame, entry: dict[str, Any]) -> None:
    """The new request must be valid in the match as stored; its problems are reported
    with the first one's field as the path. The core checks the request on its own
    against the match's frame (its competition, policy, phases, venue and
    organisations, as core.read_frame reads them): the other requests
    play no part (its id is checked here; it is never locked, so it takes no part in the
    check that locked grants fit), and are not exported (the match's size would otherwise
    be the cost of every submission)."""
    named = {entry["by"], *entry.get("consent", [])} - set(frame.org_ids)
    extra = m.Organisation.objects.filter(key__in=named).values_list("key", flat=True)
    problems = check_request(frame, entry, list(extra) if named else [])
    if problems:
        raise _invalid(problems, f"requests[{frame.place}]")
    if frame.problems:  # the match as stored is at fault, not the entry
        raise ServiceError(ErrorCode.CONFLICT, stored_invalid(frame.problems[0]))


FRAME_SECONDS = 3600  # how long a match's frame, as read, is kept in the cache


def frame_of(match: m.Match) -> Frame:
    """The match's frame as the core reads it (core.read_frame), kept in Django's cache
    under the match's frame version, which a load or an admin's edit moves on
    (store.frames_changed) and a request never does. Every submission is checked against
    it, and reading it afresh was most of a submission's work: 7 queries and the core's
    read of the whole frame (benchmarks/RESULTS-web.md)."""
    key = f"pitchpass-frame:{match.pk}:{match.frame}"
    return cache.get_or_set(  # type: ignore[return-value]
        key, lambda: read_frame(_frame(match)), FRAME_SECONDS
    )


def _frame(match: m.Match) -> dict[str, Any]:
    """The match exported without its requests and incidents: what a new one is checked
    against."""
    return store.export(match.key, False)


def _check_entry(document: dict[str, Any], section: str, entry: dict[str, Any]) -> Scenario:
    """Put `entry` in `section` (in the place of the entry with its id, else last) and let
    the core validate the whole; the problems of the entry come back in one message, the
    first one's field as the path."""
    entries = document[section]
    place = next((n for n, e in enumerate(entries) if e["id"] == entry["id"]), len(entries))
    old = entries[place : place + 1]
    entries[place : place + 1] = [entry]
    scenario, problems, _ = check_document(document)
    if scenario is None:
        prefix = f"{section}[{place}]"
        own = [p for p in problems if _within(p.path, prefix)]
        if not own:
            entries[place : place + 1] = old
            if check_document(document)[1]:  # the match as stored is at fault, not the entry
                raise ServiceError(ErrorCode.CONFLICT, stored_invalid(problems[0]))
            own = problems
        raise _invalid(own, prefix)
    return scenario


def _invalid(own: list[Problem], prefix: str) -> ServiceError:
    """The entry's problems in one message, the first one's field (after `prefix`, the
    entry's place in the document) as the path."""
    fields = [p.path.removeprefix(prefix).lstrip(".") for p in own]
    also = [f"{field}: {p.message}" for field, p in zip(fields[1:], own[1:], strict=True)]
    message = "; also ".join([own[0].message, *also])  # every problem, the first's path
    return ServiceError(ErrorCode.INVALID, message, fields[0])


def _within(path: str, prefix: str) -> bool:
    """Whether `path` is `prefix` or under it (`requests[3].zone`; not `requests[30]`)."""
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def do_withdraw_request(user: User, match_key: str, request_id: str, now: datetime) -> None:
    """Remove a request of the user's organisation (admin: any) before the deadline.
    Locks the match. Another organisation's request is "not found", as if absent,
    unless the user sees it (a club officer: "forbidden")."""
    with transaction.atomic():
        match = lock_match(access.check_match(user, match_key))
        who = access.profile(user)
        row = _own_request(user, match, request_id)
        if row.locked:
            raise ServiceError(ErrorCode.PUBLISHED, "a published grant is revoked, not withdrawn")
        if who.role != "admin":
            _check_deadline(match, now)
        before = store.request_json(match.key, row)
        offered = m.Offer.objects.filter(request=row, state=m.Offer.OPEN).exists()
        row.delete()
        changed(match)
        if offered:  # the places its offer held go on down the waitlist
            waitlist.queue_match_day(match)
        audit(user, "withdraw", match, request_id, before, None)


CHANGE_FIELDS = ("zone", "phases", "crew", "cameras", "consent")


def do_change_request(
    user: User, match_key: str, request_id: str, body: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """Change a request's zone, phases, crew or cameras (admin: also consent) before the
    deadline (admins after it too, as for withdrawing). The changed request replaces the
    old one and counts as submitted now: a change never keeps an earlier place in the
    first-come order. A change of zone drops the consent given for the old zone. Locks
    the match; another organisation's request is "not found", as if absent, unless the
    user sees it ("forbidden"; roles that do not submit are "forbidden" whatever the id)."""
    check_text(body)
    changes = {k: body[k] for k in CHANGE_FIELDS if body.get(k) is not None}
    if not changes:
        raise ServiceError(ErrorCode.INVALID, f"change one of {', '.join(CHANGE_FIELDS)}")
    with transaction.atomic():
        match = lock_match(access.check_match(user, match_key))
        who = access.profile(user)
        admin = who.role == "admin"
        if not admin and who.role != "media":
            raise ServiceError(ErrorCode.FORBIDDEN, "media users change their own requests")
        if "consent" in changes and not admin:
            raise ServiceError(
                ErrorCode.FORBIDDEN, "consent is given by the occupant club's officer", "consent"
            )
        row = _own_request(user, match, request_id)
        if row.locked:
            raise ServiceError(ErrorCode.PUBLISHED, "a published grant is revoked, not changed")
        if row.revoked:
            raise ServiceError(ErrorCode.CONFLICT, f"it was revoked ({row.revoked}): withdraw it")
        if not admin:
            _check_deadline(match, now)
        before = store.request_json(match.key, row)
        if _same(before, changes):  # saved as it was: it keeps its place, nothing is sent
            return before
        entry = {k: v for k, v in before.items() if k != "locked"} | changes
        entry["submitted"] = now.isoformat()
        if entry["zone"] != before["zone"] and "consent" not in changes:
            entry.pop("consent", None)
        _check_with_core(read_frame(_frame(match)), entry)
        row.zone = match.venue.zones.get(key=entry["zone"])
        row.phases = list(entry["phases"])
        row.crew = entry["crew"]
        row.cameras = entry["cameras"]
        row.submitted = now
        row.submitted_offset = 0
        row.consent_refused = False  # sent again as it now is: not refused (yet)
        row.save()
        row.consent.set(m.Organisation.objects.filter(key__in=entry.get("consent", [])))
        after = store.request_json(match.key, row)
        _sent(match, row)
        audit(user, "change", match, request_id, before, after)
        return after


def _same(request: dict[str, Any], changes: dict[str, Any]) -> bool:
    """Whether the changes leave the request as it is (phases and consent in any order)."""

    def plain(field: str, value: Any) -> Any:
        listed = field in ("phases", "consent") and isinstance(value, list)
        return sorted(map(str, value)) if listed else value

    return all(
        plain(f, v) == plain(f, request.get(f, [] if f == "consent" else None))
        for f, v in changes.items()
    )


def _sent(match: m.Match, row: m.Request) -> None:
    """The request is new to the decisions: the match's version moves on, and the request
    waits for the next decide (runs made before decided it as it was)."""
    changed(match)
    m.Request.objects.filter(pk=row.pk).update(changed_in=match.version)
    row.changed_in = match.version


def _own_request(user: User, match: m.Match, request_id: str) -> m.Request:
    """The request, if it is the user's organisation's (admin: any); one the user sees
    but is not theirs (a club officer's view) is "forbidden"; any other "not found"."""
    who = access.profile(user)
    rows = match.requests.select_related("by", "zone").filter(key=request_id)
    if who.role != "admin":
        rows = rows.filter(by=who.organisation)
    row = rows.first()
    if row is None and access.seen_requests(user, match).filter(key=request_id).exists():
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            f"{request_id} is another organisation's: only it (or an admin) changes or"
            " withdraws it",
        )
    if row is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")
    return row


class Consented(NamedTuple):
    published: bool  # a published grant: it stands whatever its consent, until revoked
    taken_back: bool  # consent had been given and is now refused


def do_consent(user: User, match_key: str, request_id: str, given: bool) -> Consented:
    """The occupant club's officer gives or takes back consent for a crew in its own
    dressing room. A request the user may not see is "not found", as if absent (the
    occupant's officer sees those in its zones). Locks the match."""
    with transaction.atomic():
        match = lock_match(access.check_match(user, match_key))
        who = access.profile(user)
        row = access.seen_requests(user, match).filter(key=request_id).first()
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")
        club = occupant_club(row.zone.occupant, match.home.key, match.away.key)
        occupant = {match.home.key: match.home, match.away.key: match.away}.get(club or "")
        if occupant is None:
            raise ServiceError(ErrorCode.CONFLICT, f"{row.zone.key} belongs to no club")
        if who.role not in ("admin", "officer") or (
            who.role == "officer" and who.organisation_id != occupant.pk
        ):
            raise ServiceError(ErrorCode.FORBIDDEN, f"only {occupant.key}'s officer consents here")
        before = sorted(row.consent.values_list("key", flat=True))
        if given:
            row.consent.add(occupant)
        else:
            row.consent.remove(occupant)
        after = sorted(row.consent.values_list("key", flat=True))
        m.Request.objects.filter(pk=row.pk).update(consent_refused=not after)
        if after != before and not row.locked:
            _sent(match, row)
        elif after != before:  # a published grant stands whatever its consent: the version
            # moves on (what the lists show changed), and runs that were current stay so
            recorded(match)
        audit(user, "consent", match, request_id, {"consent": before}, {"consent": after})
        return Consented(row.locked, not given and after != before)


INCIDENT_FIELDS = ("id", "zone", "minute", "at", "what")
CLOCK_MINUTE = re.compile(r"-?[0-9]{1,5}(\.[0-9]{1,3})?")  # a clock minute as typed: "93", "-30.5"


def check_logs_incidents(user: User) -> None:
    """Stewards, officers and admins log incidents; anyone else is refused (403) before
    what they sent is looked at."""
    if access.profile(user).role not in ("steward", "officer", "admin"):
        raise ServiceError(ErrorCode.FORBIDDEN, "stewards, officers and admins log incidents")


def do_log_incident(user: User, match_key: str, body: dict[str, Any]) -> str:
    """Stewards, officers and admins log what happened; the core checks it. Locks the match.
    `minute` is the clock (a number), or stoppage time as the referee's board shows it
    ("45+2", a string), turned into the clock with the match's phases (typed_minute)."""
    check_text(body)
    with transaction.atomic():
        match = lock_match(access.check_match(user, match_key))
        check_logs_incidents(user)
        if isinstance(body.get("minute"), str):
            body = {**body, "minute": typed_minute(match, body["minute"])}
        _check_minute(body.get("minute"))
        taken = set(match.incidents.values_list("key", flat=True))
        # Past every "incident-n" the match has had: a deleted one's id is not made again.
        made_up = _free_id("incident-", taken, match.incident_serial + 1)
        incident_id = check_id(str(body.get("id") or made_up))
        if incident_id in taken:
            raise ServiceError(
                ErrorCode.DUPLICATE, f'incident "{incident_id}" exists already', "id"
            )
        entry = {k: body[k] for k in INCIDENT_FIELDS if body.get(k) is not None}
        entry |= {"id": incident_id, "match": match.key}
        document = _frame(match)  # as _check_with_core says
        scenario = _check_entry(document, "incidents", entry)
        _check_instant(entry.get("at"))
        _check_in_a_phase(scenario, entry)
        store.add_incident(match, entry)
        audit(user, "incident", match, incident_id, None, entry)
        logged = next(i for i in scenario.incidents_of(match.key) if i.id == incident_id)
        notices.incident_logged(match, logged)
        return incident_id


DAY = 1440  # minutes: an incident typed on the desk is logged within a day of kick-off


def _check_minute(minute: Any) -> None:
    """A match's minute is within a day of kick-off (1e308 is a slip, not a minute)."""
    if isinstance(minute, int | float) and not -DAY <= minute <= DAY:
        raise ServiceError(
            ErrorCode.INVALID,
            f"the minute must be within a day of kick-off, {-DAY} to {DAY}",
            "minute",
        )


def do_log_typed_incident(
    user: User, match_key: str, zone: str, minute: str, what: str = ""
) -> str:
    """An incident as the board's form has it: the minute as a steward types it (the
    clock, or stoppage time "45+2"). Locks the match (do_log_incident)."""
    clock = typed_minute(access.check_match(user, match_key), minute)
    body: dict[str, Any] = {"zone": zone, "minute": clock}  # bounded by do_log_incident
    if what.strip():  # optional, as in a scenario and the API
        body["what"] = what
    return do_log_incident(user, match_key, body)


def typed_minute(match: m.Match, text: str) -> float:
    """A minute as a steward types it: the clock ("93", minutes after kick-off as the
    phases run) or a football minute ("87'", or stoppage time "45+2", "90+3"), turned into
    the clock by the core with the match's phases."""
    try:
        football = clock_minute(text, plan_of(match))
    except NotAMinute as error:
        raise ServiceError(ErrorCode.INVALID, str(error), "minute") from None
    if football is not None:
        return football
    # ASCII digits only, as every form's numbers: float() would take "٣٣", "1_0", "1e1"
    # and "nan", which the API refuses.
    if CLOCK_MINUTE.fullmatch(text.strip()):
        return float(text.strip())
    raise ServiceError(
        ErrorCode.INVALID,
        "the minute must be a number (minutes after kick-off, such as 93) or a football"
        """ minute ("87'", or stoppage time "45+2", "90+3")""",
        "minute",
    )


def football_of(match: m.Match, clock: float) -> str | None:
    """The football minute shown beside a clock minute ("45+2"), None outside the halves."""
    return football_minute(clock, plan_of(match))


def _check_in_a_phase(scenario: Scenario, entry: dict[str, Any]) -> None:
    """An incident logged on the desk happens in a phase of the match: one outside every
    phase (minute 900, say) would be kept as caught by nobody, silently. (A scenario file
    may still hold such incidents: docs/contract.md gives them no phase.)"""
    incident = next(i for i in scenario.incidents if i.id == entry["id"])
    if phase_at(incident.minute, scenario.phases) is None:
        plan = ", ".join(f"{p.id} {p.start:g} to {p.end:g}" for p in scenario.phases)
        raise ServiceError(
            ErrorCode.INVALID,
            f"minute {incident.minute:g} after kick-off is outside every phase of the match"
            f" ({plan}): nothing logged",
            "at" if entry.get("at") else "minute",
        )


def _check_instant(at: Any) -> None:
    """A time the database can keep: in UTC within years 1 to 9999 (Python's calendar)."""
    if not store.storable(at):
        raise ServiceError(ErrorCode.INVALID, "at is outside the calendar", "at")


def export_for(user: User, match_key: str) -> dict[str, Any]:
    """The match as a scenario, for those who manage it. Under season rules the engine's
    view also holds the competition's other matches (other clubs' matches, every
    organisation's requests): a league admin gets it whole; a club's officer gets its own
    match only, without the rules and the other matches (what the season has used
    elsewhere is not the club's to read): it decides as the match alone would."""
    match = check_manages(user, match_key)
    whole = access.profile(user).role == "admin"
    return store.export(match.key, season=whole)
