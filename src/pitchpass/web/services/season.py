"""A competition's season report on the desk (issue 12, section 2; docs/season-report.md):
the competition as it stands, its published grants fixed and every other request decided
by the season rules stored with it (core.season_decide), then reported (core.season_report).
It counts every organisation's requests, so only a league admin sees it. The desk itself
still decides and publishes each match on its own: this page says what the rules give."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache

from pitchpass.core import check_document
from pitchpass.core.deciding.decide import decide
from pitchpass.core.explaining.report import unproven_texts
from pitchpass.core.model import SeasonRules
from pitchpass.core.reading.problems import SolverFailed
from pitchpass.core.season.season_plot import legend, share_svg
from pitchpass.core.season.season_report import season_report
from pitchpass.core.season.season_rules import describe, names_of
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.fixtures_store import season_document, season_version
from pitchpass.web.services import access

KEPT_FOR = 24 * 3600  # seconds a season's report is kept under one version of its data
KEPT_SHAPE = 7  # in the cache key: a SeasonView of another shape is never read back
PER_PAGE = 50  # rows of a long table (quotas, minimums) on one page


@dataclass(frozen=True)
class SeasonView:
    competition: str
    name: str
    rules: bool  # whether the competition has season rules stored
    matches: int
    published: int  # published grants: fixed in the decision
    report: dict[str, Any]
    plot: str  # the SVG of each organisation's share (pitchpass.core.season.season_plot)
    names: dict[str, str]  # organisation id -> name, for the page
    sides: dict[str, list[str]]  # match -> [home club, away club], for the club filter
    clubs: list[str]  # the clubs' ids, in the document's order
    rule_names: list[tuple[str, str]]  # ("quota:0", "quota of ... a match") for the filter
    unproven: list[str]  # where the solver's time limit passed first (the best found kept)
    legend: list[tuple[str, str, int]]  # the plot's: (name, colour, granted)

    def called(self, org: str) -> str:
        """An organisation's name (`partners together`: "the partners")."""
        return self.names.get(org, org)

    def as_json(self) -> dict[str, Any]:
        out = {
            "competition": self.competition,
            "name": self.name,
            "rules": self.rules,
            "matches": self.matches,
            "published": self.published,
            **self.report,
        }
        return {**out, "unproven": self.unproven} if self.unproven else out


def competitions(user: User) -> list[tuple[str, str]]:
    """(key, name) of each competition whose season report the user may see."""
    if access.profile(user).role != "admin":
        return []
    return list(m.Competition.objects.order_by("name", "key").values_list("key", "name"))


def check_season(user: User, competition_key: str) -> m.Competition:
    """The competition, if the user may see its season (a league admin: the season counts
    every organisation's requests). No locks."""
    if access.profile(user).role != "admin":
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            "only a league admin sees the season report: it counts every organisation's requests",
        )
    competition = m.Competition.objects.filter(key=competition_key).first()
    if competition is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'no competition "{competition_key}"')
    return competition


def season_of(user: User, competition_key: str) -> SeasonView:
    competition = check_season(user, competition_key)
    # A season is seconds of solving: its report is kept under the version of the data it
    # was worked out from (one query: every write moves it on), so a page and its plot, or
    # a second look, decide once, and a look after any change decides again.
    key = f"pitchpass:season:{KEPT_SHAPE}:{season_version(competition)}"
    kept = cache.get(key)
    if isinstance(kept, dict):
        return SeasonView(**kept)
    document = season_document(competition)
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
    names = names_of(scenario)
    rules = scenario.policy.season
    view = SeasonView(
        competition.key,
        competition.name,
        competition.season is not None,
        len(scenario.matches),
        sum(1 for r in scenario.requests if r.locked),
        season_report(scenario, results),
        share_svg(scenario, results),
        names | {"partners together": "the partners"},
        {x.id: [x.home, x.away] for x in scenario.matches},
        list(dict.fromkeys(c for x in scenario.matches for c in (x.home, x.away))),
        [] if rules is None else _rule_names(rules, names),
        unproven_texts(results),
        legend(scenario, results),
    )
    cache.set(key, dataclasses.asdict(view), KEPT_FOR)
    return view


def _rule_names(rules: SeasonRules, names: dict[str, str]) -> list[tuple[str, str]]:
    """Each season rule as the filter offers it: its value and its name in words."""

    def whom(who: str) -> str:
        if who == "each":
            return "each organisation"
        return f"each {who[5:]}" if who.startswith("kind:") else describe(who, names)

    out = [
        (f"quota:{n}", f"quota {n + 1}: {whom(q.who)}, at most {q.at_most} {q.counts} a {q.per}")
        for n, q in enumerate(rules.quotas)
    ]
    out += [(f"minimum:{x.name}", f'minimum "{x.name}"') for x in rules.minimums]
    out += [
        (f"rotation:{n}", f"rotation of {r.zone}, {r.phase} ({r.tier})")
        for n, r in enumerate(rules.rotations)
    ]
    return out


