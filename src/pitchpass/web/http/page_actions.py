"""The forms of the pages that change a match. Each calls one service, the same as the
API; on success it says what happened and goes back to the board (POST, redirect, GET);
on failure it shows the board or the form again with the error and what was typed.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone

from pitchpass.core.codes import Status
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.http.forms import IncidentForm, OverrideForm, ReasonForm, RequestForm
from pitchpass.web.http.pages import (
    context,
    page_404,
    render_board,
    render_matches,
    room_hint,
    user_of,
)
from pitchpass.web.services import (
    decisions,
    entries,
    matchweek,
    notices,
    sent_forms,
    views,
    waitlist,
)


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
        in_effect = decisions.overrides_to_drop(user_of(request), match_key)
        output = decisions.do_decide(user_of(request), match_key)
        refused = sum(d["status"] == Status.REFUSED for d in output["decisions"])
        done = f"Decided: {len(output['decisions']) - refused} granted, {refused} refused."
        dropped = [f"{o['request']} ({o['status']})" for o in in_effect]
        if dropped:  # a decide is the policy's alone (as the CLI decides the export)
            done += f" Decisions by hand dropped: {', '.join(dropped)}; override again to keep one."
        return done

    return _on_board(request, match_key, act)


@login_required
def together(request: HttpRequest) -> HttpResponse:
    """The match list's "Decide together" and "Publish together" (a league admin's
    matchweek: services/matchweek.py); back to the list, with the error and the matches
    ticked kept on failure."""
    if request.method != "POST":
        return redirect("pitchpass:matches")
    user = user_of(request)
    ticked = [str(k)[:200] for k in request.POST.getlist("match")[: matchweek.MAX_TOGETHER + 1]]
    try:
        if request.POST.get("action") == "publish":
            published = matchweek.do_publish_together(user, ticked)
            done = "Published together: " + "; ".join(
                f"{key}, {len(newly)} grant{'s' if len(newly) != 1 else ''} locked"
                for key, newly in published.items()
            )
        elif request.POST.get("action") == "decide":
            decided = matchweek.do_decide_together(user, ticked)
            done = "Decided together (publish them together, or each from its board): " + "; ".join(
                f"{key}, {_counted(output)}" for key, output in decided.items()
            )
        else:
            raise ServiceError(ErrorCode.INVALID, "choose Decide together or Publish together")
    except ServiceError as error:
        return render_matches(request, error, ticked)
    messages.success(request, done + ".")
    if request.POST.get("action") == "decide":  # the same ticks, to publish them next
        return redirect(
            f"{reverse('pitchpass:matches')}?{urlencode([('match', k) for k in ticked])}"
        )
    return redirect("pitchpass:matches")


def _counted(output: dict[str, Any]) -> str:
    refused = sum(d["status"] == Status.REFUSED for d in output["decisions"])
    said = f"{len(output['decisions']) - refused} granted, {refused} refused"
    return said + (" (not proven the best: see its board)" if output.get("unproven") else "")


@login_required
@post_only
def publish(request: HttpRequest, match_key: str) -> HttpResponse:
    def act() -> str:
        newly = decisions.do_publish(user_of(request), match_key)
        if not newly:  # a run whose refusals were not told yet (the board said so)
            return "Published: no grant to lock; its refusals are told to their organisations."
        return f"Published: {len(newly)} grant{'' if len(newly) == 1 else 's'} locked."

    return _on_board(request, match_key, act)


@login_required
@post_only
def override(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    def act() -> str:
        data = OverrideForm(request.POST).checked()
        status, reason = data["status"], data["reason"]
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
        reason = ReasonForm(request.POST).checked()["reason"]
        decisions.do_revoke(user_of(request), match_key, request_id, reason)
        return (
            f"{request_id} revoked: its places go to the next on the waitlist that fits (an"
            " offer, made in a moment), or stay free."
        )

    return _on_board(request, match_key, act)


@login_required
@post_only
def consent(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    def act() -> str:
        given = request.POST.get("given") == "yes"
        done = entries.do_consent(user_of(request), match_key, request_id, given)
        if given:
            said = f"Consent for {request_id} given."
        else:
            said = (
                f"Consent for {request_id} {'taken back' if done.taken_back else 'refused'}: the"
                " request is not refused by that alone; without consent the next decide"
                " refuses it."
            )
        if not given and done.published:
            said += " It is a published grant: it stands until the home club's officer revokes it."
        return said

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
    if _sent_before(request):  # a double click, or back and send again
        return _twin(request, match_key, "incident")

    def act() -> str:
        entries.check_logs_incidents(user_of(request))  # 403 before the form's 400
        form = IncidentForm(request.POST, zones=_zones(request, match_key))
        data = form.checked()
        with transaction.atomic():
            incident_id = entries.do_log_typed_incident(
                user_of(request), match_key, data["zone"], data["minute"], data["what"]
            )
            _remember(request, incident_id)
        return f"Incident {incident_id} logged."

    try:
        return _on_board(request, match_key, act)
    except IntegrityError:  # its twin, sent at the same moment, logged it
        return _twin(request, match_key, "incident")


def _zones(request: HttpRequest, match_key: str) -> list[str]:
    try:
        return views.zones_of(user_of(request), match_key)
    except ServiceError as refused:
        raise page_404(refused) from None


def _sent_before(request: HttpRequest) -> str | None:
    """The id made when this very form (its `once`) was sent with the same data."""
    once = request.POST.get("once", "")
    return sent_forms.made_by(user_of(request), once, request.POST)


def _remember(request: HttpRequest, made: str) -> None:
    once = request.POST.get("once", "")
    sent_forms.remember(user_of(request), once, request.POST, made, timezone.now())


def _twin(request: HttpRequest, match_key: str, kind: str) -> HttpResponse:
    made = _sent_before(request) or "(being made)"
    messages.info(request, f"This form was already sent: {kind} {made}.")
    return redirect("pitchpass:board", match_key=match_key)


@login_required
def new_request(request: HttpRequest, match_key: str) -> HttpResponse:
    """The request form of a broadcaster or producer (an admin names the requester)."""
    user = user_of(request)
    form_data = _form_data(request, match_key)
    once = sent_forms.mark(request.POST.get("once", "")) or secrets.token_urlsafe(12)
    if request.method == "POST" and _sent_before(request):  # sent again as it was
        return _twin(request, match_key, "request")
    form = _request_form(request, form_data, {"crew": "1", "cameras": "1"})
    values = _form_values(request, form_data, form, once=once)
    status = 200
    if request.method == "POST":
        try:
            with transaction.atomic():
                request_id = entries.do_submit_request(user, match_key, form.body(), timezone.now())
                _remember(request, request_id)
        except ServiceError as error:
            if error.code == ErrorCode.DUPLICATE and _sent_before(request):
                return _twin(request, match_key, "request")  # its twin took the reference
            values["error"], status = error, error.status
        except IntegrityError:  # its twin, sent at the same moment, made it
            return _twin(request, match_key, "request")
        else:
            messages.success(request, f"Request {request_id} submitted.")
            return redirect("pitchpass:board", match_key=match_key)
        values["hint"] = _hint(user, match_key, form, None)
    return render(request, "pitchpass/request_form.html", values, status=status)


@login_required
def change_request(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    """The request form again, filled in with the request as it is; saving counts as
    submitting it now (entries.do_change_request)."""
    user = user_of(request)
    form_data = _form_data(request, match_key, request_id)
    changing = form_data.changing
    assert changing is not None
    as_is = {"zone": changing.zone, "crew": str(changing.crew), "cameras": str(changing.cameras)}
    form = _request_form(request, form_data, {**as_is, "phases": changing.phases})
    # Admins change requests after the deadline too (entries.do_change_request).
    values = _form_values(request, form_data, form, closed_for_admins=False)
    status = 200
    if request.method == "POST":
        try:
            body = {k: v for k, v in form.body().items() if k not in ("id", "by")}
            after = entries.do_change_request(user, match_key, request_id, body, timezone.now())
        except ServiceError as error:
            values["error"], status = error, error.status
        else:
            if after.get("submitted") == changing.submitted:
                messages.info(request, f"Nothing changed: {request_id} keeps its place.")
            else:
                messages.success(request, f"Request {request_id} changed: it counts as sent now.")
            return redirect("pitchpass:board", match_key=match_key)
    values["hint"] = _hint(user, match_key, form, changing.key)
    return render(request, "pitchpass/request_form.html", values, status=status)


def _form_data(
    request: HttpRequest, match_key: str, changing: str | None = None
) -> views.RequestFormData:
    try:
        return views.request_form(user_of(request), match_key, timezone.now(), changing)
    except ServiceError as refused:
        raise page_404(refused) from None


def _request_form(
    request: HttpRequest, form_data: views.RequestFormData, initial: dict[str, Any]
) -> RequestForm:
    """The request form, bound to what was sent, or filled in with `initial`."""
    zones = [z.key for z in form_data.zones]
    if request.method == "POST":
        return RequestForm(request.POST, zones=zones, phases=form_data.phases)
    return RequestForm(initial=initial, zones=zones, phases=form_data.phases)


def _form_values(
    request: HttpRequest,
    form_data: views.RequestFormData,
    form: RequestForm,
    once: str = "",
    closed_for_admins: bool = True,
) -> dict[str, Any]:
    """The form page's values: what was typed (or the request as it is), what is ticked,
    and whether requests are closed (opened after the deadline: say so rather than offer a
    form that cannot succeed)."""
    if form.is_bound:
        typed, ticked = request.POST.dict(), set(request.POST.getlist("phases"))
    else:
        typed = {k: v for k, v in form.initial.items() if k != "phases"}
        ticked = set(form.initial.get("phases", []))
    who = views.viewer(user_of(request))
    admin = who is not None and who.role == "admin"
    return context(
        request,
        form=form,
        form_data=form_data,
        match=form_data.match,
        changing=form_data.changing,
        typed=typed,
        ticked=ticked,
        once=once,
        closed=request.method == "GET" and form_data.late and (closed_for_admins or not admin),
        hint=None,
    )


def _hint(user: User, match_key: str, form: RequestForm, changing: str | None) -> views.RoomHint:
    """The room-left hint for what the form holds now (pages.room_hint)."""
    typed = QueryDict(mutable=True)
    source = form.data if form.is_bound else form.initial
    for field in ("zone", "crew"):
        typed[field] = str(source.get(field, ""))
    ticked = form.data.getlist("phases") if isinstance(form.data, QueryDict) else []
    typed.setlist("phases", ticked if form.is_bound else list(form.initial.get("phases", [])))
    if changing:
        typed["changing"] = changing
    return room_hint(user, match_key, typed)


@login_required
def notices_seen(request: HttpRequest) -> HttpResponse:
    """The notices page was seen (it posts this once shown, with `upto`, the moment it was
    made): what it listed is no longer new; a notice made since stays new. 204. Opened
    any other way, it is the notices page."""
    if request.method != "POST":
        return redirect("pitchpass:notices")
    try:
        upto = datetime.fromisoformat(request.POST.get("upto", "")[:40])
    except ValueError:
        return HttpResponse("upto is the moment the page was made", status=400)
    if upto.tzinfo is None:
        return HttpResponse("upto is the moment the page was made", status=400)
    notices.mark_seen(user_of(request), min(upto, timezone.now()))
    return HttpResponse(status=204)


@login_required
def choose_notices(request: HttpRequest) -> HttpResponse:
    """The kinds of notice the user hears of: those ticked, or (`follow`) as their
    organisation chose."""
    if request.method != "POST":
        return redirect("pitchpass:notices")
    follow = request.POST.get("follow") == "organisation"
    kinds = [k[:40] for k in request.POST.getlist("kind")[:40]]
    try:
        notices.choose(user_of(request), None if follow else kinds)
    except ServiceError as error:
        messages.error(request, error.message)
        return redirect("pitchpass:notices")
    messages.success(request, "Saved: " + ("as your organisation chose" if follow else (
        f"you hear of {', '.join(kinds)}" if kinds else "you hear of nothing"
    )))  # fmt: skip
    return redirect("pitchpass:notices")


@login_required
@post_only
def answer_offer(request: HttpRequest, match_key: str, request_id: str) -> HttpResponse:
    """Accept or decline the place offered from the waitlist (the buttons of the board)."""
    accept = request.POST.get("answer") == "accept"

    def act() -> str:
        waitlist.answer(user_of(request), match_key, request_id, accept, timezone.now())
        if accept:
            return f"{request_id}: place accepted. Its pass is on the Passes page."
        return f"{request_id}: place declined; it goes to the next on the waitlist."

    return _on_board(request, match_key, act)
