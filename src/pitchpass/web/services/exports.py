"""Calendars and exports (issue 11, section 5): an organisation's published grants as a
calendar feed behind a secret address (one for the organisation, one per user; each made
anew on demand, the old address then answering 404), and a match's decisions as CSV.
These present what other services decide and let see; they decide nothing themselves.
The stewards' access list as a PDF is a sheet (services/sheets.py)."""

from __future__ import annotations

import csv
import hashlib
import io
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Q
from icalendar import Calendar, Event
from icalendar.enums import STATUS

from pitchpass.core.model import Phase
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import audit
from pitchpass.web.services import access, views

ORGANISATION, MINE = "organisation", "mine"  # the two feeds a media user has
SECRET_BYTES = 32  # token_urlsafe(32): 43 characters
SECRET = re.compile(r"[A-Za-z0-9_-]{43}")  # anything else is no feed: not even looked up
FEED_ROLES = ("media",)


def _digest(secret: str) -> str:
    return hashlib.sha256(f"pitchpass-feed:{secret}".encode()).hexdigest()


def _no_feed() -> ServiceError:
    # One answer for a secret malformed, unknown, rotated or of a user gone: it tells
    # nothing of which, nor whose.
    return ServiceError(ErrorCode.NOT_FOUND, "no such calendar feed (it may have been made anew)")


@dataclass(frozen=True)
class Feed:
    """One of a user's feeds as its page shows it: when its address was made (None:
    never). The address itself is shown once, as it is made: only its digest is kept."""

    which: str  # ORGANISATION | MINE
    title: str
    made: datetime | None


def _check_feed_user(user: User) -> m.Profile:
    who = access.profile(user)
    if who.role not in FEED_ROLES or who.organisation is None:
        raise ServiceError(
            ErrorCode.FORBIDDEN, "calendar feeds are for the users of a broadcaster or producer"
        )
    return who


def feeds_of(user: User) -> list[Feed]:
    """The user's organisation's feed and the user's own, with when each was made."""
    who = _check_feed_user(user)
    org = who.organisation
    assert org is not None  # _check_feed_user
    rows = m.CalendarFeed.objects.filter(Q(organisation=org) | Q(user=user))
    made = {(ORGANISATION if row.organisation_id else MINE): row.made for row in rows}
    return [
        Feed(ORGANISATION, f"{org.name}'s grants (shared by its users)", made.get(ORGANISATION)),
        Feed(MINE, "Your own address for them", made.get(MINE)),
    ]


def do_rotate_feed(user: User, which: str, now: datetime) -> str:
    """Make a new secret address for a feed (the first one, or in place of the old one,
    which then answers 404): the new secret, shown this once. Audited, without secrets."""
    org = _check_feed_user(user).organisation
    assert org is not None  # _check_feed_user
    if which not in (ORGANISATION, MINE):
        raise ServiceError(ErrorCode.INVALID, f'a feed is "{ORGANISATION}" or "{MINE}"', "feed")
    owner: dict[str, Any] = {"organisation": org} if which == ORGANISATION else {"user": user}
    secret = secrets.token_urlsafe(SECRET_BYTES)
    with transaction.atomic():
        before = m.CalendarFeed.objects.filter(**owner).values_list("made", flat=True).first()
        if not m.CalendarFeed.objects.filter(**owner).update(digest=_digest(secret), made=now):
            try:
                with transaction.atomic():
                    m.CalendarFeed.objects.create(**owner, digest=_digest(secret), made=now)
            except IntegrityError:  # made by another request at the same moment: replaced
                m.CalendarFeed.objects.filter(**owner).update(digest=_digest(secret), made=now)
        target = f"{which} {org.key if which == ORGANISATION else user.username}"
        audit(
            user,
            "feed-rotate",
            None,
            target,
            {"made": before.isoformat()} if before else None,
            {"made": now.isoformat()},
        )
    return secret


