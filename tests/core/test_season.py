"""Season rules (docs/scenario-extensions.md, "Season rules"): the engine against the
brute-force oracle (oracle_season.py) on generated small seasons with every rule, and
hand-made cases whose answers are worked out in their comments."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pitchpass.core import load_document
from pitchpass.core.deciding.decide import decide
from pitchpass.core.reading.problems import ScenarioInvalid
from profiles import examples

try:
    from .oracle import locked_within_capacity
    from .oracle_season import oracle_quotas_over, oracle_season
except ImportError:  # tests/core is not a package: pytest puts it on sys.path
    from oracle import locked_within_capacity  # type: ignore[no-redef]
    from oracle_season import oracle_quotas_over, oracle_season  # type: ignore[no-redef]

SEASON_CODES = {"quota", "minimum", "rotation", "season"}
EXAMPLE = Path(__file__).parents[2] / "scenarios" / "season-rules.yaml"
BASE = datetime(2026, 8, 15, 15, 0, tzinfo=UTC)
CLUBS = ["north", "south", "east"]
PARTNERS = ["sky", "bt"]
OTHERS = ["doc", "agency"]


def engine_season(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The engine's answer in the oracle's shape."""
    out = {}
    for result in decide(load_document(doc)):
        for d in result.decisions:
            season = [r for r in d.reasons if r.code.value in SEASON_CODES]
            out[d.request.id] = {
                "status": d.status.value,
                "codes": sorted(r.code.value for r in season),
                "quota": sorted(
                    (r.used, r.capacity, r.needed) for r in season if r.code.value == "quota"
                ),
            }
    return out


# --------------------------------------------------------------------------- strategy


