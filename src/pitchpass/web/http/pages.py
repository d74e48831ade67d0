"""Server-rendered pages to read a match: the match list, the match board and its pieces
(the room-left hint, the what-if panel). Each asks one service for its typed view data
(services.views) and renders it; the forms that change a match are in page_actions.py.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import fields
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from pitchpass.core.match_day.notices import WORDS
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.services import board, live, matchweek, notices, season, views


def user_of(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]  # login_required has run


def context(request: HttpRequest, **values: Any) -> dict[str, Any]:
    """What every page needs: the user's role, and what it may do."""
    who = views.viewer(user_of(request))
    return {"who": who, "role": who.role if who else "", **values}


def role_name(request: HttpRequest) -> dict[str, Any]:
    """The header's role on every page, error pages too, and how many notices are new
    (each read only if a page shows it)."""
    user = getattr(request, "user", None)
    return {
        "role_name": SimpleLazyObject(lambda: views.role_name(user)),
        "notices_new": SimpleLazyObject(lambda: _unseen(user)),
    }


def _unseen(user: Any) -> int:
    if user is None or not user.is_authenticated:
        return 0
    try:
        return notices.unseen(user)
    except ServiceError:  # no profile: no notices
        return 0


@login_required
def notice_list(request: HttpRequest) -> HttpResponse:
    """What changed for the user's organisation, newest first, those since their last
    visit marked new; and what they hear about. The page, once shown, posts that it was
    seen (page_actions.notices_seen, up to the moment it was made): this GET writes
    nothing."""
    user = user_of(request)
    try:
        lines = notices.notices_for(user)
        mine, theirs = notices.choices_of(user)
    except ServiceError as refused:
        raise page_404(refused) from None
    heard = mine if mine is not None else theirs
    kinds = [(kind, words, heard is None or kind in heard) for kind, words in WORDS.items()]
    values = context(
        request,
        lines=lines,
        kinds=kinds,
        own_choice=mine is not None,
        new=sum(x.new for x in lines),
        made=timezone.now().isoformat(),
    )
    return render(request, "pitchpass/notices.html", values)


STALE_FORM = (
    "this form's security check failed (the page was open too long, or you signed in or"
    " out in another tab): reload the page and send it again"
)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """settings.CSRF_FAILURE_VIEW: a form sent without a valid CSRF token (a stale tab) is
    told so on the app's own page, or in the error shape to a script that sent JSON, not
    with Django's bare page. 403."""
    error = ServiceError(ErrorCode.FORBIDDEN, STALE_FORM)
    if request.content_type == "application/json":
        return JsonResponse(error.as_json(), status=403)
    return render(request, "pitchpass/error.html", {"error": error}, status=403)


def page_404(error: ServiceError) -> ServiceError:
    """A match or request that is absent or hidden is the page's 404 (the same for both)."""
    if error.code is ErrorCode.NOT_FOUND:
        raise Http404(error.message) from None
    return error  # shown by middleware.PageErrors


@login_required
def matches(request: HttpRequest) -> HttpResponse:
    # After "Decide together" the same matches come back ticked, to publish them next.
    return render_matches(request, ticked=[str(k)[:200] for k in request.GET.getlist("match")[:50]])


def render_matches(
    request: HttpRequest, error: ServiceError | None = None, ticked: Collection[str] = ()
) -> HttpResponse:
    """The match list; after a failed "together" action, with its error and the matches
    ticked kept."""
    user = user_of(request)
    coming, past = views.match_list(user, timezone.now())
    sections = [
        ("Coming", coming, "No coming matches you may see."),
        ("Past", past, "No past matches you may see."),
    ]
    seasons = season.competitions(user)
    values = context(
        request,
        sections=sections,
        seasons=seasons,
        together=matchweek.offered(user) and bool(coming),
        ticked=set(ticked),
        max_together=matchweek.MAX_TOGETHER,
        error=error,
    )
    return render(request, "pitchpass/matches.html", values, status=error.status if error else 200)


@login_required
def match_board(request: HttpRequest, match_key: str) -> HttpResponse:
    return render_board(request, match_key)


