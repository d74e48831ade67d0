"""The price of deciding match by match (core/season/hindsight.py, issue 27 section 4): the
season as published match by match, each match decided in kick-off order with what the
matches before it granted held, against the season decided jointly with hindsight."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from pitchpass.core import load_document
from pitchpass.core.deciding.decide import decide
from pitchpass.core.season.hindsight import compared, hindsight, match_by_match

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "season-rules.yaml"


def _example() -> dict[str, Any]:
    return yaml.safe_load(EXAMPLE.read_text())


def _granted(results: Any) -> set[str]:
    return {d.request.id for r in results for d in r.decisions if d.status.value == "granted"}


def test_a_quota_spent_early_refuses_a_request_hindsight_would_grant() -> None:
    """The documentary's quota is 2 a season; its request for m3 was sent first of all.
    Match by match, m1 and m2 come first and spend the quota (p1, p2): p3 is refused for
    the quota. With hindsight, the earliest sent are granted: p3, then p1."""
    doc = _example()
    p3 = next(r for r in doc["requests"] if r["id"] == "p3")
    p3["submitted"] = "2026-07-01T08:00:00+01:00"
    scenario = load_document(doc)
    found = hindsight(scenario)
    assert {"p1", "p2"} <= _granted(found.match_by_match) and "p3" not in _granted(
        found.match_by_match
    )
    assert {"p3", "p1"} <= _granted(found.jointly) and "p2" not in _granted(found.jointly)
    report = compared(scenario, found)
    avoidable = {x["request"]: x for x in report["avoidable"]}
    assert "p3" in avoidable and avoidable["p3"]["match"] == "m3"
    assert any("season quota of Documentary Films" in t for t in avoidable["p3"]["reasons"])
    assert "p2" in {x["request"] for x in report["hindsight_refuses"]}
    docs = next(o for o in report["organisations"] if o["organisation"] == "documentary")
    assert (docs["match_by_match"], docs["hindsight"]) == (2, 2)  # as many: other matches


def test_each_match_is_decided_as_the_desk_decides_it_when_it_comes() -> None:
    """The first match is decided with nothing before it; each later one as the file
    decides it with the grants before it locked and the matches after it left out."""
    doc = _example()
    results = {r.match.id: r for r in match_by_match(load_document(doc))}
    granted: set[str] = set()
    for match in ("m1", "m2", "m3", "m4"):
        before = [m["id"] for m in doc["matches"]][: ["m1", "m2", "m3", "m4"].index(match) + 1]
        alone = copy.deepcopy(doc)
        alone["matches"] = [m for m in doc["matches"] if m["id"] in before]
        alone["requests"] = [
            {**r, "locked": True} for r in doc["requests"] if r["id"] in granted
        ] + [r for r in doc["requests"] if r["match"] == match]
        (expected,) = [r for r in decide(load_document(alone)) if r.match.id == match]
        assert results[match].decisions == expected.decisions, match
        granted |= _granted([expected])


def test_grants_published_at_later_matches_are_held_from_the_first_decide_on() -> None:
    """As on the desk: p3 and p4 (the documentary's, at m3 and m4) are published already,
    2 of its quota of 2. Match by match, m1 is decided with them held: p1 is refused for
    the quota (it was granted when only earlier matches were held)."""
    doc = _example()
    for r in doc["requests"]:
        if r["id"] in ("p3", "p4"):
            r["locked"] = True
    found = match_by_match(load_document(doc))
    p1 = next(d for r in found for d in r.decisions if d.request.id == "p1")
    assert p1.status.value == "refused"
    assert any(reason.code.value == "quota" for reason in p1.reasons)
    assert {"p3", "p4"} <= _granted(found)


def test_without_season_rules_hindsight_changes_nothing() -> None:
    doc = _example()
    del doc["policy"]["season"]
    scenario = load_document(doc)
    found = hindsight(scenario)
    assert found.match_by_match == found.jointly == decide(scenario)
    report = compared(scenario, found)
    assert report["avoidable"] == report["hindsight_refuses"] == []
    assert report["granted"]["match_by_match"] == report["granted"]["hindsight"]
