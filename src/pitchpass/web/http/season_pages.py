"""The season report's page and its plot (issue 12, section 2): what services.season
reports, shown; the JSON is the API's (GET /api/competitions/{competition}/season)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from pitchpass.season_print import rotation_label
from pitchpass.web.errors import ServiceError
from pitchpass.web.http.pages import context, page_404, user_of
from pitchpass.web.services import season


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
        quotas=quotas, minimums=minimums, rotations=rotations,
        quotas_pages=_links(page, "quotas"), minimums_pages=_links(page, "minimums"),
        filtered=any(page.filters.values()),
    )  # fmt: skip
    return render(request, "pitchpass/season.html", values)


def _links(page: season.SeasonPage, table: str) -> dict[str, str]:
    """The previous and next pages' addresses of a paged table, the filters and the other
    table's page kept."""
    paged: season.Paged = getattr(page, table)
    here = {"quotas": page.quotas.page, "minimums": page.minimums.page}
    out = {}
    for name, to in (("previous", paged.page - 1), ("next", paged.page + 1)):
        if 1 <= to <= paged.pages:
            asked = {k: v for k, v in page.filters.items() if v}
            asked |= {f"{k}_page": str(n) for k, n in {**here, table: to}.items() if n != 1}
            out[name] = f"?{urlencode(asked)}#{table}"
    return out


@login_required
def season_plot(request: HttpRequest, competition_key: str) -> HttpResponse:
    answer = HttpResponse(_view(request, competition_key).plot, content_type="image/svg+xml")
    answer["Cache-Control"] = "private, no-store"
    return answer
