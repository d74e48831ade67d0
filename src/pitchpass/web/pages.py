"""Server-rendered pages: each view asks the same services as the API, then renders.

The match list and the match board are read-only for now; the actions (decide, publish,
override, the request form, the what-if panel) come next (issue 3).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from pitchpass.web import access, services
from pitchpass.web import models as m
from pitchpass.web.errors import ErrorCode, ServiceError


def _context(request: HttpRequest, **values: Any) -> dict[str, Any]:
    profile = m.Profile.objects.filter(user=request.user).first()  # type: ignore[misc]
    return {"role": profile.get_role_display() if profile else "", **values}


@login_required
def matches(request: HttpRequest) -> HttpResponse:
    rows = []
    for match in access.visible_matches(request.user):  # type: ignore[arg-type]
        run = match.runs.order_by("-number").first()
        decided = {d["request"] for d in run.output["decisions"]} if run else set()
        waiting = match.requests.exclude(key__in=decided).count()
        fullest = None
        if run:
            cells = [u for u in run.output["usage"] if u["capacity"]]
            fullest = max(cells, key=lambda u: u["used"] / u["capacity"], default=None)
        rows.append({"match": match, "waiting": waiting, "fullest": fullest})
    return render(request, "pitchpass/matches.html", _context(request, rows=rows))


@login_required
def board(request: HttpRequest, match_key: str) -> HttpResponse:
    user = request.user
    try:
        match = access.check_match(user, match_key)  # type: ignore[arg-type]
        visible = list(access.visible_requests(user, match))  # type: ignore[arg-type]
    except ServiceError as error:
        if error.code is ErrorCode.NOT_FOUND:
            raise Http404(error.message) from None
        visible = []
    run = match.runs.order_by("-number").first()
    decisions = {d["request"]: d for d in run.output["decisions"]} if run else {}
    phases = list(match.competition.phases.values_list("key", flat=True))
    grid = _grid(run.output["usage"] if run else [], phases)
    return render(
        request,
        "pitchpass/board.html",
        _context(
            request,
            match=match,
            run=run,
            phases=phases,
            grid=grid,
            requests=[{"request": r, "decision": decisions.get(r.key)} for r in visible],
            incidents=services.coverage(user, match_key)["incidents"],  # type: ignore[arg-type]
        ),
    )


def _grid(usage: list[dict[str, Any]], phases: list[str]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Zones in order, each with its phases' cells and how full each is."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for u in usage:
        share = u["used"] / u["capacity"] if u["capacity"] else 0
        level = "full" if share >= 1 else "busy" if share >= 0.75 else "free"
        rows.setdefault(u["zone"], []).append(
            {**u, "percent": round(min(share, 1) * 100), "level": level}
        )
    return list(rows.items())
