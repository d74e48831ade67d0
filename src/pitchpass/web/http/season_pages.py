"""The season report's page and its plot (issue 12, section 2): what services.season
reports, shown; the JSON is the API's (GET /api/competitions/{competition}/season)."""

from __future__ import annotations

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
    view = _view(request, competition_key)
    report = view.report
    labels = [rotation_label(r) for r in report["rotations"]]
    organisations = [
        {**row, "turns": list(zip(labels, row["turns"], strict=True))}
        for row in report["organisations"]
    ]
    # Names where the report has ids: a person reads "North FC", not "north-fc".
    quotas = [{**q, "for": view.called(q["for"])} for q in report["quotas"]]
    minimums = [{**p, "club": view.called(p["club"]), "to": view.called(p["to"])}
                for p in report["minimums"]]  # fmt: skip
    rotations = [
        {**r, "turns": [{**t, "organisation": view.called(t["organisation"])} for t in r["turns"]]}
        for r in report["rotations"]
    ]
    values = context(
        request, view=view, organisations=organisations, labels=labels,
        quotas=quotas, minimums=minimums, rotations=rotations,
    )  # fmt: skip
    return render(request, "pitchpass/season.html", values)


@login_required
def season_plot(request: HttpRequest, competition_key: str) -> HttpResponse:
    answer = HttpResponse(_view(request, competition_key).plot, content_type="image/svg+xml")
    answer["Cache-Control"] = "private, no-store"
    return answer
