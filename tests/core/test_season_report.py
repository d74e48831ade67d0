"""The season report (docs/season-report.md), worked out by hand on
scenarios/season-rules.yaml and on small changes of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pitchpass.core import load_document
from pitchpass.core.deciding.decide import decide
from pitchpass.core.season.season_report import season_report

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "season-rules.yaml"


def report(doc: dict[str, Any]) -> dict[str, Any]:
    scenario = load_document(doc)
    return season_report(scenario, decide(scenario))


def example() -> dict[str, Any]:
    return yaml.safe_load(EXAMPLE.read_text())


def pair(out: dict[str, Any], club: str, to: str) -> dict[str, Any]:
    return next(m for m in out["minimums"] if m["club"] == club and m["to"] == to)


def test_organisations_granted_of_asked_by_zone_and_turns() -> None:
    out = report(example())
    rows = {row["organisation"]: row for row in out["organisations"]}
    assert list(rows) == ["sky-sports", "bt-sport", "documentary"]  # document order
    # Sky: tunnel at m1 and m2, dressing room at m1; BT: tunnel at m3, m4, room at m3.
    assert rows["sky-sports"]["zones"] == [
        {"zone": "home-dressing-room", "granted": 1, "asked": 2},
        {"zone": "tunnel", "granted": 2, "asked": 4},
    ]
    assert (rows["sky-sports"]["granted"], rows["sky-sports"]["asked"]) == (3, 6)
    assert rows["bt-sport"]["turns"] == [2] and rows["sky-sports"]["turns"] == [2]
    assert rows["documentary"]["granted"] == 2 and rows["documentary"]["strikes"] == 0


def test_quota_use_and_refusals() -> None:
    (quota,) = report(example())["quotas"]
    assert quota == {
        "quota": 0, "for": "documentary", "per": "season", "period": "season",
        "counts": "requests", "zones": None, "used": 2, "at_most": 2, "refused": 2,
    }  # fmt: skip


def test_a_refusal_opens_a_debt_that_a_later_grant_pays() -> None:
    out = report(example())
    # North FC refused BT's dressing-room request at m1 (Sky had the one place): a debt,
    # paid at m3, North FC's next home match, where BT was granted.
    bt = pair(out, "north-fc", "bt-sport")
    assert bt["debts"] == [
        {"opened_at": "m1", "request": "d1b", "paid_at": "m3", "refused": ["capacity"]}
    ]
    assert (bt["granted"], bt["met"], bt["owed"]) == (1, True, 0)
    assert (bt["asked"], bt["too_few_asked"]) == (2, False)  # d1b, and m3's granted
    assert pair(out, "north-fc", "sky-sports")["debts"] == []
    # South FC had no dressing-room request: short, but no refusal, so no debt.
    south = pair(out, "south-fc", "sky-sports")
    assert (south["granted"], south["short"], south["debts"]) == (0, 1, [])
    assert (south["asked"], south["too_few_asked"]) == (0, True)  # it could not be met
    # East FC has no home match: no pair.
    assert not [m for m in out["minimums"] if m["club"] == "east-fc"]


def test_a_debt_never_paid_is_owed_and_a_late_refusal_opens_none() -> None:
    doc = example()
    doc["requests"] = [r for r in doc["requests"] if r["id"] != "d3b"]
    late = next(r for r in doc["requests"] if r["id"] == "d3s")
    late["submitted"] = "2026-08-28T10:00:00+01:00"  # within 5 days of m3's kick-off
    out = report(doc)
    bt = pair(out, "north-fc", "bt-sport")
    assert bt["debts"] == [
        {"opened_at": "m1", "request": "d1b", "paid_at": None, "refused": ["capacity"]}
    ]
    assert (bt["owed"], bt["short"], bt["met"]) == (1, 1, False)
    assert pair(out, "north-fc", "sky-sports")["debts"] == []  # d3s was late


def test_rotation_turns_and_spread() -> None:
    (rotation,) = report(example())["rotations"]
    assert rotation["turns"] == [
        {"organisation": "sky-sports", "turns": 2},
        {"organisation": "bt-sport", "turns": 2},
    ]
    assert rotation["spread"] == 0
    doc = example()
    doc["policy"]["season"]["rotations"] = []
    assert report(doc)["rotations"] == []


def test_strikes_count_the_requests_the_no_show_bar_refused() -> None:
    doc = example()
    doc["requests"][0]["no_shows"] = 2
    rows = {row["organisation"]: row for row in report(doc)["organisations"]}
    assert rows["sky-sports"]["strikes"] == 1


def test_a_refusal_counts_only_against_the_quota_that_refused_it() -> None:
    doc = example()
    doc["policy"]["season"]["quotas"].append(
        {"for": "each", "per": "match", "counts": "places", "at_most": 5}
    )
    quotas = report(doc)["quotas"]
    per_match = {q["period"]: q for q in quotas if q["quota"] == 1 and q["for"] == "documentary"}
    assert per_match["m3"]["used"] == 0 and per_match["m3"]["refused"] == 0  # the season's
    (season,) = [q for q in quotas if q["quota"] == 0]
    assert season["refused"] == 2