def render_board(
    request: HttpRequest,
    match_key: str,
    error: ServiceError | None = None,
    typed: dict[str, str] | None = None,
    at_board: bool = False,
) -> HttpResponse:
    """The board; after a failed action, with its error and what was typed kept, and
    (`at_board`) the address bar set back to the board's URL, so a reload reads it."""
    filters = {k: request.GET.get(k, "")[:200] for k in ("status", "zone", "q")}
    try:
        found = views.board_of(user_of(request), match_key, filters, timezone.now())
    except ServiceError as refused:
        raise page_404(refused) from None
    error = error or found.broken
    values = context(
        request,
        **{f.name: getattr(found, f.name) for f in fields(found)},  # the board's parts by name
        filters=filters,
        statuses=board.STATUSES,
        error=error,
        typed=typed or {},
        address=reverse("pitchpass:board", args=[match_key]) if at_board else None,
        once=(typed or {}).get("once") or secrets.token_urlsafe(12),  # the incident form's
    )
    return render(request, "pitchpass/board.html", values, status=error.status if error else 200)


@login_required
def live_header(request: HttpRequest, match_key: str) -> HttpResponse:
    """The match-day header alone, as the board and the door page poll it."""
    try:
        found = live.live_for(user_of(request), match_key, timezone.now())
    except ServiceError as refused:
        raise page_404(refused) from None
    values = {"live": found, "live_match": match_key, "live_once": secrets.token_urlsafe(12)}
    return render(request, "pitchpass/_live.html", values)


@login_required
def room(request: HttpRequest, match_key: str) -> HttpResponse:
    """The live hint of the request form: the room left where and when it asks."""
    try:
        hint = room_hint(user_of(request), match_key, request.GET)
    except ServiceError as refused:
        raise page_404(refused) from None
    return render(request, "pitchpass/_room.html", {"hint": hint})


def room_hint(user: User, match_key: str, typed: Any) -> views.RoomHint:
    """The hint for what a form holds (a QueryDict: zone, phases, crew, changing)."""
    return views.room_hint(
        user,
        match_key,
        str(typed.get("zone", ""))[:200],
        [str(p)[:200] for p in typed.getlist("phases")][:50],
        str(typed.get("crew", ""))[:20],
        str(typed.get("changing", ""))[:200] or None,
    )


@login_required
def what_if(request: HttpRequest, match_key: str) -> HttpResponse:
    """Tick requests to grant or refuse, change capacities, and see what would change."""
    user = user_of(request)
    try:
        panel = views.what_if_panel(user, match_key)
    except ServiceError as refused:
        raise page_404(refused) from None
    # Posted from the panel, or asked by a link (the board's "what if there were room?"):
    # nothing is saved either way.
    asked = request.POST if request.method == "POST" else request.GET
    values = context(
        request,
        panel=panel,
        match=panel.match,
        typed=asked,
        grant=set(asked.getlist("grant")),
        refuse=set(asked.getlist("refuse")),
    )
    if request.method == "POST" or asked:  # a link from the board asks at once
        try:
            body = _what_if_body(asked, panel.usage)
            values["story"] = views.what_if_story(user, match_key, panel, body)
        except ServiceError as error:
            values["error"] = error
        except ValueError as error:
            values["error"] = ServiceError(ErrorCode.INVALID, str(error))
        if request.htmx:  # type: ignore[attr-defined]
            # 200 even with an error in it: htmx swaps in only successful answers. (The
            # whole page says an error once, at its top.)
            values["partial"] = True
            return render(request, "pitchpass/_what_if_result.html", values)
    status = values["error"].status if values.get("error") else 200
    return render(request, "pitchpass/what_if.html", values, status=status)


def _what_if_body(posted: Any, usage: list[dict[str, Any]]) -> dict[str, Any]:
    """The API's what-if body from the panel: ticked ids, and the capacities changed."""
    capacity = {}
    for u in usage:
        key = f"{u['zone']}@{u['phase']}"
        label = f"the places in {u['zone']}, {u['phase']}"
        typed = board.form_int(posted, f"capacity:{key}", u["capacity"], label)
        if typed is not None and typed != u["capacity"]:
            capacity[key] = typed
    return {
        "grant": posted.getlist("grant"),
        "refuse": posted.getlist("refuse"),
        "capacity": capacity,
    }
