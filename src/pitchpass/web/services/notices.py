"""Notices: what each change tells the organisations concerned (the core says which
requests and of what kind, core/match_day/notices.py), written in the change's own transaction, so
that a notice exists exactly when its change was saved. The notices of one change are a
batch; the batch's e-mails (one per user) and its webhook messages (one per notice and
endpoint) are tasks queued in that same transaction (services/sending.py), run by
`pitchpass worker`. A notice names only its organisation's own requests.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from pitchpass.core.codes import Status
from pitchpass.core.match_day import notices as core
from pitchpass.core.model import Incident, Request
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.services import access, times
from pitchpass.web.services.snapshot import plan_of, requests_of

_HEADS = {
    core.DECIDED: "proposed",
    core.BUMPED: "bumped: proposed refused after being proposed granted",
    core.GRANTED: "granted (published)",
    core.REFUSED: "refused (published)",
    core.REVOKED: "revoked",
    core.PROMOTED: "offered a place from the waitlist",
    core.RELEASE_WARNING: "to be released unless its crew checks in",
    core.RELEASED: "released",
}


@dataclass
class Batch:
    """The notices of one change, written and sent together (`close`)."""

    match: m.Match
    when: datetime = field(default_factory=timezone.now)
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    rows: list[m.Notice] = field(default_factory=list)

    def add(
        self, kind: str, organisation_id: int, request: str, text: str, data: dict[str, Any]
    ) -> None:
        data = {"kind": kind, "match": self.match.key, "request": request or None, **data}
        self.rows.append(
            m.Notice(
                batch=self.id,
                kind=kind,
                organisation_id=organisation_id,
                match=self.match,
                request=request,
                when=self.when,
                text=text,
                data=data,
            )
        )

    def close(self) -> None:
        """Write the notices and queue their sending, in the caller's transaction."""
        if not self.rows:
            return
        from pitchpass.web.services import sending  # its tasks import this module's models

        assert transaction.get_connection().in_atomic_block, "a batch closes inside its change"
        m.Notice.objects.bulk_create(self.rows)
        sending.queue(self.id, [n.organisation_id for n in self.rows])


def _outcome(decision: Mapping[str, Any]) -> core.Outcome:
    return core.Outcome(
        str(decision["status"]), tuple(str(r.get("text", "")) for r in decision["reasons"])
    )


def _about(row: m.Request) -> dict[str, Any]:
    return {"zone": row.zone.key, "phases": list(row.phases), "crew": row.crew}


def _line(row: m.Request, head: str, outcome: core.Outcome | None = None) -> str:
    where = f"{row.key} ({row.zone.name}: {', '.join(row.phases)}; crew {row.crew})"
    said = f"{where}: {head}"
    if outcome is not None and head == "proposed":
        said += f" {outcome.status}"
    if outcome is not None and outcome.reasons:
        said += ": " + "; ".join(outcome.reasons)
    return said


def after_run(
    match: m.Match,
    before: m.DecisionRun | None,
    output: Mapping[str, Any],
    rows: Mapping[str, m.Request],
    offered: Iterable[str] = (),
) -> None:
    """Tell each organisation how the new proposal (a decide or an override) decides its
    requests, where that differs from the proposal before; not of a request offered a
    place and not answered yet (the proposal holds it: the offer says what it is)."""
    old: dict[str, core.Outcome] = {}
    if before is not None:  # a request changed since that run was not decided by it
        current = {k for k, r in rows.items() if r.changed_in <= before.version}
        old = {d["request"]: _outcome(d) for d in before.output["decisions"]}
        old = {k: o for k, o in old.items() if k in current}
    new = {d["request"]: _outcome(d) for d in output["decisions"]}
    batch = Batch(match)
    held = set(offered)
    for key, kind in core.after_proposal(old, new).items():
        if key in held:
            continue
        row, outcome = rows[key], new[key]
        head = _HEADS[kind]
        data = {**_about(row), "status": outcome.status, "reasons": list(outcome.reasons)}
        batch.add(kind, row.by_id, key, _line(row, head, outcome), data)
    batch.close()


def untold_refusals(match: m.Match, run: m.DecisionRun) -> list[str]:
    """The refusals of the run that a publish would tell their organisations of now: not
    told of as they stand (core.after_publish). A publish is worth offering for these
    even where it locks no grant."""
    _, decided, told = _as_published(match, run)
    return list(core.after_publish(decided, (), told))


def _as_published(
    match: m.Match, run: m.DecisionRun
) -> tuple[dict[str, m.Request], dict[str, core.Outcome], dict[str, core.Outcome | None]]:
    """The match's requests (not revoked), the run's decision of those it decided as they
    are now, and what each request's organisation was last told when published."""
    rows = {r.key: r for r in match.requests.select_related("zone") if not r.revoked}
    current = {k for k, r in rows.items() if r.changed_in <= run.version}
    decided = {
        d["request"]: _outcome(d) for d in run.output["decisions"] if d["request"] in current
    }
    return rows, decided, {k: _told(r.told) for k, r in rows.items()}


