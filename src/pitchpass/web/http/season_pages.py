"""The season report's page and its plot (issue 12, section 2): what services.season
reports, shown; the JSON is the API's (GET /api/competitions/{competition}/season)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from pitchpass.core.season.season_report import rotation_label
from pitchpass.web.errors import ServiceError
from pitchpass.web.http.pages import context, page_404, user_of
from pitchpass.web.services import hindsight, season


def _view(request: HttpRequest, competition_key: str) -> season.SeasonView:
    try:
        return season.season_of(user_of(request), competition_key)
    except ServiceError as refused:
        raise page_404(refused) from None


@login_required
def season_page(request: HttpRequest, competition_key: str) -> HttpResponse:
    filters = {k: request.GET.get(k, "")[:200] for k in ("org", "club", "rule")}
    pages = {k: request.GET.get(f"{k}_page", "")[:10] for k in ("quotas", "minimums")}
    try:
        page = season.season_page(user_of(request), competition_key, filters, pages)
    except ServiceError as refused:
        raise page_404(refused) from None
    view = page.view
    labels = [rotation_label(r) for r in view.report["rotations"]]
    organisations = [
        {**row, "turns": list(zip(labels, row["turns"], strict=True))} for row in page.organisations
    ]
    # Names where the report has ids: a person reads "North FC", not "north-fc".
    quotas = [{**q, "for": view.called(q["for"])} for q in page.quotas.rows]
    minimums = [{**p, "club": view.called(p["club"]), "to": view.called(p["to"])}
                for p in page.minimums.rows]  # fmt: skip
    rotations = [
        {**r, "turns": [{**t, "organisation": view.called(t["organisation"])} for t in r["turns"]]}
        for r in page.rotations
    ]
    values = context(
        request, view=view, page=page, organisations=organisations, labels=labels,
        hindsight=_hindsight(request, competition_key, view),
        quotas=quotas, minimums=minimums, rotations=rotations,
        quotas_pages=_links(page, "quotas"), minimums_pages=_links(page, "minimums"),
        filtered=any(page.filters.values()),
    )  # fmt: skip
    return render(request, "pitchpass/season.html", values)


def _hindsight(
    request: HttpRequest, competition_key: str, view: season.SeasonView
) -> dict[str, Any]:
    """The hindsight section: its state, and of its result what differs, names for ids."""
    found = hindsight.hindsight_of(user_of(request), competition_key)
    out: dict[str, Any] = {"found": found, "shown": hindsight.SHOWN}
    result = found.result
    if result is None:
        return out
    called = view.called
    out["organisations"] = [o for o in result["organisations"]
                            if o["match_by_match"] != o["hindsight"]]  # fmt: skip
    out["minimums"] = [
        {**x, "club": called(x["club"]), "to": called(x["to"])}
        for x in result["minimums"]
        if x["match_by_match"] != x["hindsight"]
    ]
    out["rotations"] = result["rotations"]
    for key in ("avoidable", "hindsight_refuses"):
        out[key] = [
            {**r, "request": r["request"].removeprefix(f"{r['match']}:"),
             "organisation": called(r["organisation"])}
            for r in result[key][: hindsight.SHOWN]
        ]  # fmt: skip
        out[f"{key}_all"] = len(result[key])
    return out


@login_required
def ask_hindsight(request: HttpRequest, competition_key: str) -> HttpResponse:
    """The season page's "Work it out": queued for the worker; back to the page."""
    if request.method == "POST":
        try:
            asked = hindsight.do_ask_hindsight(user_of(request), competition_key)
        except ServiceError as refused:
            raise page_404(refused) from None
        said = (
            "The worker is working out the price of deciding match by match: each match is a"
            " decide of its own (about a minute for 380 matches); reload this page to see it."
            if asked
            else "It is being worked out already, or made for the season as it is."
        )
        messages.info(request, said)
    return redirect(reverse("pitchpass:season", args=[competition_key]) + "#hindsight")


def _links(page: season.SeasonPage, table: str) -> dict[str, str]:
    """The first, previous, next and last pages' addresses of a paged table, the filters
    and the other table's page kept."""
    paged: season.Paged = getattr(page, table)
    here = {"quotas": page.quotas.page, "minimums": page.minimums.page}
    out = {}
    steps = (("first", 1), ("previous", paged.page - 1), ("next", paged.page + 1),
             ("last", paged.pages))  # fmt: skip
    for name, to in steps:
        if 1 <= to <= paged.pages and to != paged.page:
            asked = {k: v for k, v in page.filters.items() if v}
            asked |= {f"{k}_page": str(n) for k, n in {**here, table: to}.items() if n != 1}
            out[name] = f"?{urlencode(asked)}#{table}"
    return out


@login_required
def season_plot(request: HttpRequest, competition_key: str) -> HttpResponse:
    answer = HttpResponse(_view(request, competition_key).plot, content_type="image/svg+xml")
    answer["Cache-Control"] = "private, no-store"
    return answer