@st.composite
def seasons(draw: st.DrawFn) -> dict[str, Any]:
    """2 to 3 matches of three clubs at two grounds, partners, others; at most 11
    requests; quotas of every kind, a minimum and a rotation, each maybe."""
    zones = [
        {"id": "tunnel", "name": "Tunnel", "capacity": draw(st.integers(1, 4))},
        {"id": "room", "name": "Home dressing room", "capacity": draw(st.integers(1, 3)),
         "via": ["tunnel"], "occupant": "home"},
        {"id": "away-room", "name": "Away dressing room", "capacity": draw(st.integers(1, 2)),
         "via": ["tunnel"], "occupant": "away"},
        {"id": "pitch", "name": "Pitch-side", "capacity": draw(st.integers(0, 4))},
    ]  # fmt: skip
    venues = [
        {"id": "ground-a", "name": "Ground A", "zones": zones},
        {"id": "ground-b", "name": "Ground B", "zones": copy.deepcopy(zones)},
    ]
    venues[1]["zones"][0]["capacity"] = draw(st.integers(1, 4))
    n_matches = draw(st.integers(2, 3))
    matches = []
    for m in range(n_matches):
        home, away = draw(st.permutations(CLUBS))[:2]
        days = draw(st.sampled_from([0, 0, 7])) + 7 * m  # some share a day
        matches.append({
            "id": f"m{m}", "venue": draw(st.sampled_from(["ground-a", "ground-b"])),
            "home": home, "away": away,
            "kickoff": (BASE + timedelta(days=days)).isoformat(),
        })  # fmt: skip
        if draw(st.integers(0, 3)) == 0:
            matches[-1]["host"] = draw(st.sampled_from(PARTNERS))
        if draw(st.integers(0, 2)) == 0:  # docs/section-k.md; else its host televises it
            matches[-1]["televised_by"] = draw(
                st.lists(st.sampled_from([*PARTNERS, "agency"]), max_size=2, unique=True)
            )
    orgs = [*CLUBS, *PARTNERS, *OTHERS]
    requests: list[dict[str, Any]] = []
    for i in range(draw(st.integers(2, 11))):
        match = draw(st.sampled_from(matches))
        zone = draw(st.sampled_from(["tunnel", "tunnel", "room", "away-room", "pitch"]))
        request = {
            "id": f"r{i:02d}", "match": match["id"], "zone": zone,
            "by": draw(st.sampled_from([*orgs, *PARTNERS, *PARTNERS])),
            "phases": draw(st.lists(st.sampled_from(["pre-match", "post-match"]),
                                    min_size=1, max_size=2, unique=True)),
            "crew": draw(st.integers(1, 2)),
            "submitted": (BASE - timedelta(days=draw(st.sampled_from([10, 9, 8, 2])),
                                           hours=draw(st.integers(0, 3)))).isoformat(),
        }  # fmt: skip
        if zone in ("room", "away-room") and draw(st.integers(0, 3)) > 0:
            request["consent"] = [match["home" if zone == "room" else "away"]]
        if draw(st.integers(0, 8)) == 0:
            request["locked"] = True
            if not locked_within_capacity({"venues": venues, "matches": matches,
                                           "requests": [*requests, request]}):  # fmt: skip
                del request["locked"]
        requests.append(request)
    whos = [*PARTNERS, *OTHERS, "each", "partners", "partners together", "kind:producer"]
    quotas = []
    for _ in range(draw(st.integers(0, 2))):
        quota: dict[str, Any] = {
            "for": draw(st.sampled_from(whos)),
            "per": draw(st.sampled_from(["match", "day", "season"])),
            "counts": draw(st.sampled_from(["requests", "places"])),
            "at_most": draw(st.integers(0, 3)),
        }
        if draw(st.booleans()):
            quota["zones"] = draw(st.lists(st.sampled_from(["tunnel", "room", "pitch"]),
                                           min_size=1, max_size=2, unique=True))  # fmt: skip
        quotas.append(quota)
    minimums = []
    for n in range(draw(st.integers(0, 2))):
        minimums.append({
            "name": f"enhancement-{n}",
            "to": draw(st.sampled_from(["partners", "partners together", "sky", "kind:producer",
                                        "televising"])),
            "at_least": draw(st.integers(1, 2)),
            "cells": [{"zone": draw(st.sampled_from(["room", "away-room", "tunnel"])),
                       "phases": draw(st.lists(st.sampled_from(["pre-match", "post-match"]),
                                               min_size=1, max_size=2, unique=True))}],
        })  # fmt: skip
        if draw(st.integers(0, 4)) == 0:  # docs/section-k.md: the five at once
            minimums[-1]["section"] = "K"
            del minimums[-1]["to"]
        for key, options in (("by", ["home", "occupant", "away"]),
                             ("counts", ["requests", "occasions"]),
                             ("rank", ["first", "after-televising"])):  # fmt: skip
            if draw(st.booleans()):
                minimums[-1][key] = draw(st.sampled_from(options))
    rotations = []
    if draw(st.integers(0, 3)) > 0:
        phase = draw(st.sampled_from(["pre-match", "post-match"]))
        tier = draw(st.sampled_from(["partner", "other", "host"]))
        rotations.append({"zone": "tunnel", "phase": phase, "tier": tier})
    if draw(st.integers(0, 3)) == 0:
        rotations.append({"zone": "pitch", "phase": "post-match", "tier": "other"})
    policy: dict[str, Any] = {"season": {"quotas": quotas, "minimums": minimums,
                                         "rotations": rotations}}  # fmt: skip
    if draw(st.integers(0, 3)) == 0:
        policy["within_tier"] = "first-come"
    return {
        "pitchpass": 1,
        "competition": {"id": "league", "name": "League", "partners": PARTNERS},
        "policy": policy,
        "venues": venues,
        "organisations": [
            {
                "id": o,
                "name": o.title(),
                "kind": "club" if o in CLUBS else "producer" if o == "doc" else "broadcaster",
            }
            for o in orgs
        ],
        "matches": matches,
        "requests": requests,
    }


# --------------------------------------------------------------------------- properties


@settings(max_examples=examples(250))
@given(seasons())
def test_the_season_matches_the_oracle(doc: dict[str, Any]) -> None:
    assert engine_season(doc) == oracle_season(doc)


@settings(max_examples=examples(100))
@given(seasons())
def test_rules_that_never_bind_leave_each_match_its_own_decision(doc: dict[str, Any]) -> None:
    """Quotas no document can reach and no minimum or rotation: exactly docs/contract.md."""
    plain = copy.deepcopy(doc)
    del plain["policy"]["season"]
    for quota in doc["policy"]["season"]["quotas"]:
        quota["at_most"] = 1000
    doc["policy"]["season"]["minimums"] = []
    doc["policy"]["season"]["rotations"] = []
    assert decide(load_document(doc)) == decide(load_document(plain))