def feed_calendar(secret: str, now: datetime) -> bytes:
    """The calendar (RFC 5545) a secret opens: its organisation's published grants, or
    its user's organisation's while that user is active and a media user. Each grant is
    one event per phase (its phases need not follow each other: pre-match and post-match
    are two visits), CONFIRMED; a grant revoked since is CANCELLED under the same UID, so
    that calendars take it off. Any secret that opens nothing is the same 404."""
    if not SECRET.fullmatch(secret):
        raise _no_feed()
    row = (
        m.CalendarFeed.objects.select_related("organisation", "user__profile__organisation")
        .filter(digest=_digest(secret))
        .first()
    )
    if row is None:
        raise _no_feed()
    organisation = row.organisation
    if organisation is None:  # a user's own: as long as the user may have one
        user = row.user
        assert user is not None  # the row's constraint: one owner
        if not user.is_active:
            raise _no_feed()
        try:
            organisation = _check_feed_user(user).organisation
        except ServiceError:
            raise _no_feed() from None
    assert organisation is not None
    calendar: bytes = _calendar(organisation, now).to_ical()
    return calendar


def _calendar(organisation: m.Organisation, now: datetime) -> Calendar:
    plans: dict[int, tuple[Phase, ...]] = {}
    events = []
    for r in access.published_for(organisation).order_by("match__kickoff", "match", "position"):
        match = r.match
        if match.competition_id not in plans:
            plans[match.competition_id] = store.read_plan(match)
        events += _events(r, plans[match.competition_id], now)
    return Calendar.new(
        prodid="-//pitchpass//grants feed//EN",
        name=f"pitchpass: {organisation.name}",
        description=f"Where and when {organisation.name} may film (published grants)",
        subcomponents=events,
        uid=f"pitchpass-feed-{organisation.key}",
    )


def _events(r: m.Request, plan: tuple[Phase, ...], now: datetime) -> list[Event]:
    match = r.match
    title = f"{match.home.name} v {match.away.name}"
    times = {p.id: p for p in plan}
    via = [z for z in r.zone.via if z != r.zone.key]
    about = [
        f"Request {r.key} of {r.by.name}: a crew of {r.crew} in {r.zone.name}",
        f"(through {', '.join(via)})" if via else "",
        f"Taken back: {r.revoked}" if r.revoked else "Its passes:",
        "" if r.revoked else f"{settings.PITCHPASS_BASE_URL}/matches/{quote(match.key)}/passes/",
    ]
    out = []
    offered = store.offered_phases(r)  # from the waitlist: the phases still to come then
    for phase in r.phases:
        if phase not in times or (offered and phase not in offered):  # removed, not offered
            continue
        gone = bool(r.revoked) or phase in (r.released or ())  # released as a no-show
        kickoff = match.kickoff
        out.append(
            Event.new(
                uid=f"{match.key}/{r.key}/{phase}@pitchpass",
                start=kickoff + timedelta(minutes=times[phase].start),
                end=kickoff + timedelta(minutes=times[phase].end),
                summary=f"{title}: {r.zone.name}, {phase}",
                location=match.venue.name,
                description="\n".join(line for line in about if line),
                status=STATUS.CANCELLED if gone else STATUS.CONFIRMED,
                sequence=1 if gone else 0,  # a cancellation comes after the grant
                stamp=now,
            )
        )
    return out


COLUMNS = (
    "request",
    "organisation",
    "zone",
    "phases",
    "crew",
    "cameras",
    "status",
    "published",
    "tier",
    "reasons",
    "granted by hand",
    "state",  # after publish, the match day's record: granted, released, revoked, ...
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A cell as text a spreadsheet never runs: one starting with = + - @, a tab or a
    carriage return gets a leading apostrophe (OWASP's CSV injection advice)."""
    text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def decisions_csv(user: User, match_key: str, now: datetime) -> str:
    """The board's requests with their decisions as CSV, the rows this user sees there
    and no other (views.board_of: media their own; a club's officer also those in its
    room; the home officer and admins all). Stewards see no requests: refused."""
    access.visible_requests(user, access.check_match(user, match_key))  # 404 or 403 first
    found = views.board_of(user, match_key, {}, now)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for row in found.rows:
        writer.writerow(
            [
                csv_cell(x)
                for x in (
                    row.key,
                    row.org,
                    row.zone,
                    " ".join(row.phases),
                    row.crew,
                    row.cameras,
                    row.status.value,
                    "yes" if row.locked else "no",
                    row.tier,
                    "; ".join(reason.text for reason in row.reasons),
                    row.by_hand or "",
                    row.state,
                )
            ]
        )
    return out.getvalue()