@dataclass(frozen=True)
class Paged:
    """One page of a long table's rows (filtered), and where it stands."""

    rows: list[dict[str, Any]]
    page: int  # 1-based
    pages: int
    total: int  # rows after the filters


@dataclass(frozen=True)
class SeasonPage:
    """The season page as a league admin asked for it: a summary of the whole season,
    then each table filtered (by organisation, club and rule) and the long ones paged."""

    view: SeasonView
    summary: dict[str, Any]
    organisations: list[dict[str, Any]]
    quotas: Paged
    minimums: Paged
    rotations: list[dict[str, Any]]
    filters: dict[str, str]
    options: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    shown: frozenset[str] = frozenset({"quota", "minimum", "rotation"})  # the rule filter's
    ignored: list[str] = field(default_factory=list)  # filters asked for that this season lacks
    occasions: bool = False  # a minimum counts occasions (docs/section-k.md): the page says how


def season_page(
    user: User, competition_key: str, filters: dict[str, str], pages: dict[str, str]
) -> SeasonPage:
    """The season report (season_of) summarised, filtered and paged. `filters`: `org` (an
    organisation: its own rows, and the rules for or of it), `club` (a club: its rows,
    its minimums, the quotas of its matches), `rule` (one rule's rows: "quota:0",
    "minimum:NAME", "rotation:0"); an unknown value is not used, and `ignored` says so.
    `pages`: `quotas` and `minimums`, 1-based, clamped to the pages there are."""
    view = season_of(user, competition_key)
    report = view.report
    org = filters.get("org", "") if filters.get("org", "") in view.names else ""
    club = filters.get("club", "") if filters.get("club", "") in view.clubs else ""
    rule = filters.get("rule", "")
    rule = rule if rule in {value for value, _ in view.rule_names} else ""
    kind, _, which = rule.partition(":")
    quotas = [
        q for q in report["quotas"]
        if (not org or q["for"] == org)
        and (not club or club in view.sides.get(q["period"], []) or q["for"] == club)
        and (kind in ("", "quota") and (kind != "quota" or str(q["quota"]) == which))
    ]  # fmt: skip
    minimums = [
        x for x in report["minimums"]
        if (not org or org in (x["club"], x["to"]))
        and (not club or x["club"] == club)
        and (kind in ("", "minimum") and (kind != "minimum" or x["minimum"] == which))
    ]  # fmt: skip
    rotations = [
        {**r, "turns": [t for t in r["turns"] if not org or t["organisation"] == org]}
        for n, r in enumerate(report["rotations"])
        if kind in ("", "rotation") and (kind != "rotation" or str(n) == which)
    ]
    # The organisations' rows are season totals: the club filter does not split them.
    organisations = [o for o in report["organisations"] if not org or o["organisation"] == org]
    options = {
        "org": sorted(((k, v) for k, v in view.names.items() if k != "partners together"),
                      key=lambda kv: kv[1].lower()),
        "club": [(c, view.called(c)) for c in view.clubs],
        "rule": view.rule_names,
    }  # fmt: skip
    used = {"org": org, "club": club, "rule": rule}
    what = {"org": "organisation", "club": "club", "rule": "rule"}
    ignored = [
        f'no {what[k]} "{asked[:40]}{"..." if len(asked) > 40 else ""}" in this season'
        for k in ("org", "club", "rule")
        if (asked := filters.get(k, "")) and not used[k]
    ]
    return SeasonPage(
        view,
        _summary(view),
        organisations,
        _paged(quotas, pages.get("quotas", "")),
        _paged(minimums, pages.get("minimums", "")),
        rotations,
        used,
        options,
        frozenset({kind}) if kind else frozenset({"quota", "minimum", "rotation"}),
        ignored,
        any(x.get("counts") == "occasions" for x in minimums),
    )


def _paged(rows: list[dict[str, Any]], asked: str) -> Paged:
    pages = max(1, math.ceil(len(rows) / PER_PAGE))
    page = int(asked) if asked.isascii() and asked.isdigit() and len(asked) < 7 else 1
    page = min(max(page, 1), pages)
    return Paged(rows[(page - 1) * PER_PAGE : page * PER_PAGE], page, pages, len(rows))


def _summary(view: SeasonView) -> dict[str, Any]:
    """The whole season in a few numbers, first on the page."""
    report = view.report
    quotas, minimums = report["quotas"], report["minimums"]
    return {
        "granted": sum(o["granted"] for o in report["organisations"]),
        "asked": sum(o["asked"] for o in report["organisations"]),
        "quotas": len(quotas),
        "quotas_full": sum(1 for q in quotas if q["used"] >= q["at_most"]),
        "quota_refused": sum(q["refused"] for q in quotas),
        "minimums": len(minimums),
        "minimums_short": sum(1 for x in minimums if not x["met"]),
        # of those, the pairs whose organisation asked fewer than the minimum: never meetable
        "minimums_unasked": sum(1 for x in minimums if not x["met"] and x["too_few_asked"]),
        "debts_owed": sum(x["owed"] for x in minimums),
        "spreads": [(r["zone"], r["phase"], r["tier"], r["spread"]) for r in report["rotations"]],
    }
