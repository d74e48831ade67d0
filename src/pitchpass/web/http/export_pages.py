"""Calendars and exports: a media user's calendar feeds (the page that shows and makes
their secret addresses, and the feed itself, read by calendar apps without signing in),
a match's decisions as CSV and the stewards' access list as a PDF. Each parses, calls
services/exports.py (or sheets.py) and answers."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.http.door_pages import file_name, sheet_page
from pitchpass.web.http.pages import context, page_404, user_of
from pitchpass.web.services import exports, sheets


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def calendar_page(request: HttpRequest) -> HttpResponse:
    """The user's feeds, when each address was made; a POST makes one anew (the old one
    then answers 404) and shows the new address, this once: only its digest is kept."""
    user = user_of(request)
    made = None
    if request.method == "POST":
        which = request.POST.get("feed", "")[:20]
        secret = exports.do_rotate_feed(user, which, timezone.now())  # refusals: a page
        path = reverse("pitchpass:feed", args=[secret])
        made = {"which": which, "url": request.build_absolute_uri(path)}
        made["webcal"] = re.sub(r"^https?://", "webcal://", made["url"])
    feeds = exports.feeds_of(user)
    if made is not None:
        made["title"] = next(f.title for f in feeds if f.which == made["which"])
    values = context(request, feeds=feeds, made=made)
    answer = render(request, "pitchpass/calendar.html", values)
    answer["Cache-Control"] = "no-store"  # a new address is shown once, never kept
    return answer


@csrf_exempt  # it writes nothing: any other method is its 405, not CSRF's 403 page
def feed(request: HttpRequest, secret: str) -> HttpResponse:
    """The calendar a secret address opens (no sign-in: the address is the key). Every
    failure is a 404 in the error shape, the same for any secret that opens nothing."""
    if request.method not in ("GET", "HEAD"):
        refused = ServiceError(ErrorCode.METHOD_NOT_ALLOWED, "a calendar feed is read with GET")
        wrong = JsonResponse(refused.as_json(), status=refused.status)
        wrong["Allow"] = "GET, HEAD"
        return wrong
    try:
        calendar = exports.feed_calendar(secret, timezone.now())
    except ServiceError as error:
        return JsonResponse(error.as_json(), status=error.status)
    answer = HttpResponse(calendar, content_type="text/calendar; charset=utf-8")
    answer["Content-Disposition"] = 'inline; filename="pitchpass.ics"'
    answer["Cache-Control"] = "private, no-store"  # its address is a secret: no shared copy
    answer["X-Robots-Tag"] = "noindex"
    return answer


@login_required
def decisions_csv(request: HttpRequest, match_key: str) -> HttpResponse:
    """The board's requests and their decisions as CSV: the rows this user sees there."""
    try:
        text = exports.decisions_csv(user_of(request), match_key, timezone.now())
    except ServiceError as refused:
        raise page_404(refused) from None
    answer = HttpResponse(text, content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = f'attachment; filename="decisions-{file_name(match_key)}.csv"'
    return answer


@login_required
def access_pdf(request: HttpRequest, match_key: str) -> HttpResponse:
    """The access list as a PDF once the worker has made it; until then a page that says
    so and looks again every few seconds (202), as for the passes."""
    return sheet_page(request, match_key, sheets.access_sheet_for, "access_pending.html", "access")
