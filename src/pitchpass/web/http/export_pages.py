"""Exports: a match's decisions as CSV and the stewards' access list as a PDF. Each
parses, calls services/exports.py (or sheets.py) and answers."""

from __future__ import annotations

import re

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from pitchpass.web.errors import ServiceError
from pitchpass.web.http.pages import context, page_404, user_of
from pitchpass.web.services import doors, exports, sheets


def _file_name(match_key: str) -> str:
    """A match id as it may stand in a file name (ids may hold quotes or spaces)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", match_key)[:100]


@login_required
def decisions_csv(request: HttpRequest, match_key: str) -> HttpResponse:
    """The board's requests and their decisions as CSV: the rows this user sees there."""
    try:
        text = exports.decisions_csv(user_of(request), match_key, timezone.now())
    except ServiceError as refused:
        raise page_404(refused) from None
    answer = HttpResponse(text, content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = f'attachment; filename="decisions-{_file_name(match_key)}.csv"'
    return answer


@login_required
def access_pdf(request: HttpRequest, match_key: str) -> HttpResponse:
    """The access list as a PDF once the worker has made it; until then a page that says
    so and looks again every few seconds (202), as for the passes."""
    user = user_of(request)
    try:
        pdf = sheets.access_sheet_for(user, match_key)
        name = doors.match_name(user, match_key)
    except ServiceError as refused:
        raise page_404(refused) from None
    if pdf is None:
        values = context(request, match_key=match_key, match_name=name)
        return render(request, "pitchpass/access_pending.html", values, status=202)
    answer = HttpResponse(pdf, content_type="application/pdf")
    answer["Content-Disposition"] = f'inline; filename="access-{_file_name(match_key)}.pdf"'
    return answer
