"""Match-day pages: a crew's passes on a phone (QR codes) and the steward's zone door
(scan or type a code, admitted or refused with the reason). Each calls services/doors.py,
the same as the API."""

from __future__ import annotations

import secrets
from typing import Any

import segno
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.safestring import mark_safe

from pitchpass.web.errors import ServiceError
from pitchpass.web.http.pages import context, page_404, user_of
from pitchpass.web.services import doors, sheets


def qr_svg(code: str) -> str:
    """The pass's QR code as inline SVG (made here from our own signed code)."""
    svg = segno.make(code, error="m").svg_inline(scale=4, title="pass QR code")
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
    user = user_of(request)
    try:
        pdf = sheets.sheet_for(user, match_key)
        name = doors.match_name(user, match_key)
    except ServiceError as refused:
        raise page_404(refused) from None
    if pdf is None:
        values = context(request, match_key=match_key, match_name=name)
        return render(request, "pitchpass/passes_pending.html", values, status=202)
    answer = HttpResponse(pdf, content_type="application/pdf")
    answer["Content-Disposition"] = f'inline; filename="passes-{match_key}.pdf"'
    return answer


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
        body = {
            "code": request.POST.get("code", "")[: doors.CODE_MAX + 1],
            "zone": zone,
            "phase": phase,
            "direction": request.POST.get("direction", "in"),
            "key": request.POST.get("key", "")[: doors.KEY_MAX + 1],
        }
        try:
            verdict = doors.do_check_in(user, match_key, body, now)
        except ServiceError as error:
            verdict = {"result": "refused", "reason": error.code.value, "text": error.message}
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
    state: doors.Door | None,
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
    )
    return render(request, "pitchpass/door.html", values, status=error.status if error else 200)


@login_required
def door_list(request: HttpRequest, match_key: str) -> JsonResponse:
    """What the door page keeps for when the connection drops (services.doors)."""
    try:
        kept = doors.offline_list(user_of(request), match_key, request.GET.get("zone", "")[:100])
    except ServiceError as error:
        return JsonResponse(error.as_json(), status=error.status)
    return JsonResponse({"passes": kept})