@settings(max_examples=examples(100))
@given(seasons())
def test_the_season_never_breaks_a_quota_or_a_capacity(doc: dict[str, Any]) -> None:
    results = decide(load_document(doc))
    for result in results:
        assert all(u.used <= u.capacity for u in result.usage)
    granted = [d.request for r in results for d in r.decisions if d.status.value == "granted"]
    for quota in doc["policy"]["season"]["quotas"]:
        if quota["per"] != "season" or quota["for"] not in PARTNERS + OTHERS:
            continue
        counted = [r for r in granted if r.by == quota["for"]
                   and r.zone in quota.get("zones", [r.zone])]  # fmt: skip
        total = sum(r.crew if quota["counts"] == "places" else 1 for r in counted)
        locked = sum(r.crew if quota["counts"] == "places" else 1 for r in counted if r.locked)
        assert total <= max(quota["at_most"], locked)


@settings(max_examples=examples(100))
@given(seasons(), st.randoms(use_true_random=False))
def test_what_a_publish_checks_of_the_quotas_matches_the_oracle(doc: dict[str, Any], rnd) -> None:
    # Any set of requests held (published, and about to be), not only a decided one.
    from pitchpass.core.season.season_rules import quotas_over

    held = [r["id"] for r in doc["requests"] if rnd.random() < 0.6]
    over = quotas_over(load_document(copy.deepcopy(doc)), held)
    expected = oracle_quotas_over(doc, held)
    assert sorted((o.used, o.at_most, list(o.requests)) for o in over) == expected
    # A publish answers for its own grants: only the quotas one of them counts towards.
    newly = held[::2]
    mine = quotas_over(load_document(copy.deepcopy(doc)), held, newly)
    assert sorted((o.used, o.at_most, list(o.requests)) for o in mine) == [
        x for x in expected if set(x[2]) & set(newly)
    ]


# --------------------------------------------------------------------------- by hand


def test_the_example_season() -> None:
    """scenarios/season-rules.yaml: the documentary's quota of 2 stops it at m3 and m4;
    the tunnel place post-match goes to Sky at m1 and m2 (earlier requests), to BT at m3
    and m4 (its turns: 2 each, the leximin); North FC's one dressing-room place before
    kick-off goes to Sky at m1 and to BT at m3, so that each partner has its one."""
    doc = yaml.safe_load(EXAMPLE.read_text())
    answer = engine_season(doc)
    granted = {i for i, a in answer.items() if a["status"] == "granted"}
    assert granted == {"t1s", "t2s", "t3b", "t4b", "d1s", "d3b", "p1", "p2"}
    assert answer["p3"]["quota"] == [(2, 2, 1)]
    assert answer["d3b"]["codes"] == ["minimum"]
    assert answer["d3s"]["codes"] == ["minimum"]
    assert answer["t3s"]["codes"] == ["rotation"]
    assert answer == oracle_season(doc)


def test_a_quota_reason_says_the_numbers() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    reasons = {d.request.id: d.reasons for r in decide(load_document(doc)) for d in r.decisions}
    (quota,) = reasons["p4"]
    assert quota.as_json() == {
        "code": "quota", "used": 2, "at_most": 2, "needed": 1,
        "text": "season quota of Documentary Films reached: 2 of 2 requests",
    }  # fmt: skip


def test_locked_requests_over_a_quota_refuse_the_rest() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    for r in doc["requests"]:
        if r["id"] in ("p3", "p4"):
            r["locked"] = True
    answer = engine_season(doc)
    statuses = [answer[i]["status"] for i in ("p1", "p2", "p3", "p4")]
    assert statuses == ["refused", "refused", "granted", "granted"]
    assert answer["p1"]["quota"] == [(2, 2, 1)]


