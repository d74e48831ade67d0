"""The forms of the pages that change a match. Each calls one service, the same as the
API; on success it says what happened and goes back to the board (POST, redirect, GET);
on failure it shows the board or the form again with the error and what was typed.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone

from pitchpass.core.codes import Status
from pitchpass.core.policy import occupant_club
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.http.pages import check, context, render_board, room_hint, user_of
from pitchpass.web.persistence import models as m
from pitchpass.web.services import access, board, decisions, entries


def _on_board(request: HttpRequest, match_key: str, act: Callable[[], str]) -> HttpResponse:
    try:
        done = act()
    except ServiceError as error:  # the board with the error and what was typed, at its URL
        return render_board(request, match_key, error, request.POST.dict(), at_board=True)
    messages.success(request, done)
    return redirect("pitchpass:board", match_key=match_key)


def post_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """An action answers a POST; opened any other way (a bookmark, the address bar after
    an error) it is the match's board, never a 405."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, match_key: str, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method != "POST":
            return redirect("pitchpass:board", match_key=match_key)
        return view(request, match_key, *args, **kwargs)

    return wrapped


@login_required
@post_only
def decide(request: HttpRequest, match_key: str) -> HttpResponse:
    def act() -> str:
        match = check(user_of(request), match_key)
        in_effect = (
            decisions.overrides_in_effect(match) if access.manages(user_of(request), match) else []
        )
        output = decisions.do_decide(user_of(request), match_key)
        refused = sum(d["status"] == Status.REFUSED for d in output["decisions"])
        done = f"Decided: {len(output['decisions']) - refused} granted, {refused} refused."
        dropped = [f"{o['request']} ({o['status']})" for o in in_effect]
        if dropped:  # a decide is the policy's alone (as the CLI decides the export)
            done += f" Decisions by hand dropped: {', '.join(dropped)}; override again to keep one."
        return done

    return _on_board(request, match_key, act)


@login_required
@post_only
def publish(request: HttpRequest, match_key: str) -> HttpResponse:
    def act() -> str:
        newly = decisions.do_publish(user_of(request), match_key)
        return f"Published: {len(newly)} grants locked."

    return _on_board(request, match_key, act)