def after_publish(match: m.Match, run: m.DecisionRun, newly: Iterable[str]) -> None:
    """Tell each organisation of its grants published now and of the refusals published
    that it was not told of as they stand; remember what each was told."""
    rows, decided, told = _as_published(match, run)
    batch = Batch(match)
    for key, kind in core.after_publish(decided, newly, told).items():
        row, outcome = rows[key], decided[key]
        data = {**_about(row), "status": outcome.status, "reasons": list(outcome.reasons)}
        batch.add(kind, row.by_id, key, _line(row, _HEADS[kind], outcome), data)
        row.told = {"status": outcome.status, "reasons": list(outcome.reasons)}
    m.Request.objects.bulk_update([rows[n.request] for n in batch.rows], ["told"])
    batch.close()


def _told(stored: Any) -> core.Outcome | None:
    if not stored:
        return None
    return core.Outcome(str(stored["status"]), tuple(stored.get("reasons", ())))


def after_revoke(match: m.Match, row: m.Request, reason: str) -> None:
    batch = Batch(match)
    outcome = core.Outcome(Status.REFUSED, (reason,))
    data = {**_about(row), "status": "revoked", "reasons": [reason]}
    batch.add(core.REVOKED, row.by_id, row.key, _line(row, "revoked", outcome), data)
    row.told = {"status": "revoked", "reasons": [reason]}
    m.Request.objects.filter(pk=row.pk).update(told=row.told)
    batch.close()


def promoted(
    match: m.Match, row: m.Request, until: str, until_at: datetime, phases: list[str]
) -> None:
    """Tell an organisation that a place freed up for its request in `phases` (those still
    to come): it has until `until` (as the match's clock says it; `until_at`, the moment,
    for webhooks in ISO 8601)."""
    batch = Batch(match)
    text = _line(row, _HEADS[core.PROMOTED])
    if list(phases) != list(row.phases):
        text += f" for {', '.join(phases)} only (the rest is over)"
    text += f": accept by {until}, or it goes to the next"
    data = {**_about(row), "phases": list(phases), "status": "offered", "until": until,
            "until_at": until_at.isoformat()}  # fmt: skip
    batch.add(core.PROMOTED, row.by_id, row.key, text, data)
    batch.close()


def release_warning(match: m.Match, row: m.Request, phase: str, clock: str, when: datetime) -> None:
    """Warn an organisation that its place in `phase` goes at `clock` unless one of its
    crew checks in at a door first (`when`: that moment, for webhooks)."""
    batch = Batch(match)
    text = (
        _line(row, _HEADS[core.RELEASE_WARNING])
        + f": its {phase} place is released at {clock} unless one of its crew checks in"
        " at a door before"
    )
    data = {**_about(row), "status": "granted", "phase": phase, "at": when.isoformat(),
            "at_text": clock}  # fmt: skip
    batch.add(core.RELEASE_WARNING, row.by_id, row.key, text, data)
    batch.close()


def given_back(match: m.Match, row: m.Request, said: str) -> None:
    """Tell an organisation that places released as a no-show are its own again (a door
    that was offline let one of its crew in before the release): a grant, published."""
    batch = Batch(match)
    text = _line(row, "granted again") + f": {said}"
    data = {**_about(row), "status": "granted", "reasons": [said]}
    batch.add(core.GRANTED, row.by_id, row.key, text, data)
    row.told = {"status": "granted", "reasons": []}
    m.Request.objects.filter(pk=row.pk).update(told=row.told)
    batch.close()


def release_contested(match: m.Match, row: m.Request, said: str) -> None:
    """Tell an organisation that a door which was offline let one of its crew in before a
    release of its place, which had gone by the time the scan was sent: the release
    stands, counted as no no-show (`said`: why, and where the place is held now)."""
    batch = Batch(match)
    text = _line(row, _HEADS[core.RELEASED]) + f": {said}"
    status = "granted" if row.locked else "revoked"
    data = {**_about(row), "status": status, "reasons": [said]}
    batch.add(core.RELEASED, row.by_id, row.key, text, data)
    batch.close()


def released(match: m.Match, row: m.Request, phase: str, reason: str) -> None:
    """Tell an organisation that one phase's place of its grant was released (it keeps
    the others)."""
    batch = Batch(match)
    text = _line(row, _HEADS[core.RELEASED]) + f": its {phase} place ({reason})"
    data = {**_about(row), "status": "granted", "phase": phase, "reasons": [reason]}
    batch.add(core.RELEASED, row.by_id, row.key, text, data)
    batch.close()