@pytest.mark.parametrize(
    ("season", "path"),
    [
        ({"quotas": [{"for": "sky-sprots", "per": "season", "counts": "requests", "at_most": 1}]},
         "policy.season.quotas[0].for"),
        ({"quotas": [{"for": "each", "per": "week", "counts": "requests", "at_most": 1}]},
         "policy.season.quotas[0].per"),
        ({"quotas": [{"for": "each", "per": "match", "counts": "crews", "at_most": 1}]},
         "policy.season.quotas[0].counts"),
        ({"quotas": [{"for": "each", "per": "match", "counts": "places", "at_most": -1}]},
         "policy.season.quotas[0].at_most"),
        ({"quotas": [{"for": "each", "per": "match", "counts": "places", "at_most": 1,
                      "zones": ["tunel"]}]}, "policy.season.quotas[0].zones[0]"),
        ({"minimums": [{"name": "e", "to": "each", "at_least": 1,
                        "cells": [{"zone": "tunnel", "phases": ["pre-match"]}]}]},
         "policy.season.minimums[0].to"),
        ({"minimums": [{"name": "e", "to": "partners", "at_least": 0,
                        "cells": [{"zone": "tunnel", "phases": ["pre-match"]}]}]},
         "policy.season.minimums[0].at_least"),
        ({"minimums": [{"name": "e", "to": "partners", "at_least": 1, "cells": []}]},
         "policy.season.minimums[0].cells"),
        ({"minimums": [{"name": "e", "to": "partners", "at_least": 1,
                        "cells": [{"zone": "tunnel", "phases": ["pre-match"]}]}] * 2},
         "policy.season.minimums[1].name"),
        ({"rotations": [{"zone": "tunnel", "phase": "post-match", "tier": "partners"}]},
         "policy.season.rotations[0].tier"),
        ({"rotations": [{"zone": "tunnel", "phase": "post-match", "tier": "partner"}] * 2},
         "policy.season.rotations[1]"),
    ],
)  # fmt: skip
def test_bad_season_rules_are_named_at_their_path(season: dict[str, Any], path: str) -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["policy"]["season"] = season
    with pytest.raises(ScenarioInvalid) as refused:
        load_document(doc)
    assert path in [p.path for p in refused.value.problems]


def test_a_did_you_mean_for_an_unknown_organisation() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["policy"]["season"] = {
        "quotas": [{"for": "sky-sprots", "per": "season", "counts": "requests", "at_most": 1}]
    }
    with pytest.raises(ScenarioInvalid) as refused:
        load_document(doc)
    assert 'did you mean "sky-sports"' in refused.value.problems[0].message


def test_when_the_time_limit_passes_first_the_season_keeps_a_choice_that_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Never "nothing decided": with no time to search, each group keeps the best choice
    found (at worst its first-come choice), within every place and quota, and each of its
    matches says it is not proven the best, in the JSON too."""
    from pitchpass.core.deciding import solver
    from pitchpass.core.explaining.report import match_json
    from pitchpass.core.season.season_report import season_report

    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 1e-9)
    scenario = load_document(yaml.safe_load(EXAMPLE.read_text()))
    results = decide(scenario)
    assert all(u.used <= u.capacity for r in results for u in r.usage)
    assert all(q["used"] <= q["at_most"] for q in season_report(scenario, results)["quotas"])
    linked = [r for r in results if r.unproven]
    assert linked, "the example season links matches through its rules"
    for result in linked:
        said = match_json(result)["unproven"]
        assert [s["message"] for s in said] == [note.text() for note in result.unproven]
        assert all(note.limit == 1e-9 for note in result.unproven)
        assert any(note.where.startswith("the season's ") for note in result.unproven)
    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 60.0)
    assert not any(r.unproven for r in decide(scenario))
    assert all("unproven" not in match_json(r) for r in decide(scenario))


@settings(max_examples=examples(100))
@given(seasons())
def test_each_independent_group_decides_as_the_whole(doc: dict[str, Any]) -> None:
    """What a cluster relies on (pitchpass.cli.cluster): the groups of matches no rule links,
    each decided on its own, give exactly the whole document's decisions."""
    from pitchpass.core.season.season_rules import independent_groups, part_of

    scenario = load_document(doc)
    whole = {r.match.id: r for r in decide(scenario)}
    groups = independent_groups(scenario)
    assert sorted(i for g in groups for i in g) == sorted(whole)
    for group in groups:
        for result in decide(part_of(scenario, group)):
            assert result == whole[result.match.id]


