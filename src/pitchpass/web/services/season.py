"""A competition's season report on the desk (issue 12, section 2; docs/season-report.md):
the competition as it stands, its published grants fixed and every other request decided
by the season rules stored with it (core.season_decide), then reported (core.season_report).
It counts every organisation's requests, so only a league admin sees it. The desk itself
still decides and publishes each match on its own: this page says what the rules give."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User

from pitchpass.core import check_document
from pitchpass.core.decide import MatchResult, decide
from pitchpass.core.model import Scenario
from pitchpass.core.problems import SolverFailed
from pitchpass.core.season_report import season_report
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.fixtures_store import season_document
from pitchpass.web.services import access


@dataclass(frozen=True)
class SeasonView:
    competition: str
    name: str
    rules: bool  # whether the competition has season rules stored
    matches: int
    published: int  # published grants: fixed in the decision
    report: dict[str, Any]
    scenario: Scenario
    results: tuple[MatchResult, ...]

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
    scenario, problems, _ = check_document(season_document(competition))
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
    return SeasonView(
        competition.key,
        competition.name,
        competition.season is not None,
        len(scenario.matches),
        sum(1 for r in scenario.requests if r.locked),
        season_report(scenario, results),
        scenario,
        results,
    )
