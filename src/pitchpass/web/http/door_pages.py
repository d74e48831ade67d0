"""Match-day pages: a crew's passes on a phone (QR codes) and the steward's zone door
(scan or type a code, admitted or refused with the reason). Each calls services/doors.py,
the same as the API."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable
from typing import Any

import segno
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.http.pages import context, page_404, user_of
from pitchpass.web.http.schemas import check_in_body
from pitchpass.web.services import doors, live, sheets


def qr_svg(code: str) -> str:
    """The pass's QR code as inline SVG (made here from our own signed code), with a
    viewBox and no fixed size: the page's style sets it as wide as a phone allows."""
    svg = segno.make(code, error="m").svg_inline(scale=4, title="pass QR code", omitsize=True)
    return mark_safe(svg)  # segno's markup of our own code, nothing typed


@login_required
def passes_page(request: HttpRequest, match_key: str) -> HttpResponse:
    """The passes the user's organisation holds at the match (the home officer and
    admins: every one), each with its QR code and the code to type."""
    user = user_of(request)
    try:
        name = doors.match_name(user, match_key)
        passes = doors.passes_for(user, match_key)
    except ServiceError as refused:
        raise page_404(refused) from None
    for one in passes:
        one["qr"] = qr_svg(one["code"])
    values = context(request, match_key=match_key, match_name=name, passes=passes)
    return render(request, "pitchpass/passes.html", values)


@login_required
def passes_pdf(request: HttpRequest, match_key: str) -> HttpResponse:
    """The passes as a PDF once the worker has made it; until then a page that says so
    and looks again every few seconds (202)."""
    return sheet_page(request, match_key, sheets.sheet_for, "passes_pending.html", "passes")


def sheet_page(
    request: HttpRequest,
    match_key: str,
    sheet_of: Callable[[User, str], bytes | None],
    pending: str,
    stem: str,
) -> HttpResponse:
    """A sheet the worker makes (services/sheets.py) as the PDF once made, else the page
    `pending` that says it is being made (202, it looks again)."""
    user = user_of(request)
    try:
        pdf = sheet_of(user, match_key)
        name = doors.match_name(user, match_key)
    except ServiceError as refused:
        raise page_404(refused) from None
    if pdf is None:
        values = context(request, match_key=match_key, match_name=name)
        return render(request, f"pitchpass/{pending}", values, status=202)
    answer = HttpResponse(pdf, content_type="application/pdf")
    answer["Content-Disposition"] = f'inline; filename="{stem}-{file_name(match_key)}.pdf"'
    return answer


def file_name(match_key: str) -> str:
    """A match id as it may stand in a file name (ids may hold quotes or spaces)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", match_key)[:100]


@login_required
def door_page(request: HttpRequest, match_key: str) -> HttpResponse:
    """The steward's door: pick the zone and phase, then scan or type each code."""
    user = user_of(request)
    now = timezone.now()
    try:
        choices = doors.door_choices(user, match_key, now)
    except ServiceError as refused:
        raise page_404(refused) from None
    zone = request.GET.get("zone", "")[:100]
    phase = request.GET.get("phase", "")[:100] or choices.default_phase
    verdict = None
    if request.method == "POST":
        zone, phase = request.POST.get("zone", "")[:100], request.POST.get("phase", "")[:100]
        try:
            body = check_in_body(
                {
                    "code": request.POST.get("code", ""),
                    "zone": zone,
                    "phase": phase,
                    "direction": request.POST.get("direction", "in"),
                    "key": request.POST.get("key", ""),
                }
            )
            verdict = {
                **doors.do_check_in(user, match_key, body, now),
                "direction": body["direction"],  # a way out let through: OUT, not ADMITTED
            }
        except ServiceError as error:
            said = f"{error.path}: {error.message}" if error.path else error.message
            verdict = {"result": "refused", "reason": error.code.value, "text": said}
    state = scans = None
    if zone:
        try:
            state = doors.door(user, match_key, zone, phase)
            scans = doors.scans_at(user, match_key, zone)
        except ServiceError as error:
            return _door(request, choices, zone, phase, None, None, None, error)
    return _door(request, choices, zone, phase, verdict, state, scans, None)


def _door(
    request: HttpRequest,
    choices: doors.DoorChoices,
    zone: str,
    phase: str,
    verdict: dict[str, Any] | None,
    state: doors.DoorView | None,
    scans: Any,
    error: ServiceError | None,
) -> HttpResponse:
    values = context(
        request,
        choices=choices,
        zone=zone,
        phase=phase,
        verdict=verdict,
        state=state,
        scans=scans,
        error=error,
        key=secrets.token_urlsafe(12),  # this form's scan, once: a reload resends it
        live=live.live_for(user_of(request), choices.match, timezone.now()),
        live_once=secrets.token_urlsafe(12),
    )
    return render(request, "pitchpass/door.html", values, status=error.status if error else 200)


@login_required
def door_list(request: HttpRequest, match_key: str) -> JsonResponse:
    """What the door page keeps for when the connection drops (services.doors)."""
    try:
        kept = doors.offline_list(user_of(request), match_key, request.GET.get("zone", "")[:100])
    except ServiceError as error:
        return JsonResponse(error.as_json(), status=error.status)
    return JsonResponse({"key": kept.key, "passes": kept.passes})


@require_POST
def door_check_in(request: HttpRequest, match_key: str) -> JsonResponse:
    """A scan sent by the door page's script (static/pitchpass/door.js; the plain form
    posts to door_page): the API's check-in body, `{"code", "zone", "phase", "direction",
    "key"?, "scanned"?}`, for the signed-in session with the page's CSRF token
    (X-CSRFToken). The answer is services.doors.do_check_in's verdict, with the door's
    count after it (`inside` of `capacity`), in one round trip on a bad connection. Not
    signed in: a 401 in the error shape, never the sign-in page."""
    if not request.user.is_authenticated:
        ended = ServiceError(ErrorCode.UNAUTHENTICATED, "signed out: sign in again")
        return JsonResponse(ended.as_json(), status=ended.status)
    user = user_of(request)
    try:
        body = _scan_body(request.body)
        verdict = doors.do_check_in(user, match_key, body, timezone.now())
        state = doors.door(user, match_key, body["zone"], body["phase"])
    except ServiceError as error:
        return JsonResponse(error.as_json(), status=error.status)
    return JsonResponse(verdict | {"inside": state.inside, "capacity": state.capacity})


def _scan_body(raw: bytes) -> dict[str, Any]:
    """The check-in body, JSON, checked by the API's schema (schemas.CheckInIn)."""
    try:
        body = json.loads(raw or b"null")
    except (ValueError, RecursionError):
        raise ServiceError(ErrorCode.INVALID, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise ServiceError(ErrorCode.INVALID, "the body is a JSON object")
    return check_in_body(body)
