"""A competition's season report on the desk (issue 12, section 2; docs/season-report.md):
the competition as it stands, its published grants fixed and every other request decided
by the season rules stored with it (core.season_decide), then reported (core.season_report).
It counts every organisation's requests, so only a league admin sees it. The desk itself
still decides and publishes each match on its own: this page says what the rules give."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache

from pitchpass.core import check_document
from pitchpass.core.decide import decide
from pitchpass.core.problems import SolverFailed
from pitchpass.core.season_report import season_report
from pitchpass.season_plot import share_svg
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.fixtures_store import season_document
from pitchpass.web.services import access

KEPT_FOR = 3600  # seconds a season's report is kept for the same data
KEPT_SHAPE = 2  # in the cache key: a SeasonView of another shape is never read back


@dataclass(frozen=True)
class SeasonView:
    competition: str
    name: str
    rules: bool  # whether the competition has season rules stored
    matches: int
    published: int  # published grants: fixed in the decision
    report: dict[str, Any]
    plot: str  # the SVG of each organisation's share (pitchpass.season_plot)
    names: dict[str, str]  # organisation id -> name, for the page

    def called(self, org: str) -> str:
        """An organisation's name (`partners together`: "the partners")."""
        return self.names.get(org, org)

    def as_json(self) -> dict[str, Any]:
        return {
            "competition": self.competition,
            "name": self.name,
            "rules": self.rules,
            "matches": self.matches,
            "published": self.published,
            **self.report,
        }


def competitions(user: User) -> list[tuple[str, str]]:
    """(key, name) of each competition whose season report the user may see."""
    if access.profile(user).role != "admin":
        return []
    return list(m.Competition.objects.order_by("name", "key").values_list("key", "name"))


def season_of(user: User, competition_key: str) -> SeasonView:
    if access.profile(user).role != "admin":
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            "only a league admin sees the season report: it counts every organisation's requests",
        )
    competition = m.Competition.objects.filter(key=competition_key).first()
    if competition is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'no competition "{competition_key}"')
    document = season_document(competition)
    # A season is seconds of solving: its report is kept for exactly this data (every
    # request, grant, rule and no-show bar is in the document), so a page and its plot, or
    # a second look, decide once. Any change makes another document, hence another key.
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()
    key = f"pitchpass:season:{KEPT_SHAPE}:{digest}"
    kept = cache.get(key)
    if isinstance(kept, dict):
        return SeasonView(**kept)
    scenario, problems, _ = check_document(document)
    if scenario is None:
        first = problems[0]
        raise ServiceError(
            ErrorCode.CONFLICT,
            f"the season does not decide as stored ({len(problems)} problems; first: "
            f"{first.path}: {first.message}); load it again with `pitchpass load`",
        )
    try:
        results = decide(scenario)
    except SolverFailed as failure:
        raise ServiceError(ErrorCode.SOLVER_FAILED, str(failure)) from None
    view = SeasonView(
        competition.key,
        competition.name,
        competition.season is not None,
        len(scenario.matches),
        sum(1 for r in scenario.requests if r.locked),
        season_report(scenario, results),
        share_svg(scenario, results),
        {o.id: o.name for o in scenario.organisations} | {"partners together": "the partners"},
    )
    cache.set(key, dataclasses.asdict(view), KEPT_FOR)
    return view