def test_a_huge_minimum_makes_no_more_of_the_model_than_its_requests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """at_least may be up to 1,000,000: the model counts only what could meet it (it once
    made a variable for each, and took gigabytes)."""
    from pitchpass.core.deciding import solver

    made: list[int] = []
    solve = solver.solve_lexicographic

    def counting(names: Any, *rest: Any, **named: Any) -> Any:
        made.append(len(names))
        return solve(names, *rest, **named)

    monkeypatch.setattr(solver, "solve_lexicographic", counting)
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["policy"]["season"]["minimums"][0]["at_least"] = 1_000_000
    answer = engine_season(doc)
    assert made and max(made) < 100
    assert answer == oracle_season(doc)


def test_a_refusal_at_one_remove_names_the_rules() -> None:
    """The tunnel holds 2 a phase. On its own the match grants the documentary (X, after
    the match) and BT (Z, before it); Sky (Y, both) fits beside neither. The season's quota
    refuses X; Y, sent before Z, then takes the tunnel and Z is refused: by the quota at
    one remove."""
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["policy"]["season"] = {
        "quotas": [{"for": "documentary", "per": "season", "counts": "requests", "at_most": 0}]
    }
    at = "2026-08-01T09:00:00+01:00"
    doc["requests"] = [
        {"id": "x", "match": "m1", "by": "documentary", "zone": "tunnel",
         "phases": ["post-match"], "crew": 2, "submitted": "2026-08-01T08:00:00+01:00"},
        {"id": "y", "match": "m1", "by": "sky-sports", "zone": "tunnel",
         "phases": ["pre-match", "post-match"], "crew": 2, "submitted": at},
        {"id": "z", "match": "m1", "by": "bt-sport", "zone": "tunnel",
         "phases": ["pre-match"], "crew": 2, "submitted": "2026-08-02T09:00:00+01:00"},
    ]  # fmt: skip
    answer = engine_season(doc)
    assert {i: a["status"] for i, a in answer.items()} == {
        "x": "refused", "y": "granted", "z": "refused"
    }  # fmt: skip
    assert answer["x"]["codes"] == ["quota"] and answer["z"]["codes"] == ["season"]
    assert answer == oracle_season(doc)
    (reason,) = [
        r for result in decide(load_document(doc)) for d in result.decisions
        for r in d.reasons if d.request.id == "z" and r.code.value == "season"
    ]  # fmt: skip
    assert "season quota of Documentary Films" in reason.text


def test_a_misspelt_season_rule_key_is_an_error_not_a_warning() -> None:
    """`rotation:` for `rotations:` would drop the rule, `zone:` for `zones:` widen a quota
    to every zone: either changes the season's decisions without a word."""
    doc = yaml.safe_load(EXAMPLE.read_text())
    season = doc["policy"]["season"]
    season["rotation"] = season.pop("rotations")
    season["quotas"][0]["zone"] = ["pitch-side"]
    with pytest.raises(ScenarioInvalid) as refused:
        load_document(doc)
    said = {p.path: p.message for p in refused.value.problems}
    assert 'did you mean "rotations"' in said["policy.season.rotation"]
    assert 'did you mean "zones"' in said["policy.season.quotas[0].zone"]


def test_where_the_season_stands_for_a_match_counts_the_places_held() -> None:
    """scenarios/season-rules.yaml with m1 published (t1s, d1s, p1) and m2 (t2b, p2): at
    m3 the documentary has used its quota of 2, North FC has given Sky its enhancement
    and owes BT one with m3 its last home match, and the partners have a tunnel turn each."""
    from pitchpass.core.season.season_rules import MinimumOwed, QuotaUse, Turns, standing

    doc = yaml.safe_load(EXAMPLE.read_text())
    held = {"t1s", "d1s", "p1", "t2b", "p2"}
    for r in doc["requests"]:
        r["locked"] = r["id"] in held
    found = standing(load_document(doc), "m3")
    assert found.quotas == (QuotaUse("season quota of Documentary Films", 2, 2, "requests"),)
    assert found.minimums == (
        MinimumOwed("enhancements", "North FC", "Sky Sports", 1, 1, 1, club_id="north-fc"),
        MinimumOwed("enhancements", "North FC", "BT Sport", 0, 1, 1, club_id="north-fc"),
    )
    assert found.rotations == (
        Turns("tunnel", "post-match", "partner", (("BT Sport", 1), ("Sky Sports", 1))),
    )