@login_required
@post_only
def override(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    def act() -> str:
        status, reason = request.POST.get("status", ""), request.POST.get("reason", "")
        user = user_of(request)
        before = _statuses(user, match_key)
        output = decisions.do_override(user, match_key, request_id, status, reason)
        bumped = [
            f"{d['request']} now {d['status']}"
            for d in output["decisions"]
            if d["request"] != request_id and d["status"] != before.get(d["request"])
        ]
        also = f" Also changed: {', '.join(bumped)}." if bumped else ""
        return f"{request_id} {status} by hand.{also}"

    return _on_board(request, match_key, act)


def _statuses(user: User, match_key: str) -> dict[str, str]:
    try:
        current = decisions.current_decisions(user, match_key)["decisions"]
    except ServiceError:
        return {}  # not decided yet: the service says so when it is asked to act
    return {d["request"]: d["status"] for d in current}


@login_required
@post_only
def revoke(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    def act() -> str:
        decisions.do_revoke(user_of(request), match_key, request_id, request.POST.get("reason", ""))
        return f"{request_id} revoked: decide again to hand its places on."

    return _on_board(request, match_key, act)


@login_required
@post_only
def consent(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    def act() -> str:
        given = request.POST.get("given") == "yes"
        entries.do_consent(user_of(request), match_key, request_id, given)
        done = (
            f"Consent for {request_id} given."
            if given
            else f"Consent for {request_id} refused (taken back): the request is not refused"
            " by that alone; without consent the next decide refuses it."
        )
        published = m.Request.objects.filter(match__key=match_key, key=request_id, locked=True)
        if not given and published.exists():
            done += " It is a published grant: it stands until the home club's officer revokes it."
        return done

    return _on_board(request, match_key, act)


@login_required
@post_only
def withdraw(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    def act() -> str:
        entries.do_withdraw_request(user_of(request), match_key, request_id, timezone.now())
        return f"{request_id} withdrawn."

    return _on_board(request, match_key, act)


@login_required
@post_only
def log_incident(request: HttpRequest, match_key: str) -> HttpResponse:
    if sent_before(request):  # a double click, or back and send again
        return _twin(request, match_key, "incident")

    def act() -> str:
        posted = request.POST
        _chosen(posted, "zone", "choose the zone where it happened")
        match = check(user_of(request), match_key)
        minute = entries.typed_minute(match, posted.get("minute", ""))
        if not -DAY <= minute <= DAY:  # a slip of the keyboard (1e9), not a match's minute
            raise ServiceError(
                ErrorCode.INVALID,
                f"the minute must be within a day of kick-off, {-DAY} to {DAY}",
                "minute",
            )
        body: dict[str, Any] = {"zone": posted.get("zone"), "minute": minute}
        if posted.get("what", "").strip():  # optional, as in a scenario and the API
            body["what"] = posted["what"]
        with transaction.atomic():
            incident_id = entries.do_log_incident(user_of(request), match_key, body)
            remember(request, incident_id)
        return f"Incident {incident_id} logged."

    try:
        return _on_board(request, match_key, act)
    except IntegrityError:  # its twin, sent at the same moment, logged it
        return _twin(request, match_key, "incident")


DAY = 1440  # minutes: an incident on the board's form is logged within a day of kick-off


def _fingerprint(posted: Any) -> str:
    """What a form holds, to tell the same form sent again from one changed (back, a
    different zone, submit: a new request, as the user means it)."""
    fields = sorted((k, sorted(v)) for k, v in posted.lists() if k not in SKIPPED)
    return hashlib.sha256(repr(fields).encode()).hexdigest()


SKIPPED = ("csrfmiddlewaretoken", "once")


ONCE = re.compile(r"[A-Za-z0-9_-]{1,40}")  # as secrets.token_urlsafe makes them


def _once(request: HttpRequest) -> str:
    """The form's mark, if it is one the page made (anything else: no mark)."""
    once = request.POST.get("once", "")
    return once if ONCE.fullmatch(once) else ""


def sent_before(request: HttpRequest) -> str | None:
    """The id made when this very form (its `once`) was sent with the same data."""
    once = _once(request)
    if not once:
        return None
    found = m.SentForm.objects.filter(
        once=once, fingerprint=_fingerprint(request.POST), user=user_of(request)
    )
    return found.values_list("made", flat=True).first()


def remember(request: HttpRequest, made: str) -> None:
    """Inside the transaction that made `made`: a twin sent at the same moment fails on
    the unique constraint (IntegrityError) and its transaction rolls back."""
    once = _once(request)
    if once:
        m.SentForm.objects.filter(when__lt=timezone.now() - timedelta(days=1)).delete()
        m.SentForm.objects.create(
            once=once, fingerprint=_fingerprint(request.POST), user=user_of(request), made=made
        )


def _twin(request: HttpRequest, match_key: str, kind: str) -> HttpResponse:
    made = sent_before(request) or "(being made)"
    messages.info(request, f"This form was already sent: {kind} {made}.")
    return redirect("pitchpass:board", match_key=match_key)


@login_required
def new_request(request: HttpRequest, match_key: str) -> HttpResponse:
    """The request form of a broadcaster or producer (an admin names the requester)."""
    user = user_of(request)
    match = check(user, match_key)
    _check_requester(user)
    once = _once(request) or secrets.token_urlsafe(12)
    if request.method == "POST" and sent_before(request):  # sent again as it was
        return _twin(request, match_key, "request")
    closes = entries.closes_at(match)
    values = context(
        request,
        match=match,
        zones=list(match.venue.zones.all()),
        needs_consent=_needs_consent(user, match),
        phases=list(match.competition.phases.values_list("key", flat=True)),
        typed=request.POST.dict() if request.method == "POST" else {"crew": "1", "cameras": "1"},
        ticked=set(request.POST.getlist("phases")),
        once=once,
        closes=closes,
        # Opened after the deadline: say so rather than offer a form that cannot succeed.
        closed=request.method == "GET" and closes is not None and timezone.now() > closes,
    )
    status = 200
    if request.method == "POST":
        try:
            with transaction.atomic():
                request_id = entries.do_submit_request(
                    user, match_key, _request_body(request.POST), timezone.now()
                )
                remember(request, request_id)
        except ServiceError as error:
            if error.code == ErrorCode.DUPLICATE and sent_before(request):
                return _twin(request, match_key, "request")  # its twin took the reference
            values["error"], status = error, error.status
        except IntegrityError:  # its twin, sent at the same moment, made it
            return _twin(request, match_key, "request")
        else:
            messages.success(request, f"Request {request_id} submitted.")
            return redirect("pitchpass:board", match_key=match_key)
        _hint(values, user, match, values["typed"])
    return render(request, "pitchpass/request_form.html", values, status=status)


@login_required
def change_request(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    """The request form again, filled in with the request as it is; saving counts as
    submitting it now (entries.do_change_request)."""
    user = user_of(request)
    match = check(user, match_key)
    _check_requester(user)
    row = access.seen_requests(user, match).filter(key=request_id).first()
    if row is None:
        raise Http404(f'no request "{request_id}"')
    if row.locked or row.revoked:  # the form could only fail: say so now
        done = f"it was revoked ({row.revoked})" if row.revoked else "it is a published grant"
        raise ServiceError(
            ErrorCode.PUBLISHED if row.locked else ErrorCode.CONFLICT,
            f"{request_id} cannot be changed: {done}; the home club's officer decides on it",
        )
    if request.method == "POST":
        typed, ticked = request.POST.dict(), set(request.POST.getlist("phases"))
    else:
        typed = {"zone": row.zone.key, "crew": str(row.crew), "cameras": str(row.cameras)}
        ticked = set(row.phases)
    closes = entries.closes_at(match)
    late = closes is not None and timezone.now() > closes
    values = context(
        request,
        match=match,
        changing=row,
        zones=list(match.venue.zones.all()),
        needs_consent=_needs_consent(user, match),
        phases=list(match.competition.phases.values_list("key", flat=True)),
        typed=typed,
        ticked=ticked,
        closes=closes,
        # Admins change requests after the deadline too (entries.do_change_request).
        closed=request.method == "GET" and late and access.profile(user).role != "admin",
    )
    status = 200
    if request.method == "POST":
        try:
            body = {k: v for k, v in _request_body(request.POST).items() if k not in ("id", "by")}
            was = row.submitted
            entries.do_change_request(user, match_key, request_id, body, timezone.now())
        except ServiceError as error:
            values["error"], status = error, error.status
        else:
            row.refresh_from_db()
            if row.submitted == was:
                messages.info(request, f"Nothing changed: {request_id} keeps its place.")
            else:
                messages.success(request, f"Request {request_id} changed: it counts as sent now.")
            return redirect("pitchpass:board", match_key=match_key)
    _hint(values, user, match, typed)
    return render(request, "pitchpass/request_form.html", values, status=status)


def _needs_consent(user: User, match: m.Match) -> list[tuple[str, str]]:
    """(zone, club name) for each zone that is a club's own room (policy.occupant_club),
    but the user's own club's: a request there needs that club's consent."""
    mine = access.profile(user).organisation
    clubs = {match.home.key: match.home.name, match.away.key: match.away.name}
    out = []
    for zone in match.venue.zones.all():
        club = occupant_club(zone.occupant or None, match.home.key, match.away.key)
        if club is not None and (mine is None or mine.key != club):
            out.append((zone.key, clubs[club]))
    return out


def _check_requester(user: User) -> None:
    """The request forms are for broadcasters and producers (and admins)."""
    if access.profile(user).role not in ("media", "admin"):
        raise ServiceError(ErrorCode.FORBIDDEN, "requests are made by broadcasters and producers")


def _hint(values: dict[str, Any], user: User, match: m.Match, typed: dict[str, str]) -> None:
    """The room-left hint for what the form holds now (pages.room_hint)."""
    form = QueryDict(mutable=True)
    form.update({k: v for k, v in typed.items() if k != "phases"})
    form.setlist("phases", sorted(values["ticked"]))
    if values.get("changing"):
        form["changing"] = values["changing"].key
    values |= room_hint(user, match, form)


def _chosen(posted: Any, field: str, ask: str) -> None:
    """A field the form offers a choice for, left empty: say what to do, not what the
    scenario reader would say of an empty text."""
    if not "".join(posted.getlist(field)).strip():
        raise ServiceError(ErrorCode.INVALID, ask, field)


def _request_body(posted: Any) -> dict[str, Any]:
    _chosen(posted, "zone", "choose a zone")
    _chosen(posted, "phases", "tick at least one phase")
    crew = _whole(posted, "crew")
    cameras = _whole(posted, "cameras", 0)
    body: dict[str, Any] = {
        "zone": posted.get("zone", ""),
        "phases": posted.getlist("phases"),
        "crew": crew,
        "cameras": cameras,
    }
    for optional in ("id", "by"):
        if posted.get(optional, "").strip():
            body[optional] = posted[optional].strip()
    return body


def _whole(posted: Any, field: str, default: int | None = None) -> int | None:
    try:
        return board.form_int(posted, field, default)
    except ValueError as error:
        raise ServiceError(ErrorCode.INVALID, str(error), field) from None
