"""Section K as the league writes it (docs/section-k.md): the contract's by-hand examples,
each worked out in its docstring, decided by the engine and by the brute-force oracle
(oracle_season.py), and the season report's pairs and debts."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pitchpass.core import load_document
from pitchpass.core.codes import Status
from pitchpass.core.deciding.decide import decide
from pitchpass.core.reading.problems import ScenarioInvalid
from pitchpass.core.season.season_report import season_report
from profiles import examples

try:
    from .oracle import locked_within_capacity
    from .oracle_season import oracle_season
    from .test_season import engine_season, seasons
except ImportError:  # tests/core is not a package: pytest puts it on sys.path
    from oracle import locked_within_capacity  # type: ignore[no-redef]
    from oracle_season import oracle_season  # type: ignore[no-redef]
    from test_season import engine_season, seasons  # type: ignore[no-redef]

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "section-k.yaml"
ROOM = {"zone": "room", "phases": ["pre-match"]}
AWAY_ROOM = {"zone": "away-room", "phases": ["pre-match"]}


def season(minimum: dict[str, Any], matches: list[dict[str, Any]],
           requests: list[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """A document of three clubs at one ground, Sky and BT (partners), one minimum."""
    zones = [
        {"id": "tunnel", "name": "Tunnel", "capacity": 6},
        {"id": "room", "name": "Home dressing room", "capacity": 1, "occupant": "home"},
        {"id": "away-room", "name": "Away dressing room", "capacity": 1, "occupant": "away"},
    ]
    for m in matches:
        m.setdefault("venue", "ground")
    for n, r in enumerate(requests):
        r.setdefault("phases", ["pre-match"])
        r.setdefault("crew", 1)
        r.setdefault("submitted", f"2026-08-01T{9 + n:02d}:00:00+00:00")  # in listed order
    return {
        "pitchpass": 1,
        "competition": {"id": "league", "name": "League", "partners": ["sky", "bt"]},
        "policy": {"season": {"minimums": [{"name": "Section K", "at_least": 1, **minimum}]}},
        "venues": [{"id": "ground", "name": "Ground", "zones": zones}],
        "organisations": [
            {"id": "north", "name": "North FC", "kind": "club"},
            {"id": "south", "name": "South FC", "kind": "club"},
            {"id": "east", "name": "East FC", "kind": "club"},
            {"id": "sky", "name": "Sky Sports", "kind": "broadcaster"},
            {"id": "bt", "name": "BT Sport", "kind": "broadcaster"},
        ],
        "matches": matches,
        "requests": requests,
    }


def granted(doc: dict[str, Any]) -> set[str]:
    answer = engine_season(doc)
    assert answer == oracle_season(doc)
    return {i for i, a in answer.items() if a["status"] == "granted"}


def pairs(doc: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    scenario = load_document(doc)
    report = season_report(scenario, decide(scenario))
    return {(x["club"], x["to"]): x for x in report["minimums"]}


def test_owed_to_the_broadcaster_televising_the_match() -> None:
    """Example 1. Sky televises A, BT televises B, North at home at both; one place in the
    room at A, asked by BT first and Sky after. `to: televising`: at A only Sky is owed
    (BT's grant there would count nothing), so Sky is granted to meet it; BT's pair is
    met only at B, where it asked nothing. With `to: partners` both are owed at A and
    the one place goes to the earlier request, BT's."""
    matches = [
        {"id": "a", "home": "north", "away": "south", "kickoff": "2026-08-15T15:00:00+00:00",
         "televised_by": ["sky"]},
        {"id": "b", "home": "north", "away": "east", "kickoff": "2026-08-22T15:00:00+00:00",
         "televised_by": ["bt"]},
    ]  # fmt: skip
    requests = [
        {"id": "bt-a", "match": "a", "by": "bt", "zone": "room", "consent": ["north"]},
        {"id": "sky-a", "match": "a", "by": "sky", "zone": "room", "consent": ["north"]},
    ]
    doc = season({"to": "televising", "cells": [ROOM]}, matches, requests)
    assert granted(doc) == {"sky-a"}
    assert engine_season(doc)["sky-a"]["codes"] == ["minimum"]
    said = [r.text for r in decide(load_document(doc))[0].decisions[1].reasons]
    assert said == ['granted to meet the season minimum "Section K": North FC grants Sky Sports'
                    " (televising) at least 1 a season (1 granted)"]  # fmt: skip
    report = pairs(doc)
    assert (report["north", "sky"]["granted"], report["north", "bt"]["granted"]) == (1, 0)
    assert report["north", "bt"]["asked"] == 0  # a grant at A would not have counted
    partners = copy.deepcopy(doc)
    partners["policy"]["season"]["minimums"][0].update(to="partners", rank="first")
    assert granted(partners) == {"bt-a"}


def test_a_match_without_televised_by_is_televised_by_its_host() -> None:
    matches = [{"id": "a", "home": "north", "away": "south", "host": "bt",
                "kickoff": "2026-08-15T15:00:00+00:00"}]  # fmt: skip
    requests = [
        {"id": "sky-a", "match": "a", "by": "sky", "zone": "room", "consent": ["north"]},
        {"id": "bt-a", "match": "a", "by": "bt", "zone": "room", "consent": ["north"]},
    ]
    doc = season({"to": "televising", "cells": [ROOM]}, matches, requests)
    assert granted(doc) == {"bt-a"}  # BT, the host, is owed; Sky asked first but is not
    assert set(pairs(doc)) == {("north", "bt")}


def test_the_away_dressing_room_is_owed_by_the_away_club() -> None:
    """Example 2. Sky's visit to North's room at X (published) counts for North. At Y
    (North at home to South) one place in the away room, asked by BT first and Sky after.
    `by: occupant`: the away room is South's, which owes Sky its one, so Sky is granted.
    `by: home` credits the away room to North, whose one Sky has had: BT, the earlier."""
    matches = [
        {"id": "x", "home": "north", "away": "east", "kickoff": "2026-08-15T15:00:00+00:00"},
        {"id": "y", "home": "north", "away": "south", "kickoff": "2026-08-22T15:00:00+00:00"},
    ]
    requests = [
        {"id": "sky-x", "match": "x", "by": "sky", "zone": "room", "consent": ["north"],
         "locked": True},
        {"id": "bt-y", "match": "y", "by": "bt", "zone": "away-room", "consent": ["south"]},
        {"id": "sky-y", "match": "y", "by": "sky", "zone": "away-room", "consent": ["south"]},
    ]  # fmt: skip
    doc = season({"to": "sky", "by": "occupant", "cells": [ROOM, AWAY_ROOM]}, matches, requests)
    assert granted(doc) == {"sky-x", "sky-y"}
    report = pairs(doc)
    assert (report["north", "sky"]["granted"], report["south", "sky"]["granted"]) == (1, 1)
    home = copy.deepcopy(doc)
    home["policy"]["season"]["minimums"][0]["by"] = "home"
    assert granted(home) == {"sky-x", "bt-y"}
    assert pairs(home)["north", "sky"]["granted"] == 1 and ("south", "sky") not in pairs(home)


def test_two_grants_at_one_match_are_one_occasion() -> None:
    """Example 3. Sky is owed 2 by North. At M1 two places in the room: BT asks first, then
    Sky twice; at M2 one place, asked by BT alone. Counted in requests, Sky's two at M1
    meet it, and BT is refused there. In occasions they count 1, as one does: the minimum
    cannot be met (one short), and BT, the earliest, keeps its place at M1."""
    matches = [
        {"id": "m1", "home": "north", "away": "south", "kickoff": "2026-08-15T15:00:00+00:00"},
        {"id": "m2", "home": "north", "away": "east", "kickoff": "2026-08-22T15:00:00+00:00"},
    ]
    requests = [
        {"id": "bt1", "match": "m1", "by": "bt", "zone": "room", "consent": ["north"]},
        {"id": "sky1", "match": "m1", "by": "sky", "zone": "room", "consent": ["north"]},
        {"id": "sky1b", "match": "m1", "by": "sky", "zone": "room", "consent": ["north"]},
        {"id": "bt2", "match": "m2", "by": "bt", "zone": "room", "consent": ["north"]},
    ]
    doc = season({"to": "sky", "at_least": 2, "counts": "occasions", "cells": [ROOM]},
                 matches, requests)  # fmt: skip
    doc["venues"][0]["zones"][1]["capacity"] = 2
    assert granted(doc) == {"bt1", "sky1", "bt2"}
    assert (pairs(doc)["north", "sky"]["granted"], pairs(doc)["north", "sky"]["short"]) == (1, 1)
    per_request = copy.deepcopy(doc)
    del per_request["policy"]["season"]["minimums"][0]["counts"]
    assert granted(per_request) == {"sky1", "sky1b", "bt2"}
    assert pairs(per_request)["north", "sky"]["granted"] == 2


def test_a_debt_opens_only_for_the_clubs_own_refusal() -> None:
    """Example 4. Sky is owed 2 by North. At M1 North refuses consent for Sky's visit; at
    M2 the room is closed to it for lack of room (capacity 0). `debts: club-refusal`: one
    debt, M1's; `any-refusal` (today's): two."""
    matches = [
        {"id": "m1", "home": "north", "away": "south", "kickoff": "2026-08-15T15:00:00+00:00"},
        {"id": "m2", "home": "north", "away": "east", "kickoff": "2026-08-22T15:00:00+00:00",
         "venue": "full"},
    ]  # fmt: skip
    requests = [
        {"id": "sky1", "match": "m1", "by": "sky", "zone": "room"},  # no consent given
        {"id": "sky2", "match": "m2", "by": "sky", "zone": "room", "consent": ["north"]},
    ]
    doc = season({"to": "sky", "at_least": 2, "debts": "club-refusal", "cells": [ROOM]},
                 matches, requests)  # fmt: skip
    full = copy.deepcopy(doc["venues"][0])
    full["id"], full["zones"][1]["capacity"] = "full", 0
    doc["venues"].append(full)
    assert granted(doc) == set()
    debts = pairs(doc)["north", "sky"]["debts"]
    assert [(d["opened_at"], d["request"]) for d in debts] == [("m1", "sky1")]
    anyway = copy.deepcopy(doc)
    del anyway["policy"]["season"]["minimums"][0]["debts"]
    assert [d["request"] for d in pairs(anyway)["north", "sky"]["debts"]] == ["sky1", "sky2"]


def test_a_minimum_ranked_after_the_televising_never_takes_the_hosts_place() -> None:
    """Example 5. Sky hosts (and so televises) A; one place in North's room, asked by Sky
    and by BT, whom North owes its one visit (`to: bt`). Ranked first (today's), the
    minimum comes before every tier: BT. Ranked `after-televising` (the default): Sky,
    the host."""
    matches = [{"id": "a", "home": "north", "away": "south", "host": "sky",
                "kickoff": "2026-08-15T15:00:00+00:00"}]  # fmt: skip
    requests = [
        {"id": "sky-a", "match": "a", "by": "sky", "zone": "room", "consent": ["north"]},
        {"id": "bt-a", "match": "a", "by": "bt", "zone": "room", "consent": ["north"]},
    ]
    doc = season({"to": "bt", "cells": [ROOM]}, matches, requests)  # the default rank
    assert granted(doc) == {"sky-a"}
    first = copy.deepcopy(doc)
    first["policy"]["season"]["minimums"][0]["rank"] = "first"
    assert granted(first) == {"bt-a"}
    assert engine_season(first)["bt-a"]["codes"] == ["minimum"]


def test_the_example_file() -> None:
    """scenarios/section-k.yaml, as its comments tell it."""
    doc = yaml.safe_load(EXAMPLE.read_text())
    assert granted(doc) == {"s1", "s1a", "b2", "s4", "s4b", "s4a"}
    report = pairs(doc)
    assert {pair: (x["granted"], x["met"]) for pair, x in report.items()} == {
        ("north-fc", "sky-sports"): (2, True),  # m1's home room, m4's away room
        ("north-fc", "bt-sport"): (0, False),
        ("south-fc", "sky-sports"): (2, True),  # m1's away room, m4 (two crews: one)
        ("south-fc", "bt-sport"): (1, True),
        ("east-fc", "bt-sport"): (0, False),
    }
    assert [(d["opened_at"], d["request"]) for d in report["north-fc", "bt-sport"]["debts"]] == [
        ("m3", "b3")
    ]
    assert report["east-fc", "bt-sport"]["too_few_asked"]


def test_section_k_sets_the_five_fields_and_a_field_beside_it_wins() -> None:
    doc = season({"section": "K", "counts": "requests", "cells": [ROOM]}, [
        {"id": "a", "home": "north", "away": "south", "kickoff": "2026-08-15T15:00:00+00:00"},
    ], [])  # fmt: skip
    rules = load_document(doc).policy.season
    assert rules is not None
    minimum = rules.minimums[0]
    assert (minimum.to, minimum.by, minimum.counts, minimum.debts, minimum.rank) == (
        "televising",
        "occupant",
        "requests",
        "club-refusal",
        "after-televising",
    )


@pytest.mark.parametrize(
    ("change", "path", "said"),
    [
        (lambda d: d["matches"][0].update(televised_by=["north"]),
         "matches[0].televised_by[0]", "is a club, not a broadcaster"),
        (lambda d: d["matches"][0].update(televised_by=["skyy"]),
         "matches[0].televised_by[0]", 'did you mean "sky"'),
        (lambda d: d["matches"][0].update(televised_by=["sky", "sky"]),
         "matches[0].televised_by[1]", "listed twice"),
        (lambda d: d["matches"][0].update(televised_by="sky"),
         "matches[0].televised_by", "must be a list"),
        (lambda d: d["policy"]["season"]["minimums"][0].update(by="visitor"),
         "policy.season.minimums[0].by", "must be one of home, occupant, away"),
        (lambda d: d["policy"]["season"]["minimums"][0].update(counts="occasion"),
         "policy.season.minimums[0].counts", 'did you mean "occasions"'),
        (lambda d: d["policy"]["season"]["minimums"][0].update(section="J"),
         "policy.season.minimums[0].section", "must be one of K"),
        (lambda d: d["policy"]["season"]["minimums"][0].update(to="televisng"),
         "policy.season.minimums[0].to", "televising"),
    ],
)  # fmt: skip
def test_bad_section_k_fields_are_named_at_their_path(change, path: str, said: str) -> None:
    doc = season({"to": "sky", "cells": [ROOM]}, [
        {"id": "a", "home": "north", "away": "south", "kickoff": "2026-08-15T15:00:00+00:00"},
    ], [])  # fmt: skip
    change(doc)
    with pytest.raises(ScenarioInvalid) as caught:
        load_document(doc)
    found = [p for p in caught.value.problems if p.path == path]
    assert found and said in found[0].message, caught.value.problems


@st.composite
def dressing_rooms(draw: st.DrawFn) -> dict[str, Any]:
    """A generated season (test_season.seasons) where the minimums are in play: most
    requests are one person's, for a dressing room of one place or two, with the
    occupant's consent (or its refusal); matches televised by one or two broadcasters;
    one or two minimums over the rooms with Section K's fields drawn, each maybe."""
    doc = draw(seasons())
    for venue in doc["venues"]:
        venue["zones"][0]["capacity"] = 6  # the tunnel on the way: the rooms are contended
        for zone in venue["zones"][1:3]:  # the rooms: one place each, or two
            zone["capacity"] = draw(st.sampled_from([1, 1, 2]))
    for m in doc["matches"]:
        if draw(st.booleans()):
            m["televised_by"] = draw(st.lists(st.sampled_from(["sky", "bt", "agency"]),
                                              min_size=1, max_size=2, unique=True))  # fmt: skip
    for r in doc["requests"]:
        if draw(st.integers(0, 3)) > 0:
            match = draw(st.sampled_from(doc["matches"][:2]))  # crowded: two matches
            r["match"] = match["id"]
            r["zone"] = draw(st.sampled_from(["room", "away-room"]))
            r["phases"], r["crew"] = ["pre-match"], 1
            r["by"] = draw(st.sampled_from(["sky", "bt", "agency", "doc", match["home"]]))
            r["consent"] = [match["home" if r["zone"] == "room" else "away"]]
            if draw(st.integers(0, 4)) == 0:
                del r["consent"]  # the club refused
            r.pop("locked", None)
    if not locked_within_capacity(doc):  # the rooms have fewer places now
        for r in doc["requests"]:
            r.pop("locked", None)
    minimums = []
    for n in range(draw(st.integers(1, 2))):
        minimum: dict[str, Any] = {
            "name": f"section-k-{n}",
            "at_least": draw(st.integers(1, 3)),
            "cells": [{"zone": zone, "phases": ["pre-match"]}
                      for zone in draw(st.lists(st.sampled_from(["room", "away-room"]),
                                                min_size=1, max_size=2, unique=True))],
        }  # fmt: skip
        if draw(st.booleans()):
            minimum["section"] = "K"
        else:
            minimum["to"] = draw(st.sampled_from(["televising", "partners", "sky", "bt"]))
        for key, options in (("by", ["home", "occupant", "away"]),
                             ("counts", ["requests", "occasions"]),
                             ("rank", ["first", "after-televising"])):  # fmt: skip
            if draw(st.booleans()):
                minimum[key] = draw(st.sampled_from(options))
        minimums.append(minimum)
    doc["policy"]["season"]["minimums"] = minimums
    return doc


@settings(max_examples=examples(250))
@given(dressing_rooms())
def test_seasons_with_section_k_match_the_oracle(doc: dict[str, Any]) -> None:
    assert engine_season(doc) == oracle_season(doc)


def test_the_standing_names_every_club_that_owes_the_televising_broadcaster() -> None:
    """scenarios/section-k.yaml at m2 (South v East, BT's): South owes BT (BT asked for
    South's room) and so does East, whose away room is in the minimum's cells though
    nobody asked for it; East has m2 and m3 left, both BT's."""
    from pitchpass.core.season.season_rules import MinimumOwed, standing

    found = standing(load_document(yaml.safe_load(EXAMPLE.read_text())), "m2")
    assert found.minimums == (
        MinimumOwed("Section K", "South FC", "BT Sport", 0, 1, 1, 0, "occasions", "south-fc"),
        MinimumOwed("Section K", "East FC", "BT Sport", 0, 1, 2, 0, "occasions", "east-fc"),
    )


@settings(max_examples=examples(150))
@given(dressing_rooms())
def test_the_standing_owes_what_the_season_report_owes_before_each_match(
    doc: dict[str, Any],
) -> None:
    """The desk's standing at each match, the season published up to it in kick-off order
    (the grants held, the refusals with their codes), owes the make-up debts that the
    season report's walk has open after that match (both walk core.debts): opened there
    or before, not paid there or before. Once all is published, the report's `owed`."""
    from pitchpass.core.season.season_rules import describe, names_of, standing

    scenario = load_document(doc)
    results = decide(scenario)
    report = season_report(scenario, results)
    names = names_of(scenario)
    decided = {d.request.id: d for result in results for d in result.decisions}
    order = sorted(scenario.matches, key=lambda m: (m.kickoff, m.id))
    for k, match in enumerate(order):
        upto = {m.id for m in order[: k + 1]}
        kept, refused = [], []
        for r in scenario.requests:
            d = decided[r.id]
            if r.match not in upto:
                kept.append(r)
            elif d.status is Status.GRANTED:
                kept.append(dataclasses.replace(r, locked=True))
            else:
                refused.append((r, frozenset(x.code for x in d.reasons)))
        history = dataclasses.replace(scenario, requests=tuple(kept))
        for owed in standing(history, match.id, refused).minimums:
            rows = [
                row for row in report["minimums"]
                if (row["minimum"], describe(row["club"], names), describe(row["to"], names))
                == (owed.name, owed.club, owed.to)
            ]  # fmt: skip
            expected = sum(
                1 for row in rows for debt in row["debts"]
                if debt["opened_at"] in upto and debt["paid_at"] not in upto
            )  # fmt: skip
            if k == len(order) - 1:
                assert expected == sum(row["owed"] for row in rows)
            assert owed.owed == expected, (match.id, owed)