def consent_asked(match: m.Match, row: m.Request, club: m.Organisation) -> None:
    """Tell the club whose own room a new request is for that its consent is asked. The
    club learns the request (it is theirs to consent to, as the board shows them)."""
    batch = Batch(match)
    text = (
        f"{row.key} by {row.by.name} asks for {row.zone.name} ({', '.join(row.phases)}; crew "
        f"{row.crew}): your consent is needed"
    )
    data = {**_about(row), "by": row.by.key}
    batch.add(core.CONSENT_ASKED, club.pk, row.key, text, data)
    batch.close()


def incident_logged(match: m.Match, incident: Incident) -> None:
    """Tell the organisations holding a published place where and when it happened."""
    # From the rows (not the match as the core reads it, which one broken row stops).
    published = [
        Request(r.key, match.key, r.by.key, r.zone.key, tuple(r.phases), r.crew, r.submitted)
        for r in requests_of(match)
        if r.locked
    ]
    holders = core.holders(incident, plan_of(match), published)
    if not holders:
        return
    ids = dict(m.Organisation.objects.filter(key__in=holders).values_list("key", "pk"))
    zone = match.venue.zones.get(key=incident.zone)
    batch = Batch(match)
    what = f": {incident.what}" if incident.what else ""
    text = f"incident {incident.id} in {zone.name} at minute {incident.minute:g}{what}"
    data = {"incident": incident.id, "zone": incident.zone, "minute": incident.minute}
    for org in holders:
        batch.add(core.INCIDENT, ids[org], "", text, {**data, "what": incident.what})
    batch.close()


# Reading them: the user's own organisation's notices (admins: all).


@dataclass(frozen=True)
class NoticeLine:
    id: int
    kind: str
    match: str
    match_name: str
    request: str
    text: str
    when: datetime
    new: bool


def notices_for(user: User, limit: int = 200, kind: str | None = None) -> list[NoticeLine]:
    """The newest notices the user may read (of one kind, if given), those since their
    last visit marked new."""
    who = access.profile(user)
    rows = m.Notice.objects.select_related("match__home", "match__away").order_by("-when", "-id")
    if kind is not None:
        if kind not in core.KINDS:
            raise ServiceError(ErrorCode.INVALID, f"unknown kind of notice: {kind}", "kind")
        rows = rows.filter(kind=kind)
    if who.role != "admin":
        if who.organisation_id is None:
            return []
        rows = rows.filter(organisation_id=who.organisation_id)
    seen = who.notices_seen
    return [
        NoticeLine(
            n.pk,
            n.kind,
            n.match.key,
            f"{n.match.home.name} v {n.match.away.name}, "
            + times.text(n.match, n.match.kickoff, times.DAY),
            n.request,
            n.text,
            times.local(n.match, n.when),  # shown in the venue's time zone
            seen is None or n.when > seen,
        )
        for n in rows[:limit]
    ]


def notices_json(user: User, kind: str | None = None) -> list[dict[str, Any]]:
    """The API's list: the notices of `notices_for`, newest first (reading them does not
    count as a visit: only the page sets the last visit)."""
    return [
        {
            "id": line.id,
            "kind": line.kind,
            "match": line.match,
            "request": line.request,
            "text": line.text,
            "when": line.when.isoformat(),
            "new": line.new,
        }
        for line in notices_for(user, kind=kind)
    ]


def unseen(user: User) -> int:
    """How many of the user's notices are newer than their last visit."""
    who = access.profile(user)
    rows = m.Notice.objects.all()
    if who.role != "admin":
        if who.organisation_id is None:
            return 0
        rows = rows.filter(organisation_id=who.organisation_id)
    if who.notices_seen is not None:
        rows = rows.filter(when__gt=who.notices_seen)
    return rows.count()


def mark_seen(user: User, upto: datetime) -> None:
    """The user's notices up to `upto` seen (never moved back: a tab left open and seen
    later does not make newer ones new again)."""
    older = Q(notices_seen__isnull=True) | Q(notices_seen__lt=upto)
    m.Profile.objects.filter(older, user=user).update(notices_seen=upto)


def choices_of(user: User) -> tuple[list[str] | None, list[str] | None]:
    """(the user's own choice, their organisation's): None where nothing was chosen."""
    who = access.profile(user)
    org = who.organisation.notices if who.organisation is not None else None
    return who.notices, org


def choose(user: User, kinds: Iterable[str] | None) -> None:
    """Set which kinds the user hears of (None: as their organisation chose)."""
    from pitchpass.web.services import sending  # it imports nothing of this module

    chosen = sending.checked_kinds(kinds, "kinds")
    m.Profile.objects.filter(user=user).update(notices=chosen)
