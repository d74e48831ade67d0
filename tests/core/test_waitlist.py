"""Match day (docs/scenario-extensions.md, "Match day"): the waitlist, its promotion, the
no-show release and the no-show bar, the core against the oracle written from that page
(oracle_waitlist.py) on generated scenarios, and each rule on its own on the seed story."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import fits, venue_of
from oracle_waitlist import (
    oracle_barred,
    oracle_offers,
    oracle_promote,
    oracle_waiting,
    oracle_waitlist,
)
from test_properties import scenarios

from pitchpass.core import load_document
from pitchpass.core.match_day.waitlist import (
    NO_SHOW,
    REQUEST,
    Event,
    Kept,
    barred,
    held_and_waiting,
    offer_until,
    promote,
    waitlist,
)
from pitchpass.core.reading.problems import ScenarioInvalid
from profiles import examples

SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
MATCH = "mun-mci-2017-12-10"


@st.composite
def promotions(draw: st.DrawFn) -> tuple[dict[str, Any], str, list[str], list[str], float | None]:
    """A scenario, a match, the requests held (made locked) and those on the waitlist: the
    held ones always fit (published grants do), the rest of the match's requests wait."""
    doc = draw(scenarios())
    match_id = draw(st.sampled_from([m["id"] for m in doc["matches"]]))
    match = next(m for m in doc["matches"] if m["id"] == match_id)
    zones = {z["id"]: z for z in venue_of(match, doc)["zones"]}
    own = [r for r in doc["requests"] if r["match"] == match_id]
    held: list[dict[str, Any]] = []
    for r in own:
        if draw(st.booleans()) and fits([*held, r], zones):
            held.append(r)
    held_ids = [r["id"] for r in held]
    for r in doc["requests"]:
        r["locked"] = r["id"] in held_ids
    waiting = [r["id"] for r in own if r["id"] not in held_ids and draw(st.integers(0, 4)) > 0]
    minute = draw(st.none() | st.sampled_from([-200.0, -30.0, 0.0, 60.0, 150.0]))
    return doc, match_id, held_ids, waiting, minute


@settings(max_examples=examples(200))
@given(case=promotions())
def test_the_waitlist_and_its_promotion_match_the_oracle(case: Any) -> None:
    doc, match_id, held, waiting, minute = case
    scenario = load_document(copy.deepcopy(doc))
    listed = [w.request for w in waitlist(scenario, match_id, waiting, minute)]
    assert listed == oracle_waitlist(doc, match_id, waiting, minute)
    promotion = promote(scenario, match_id, held, waiting, minute)
    promoted = list(promotion.promoted)
    assert promoted == oracle_promote(doc, match_id, held, waiting, minute)
    offers = oracle_offers(doc, match_id, held, waiting, minute)
    assert {k: list(v) for k, v in promotion.phases.items()} == offers
    # Never a held request taken back, never a place over capacity made by a promotion,
    # and nobody left waiting who would fit beside the held and the promoted (each for
    # its phases still to come).
    match = next(m for m in doc["matches"] if m["id"] == match_id)
    zones = {z["id"]: z for z in venue_of(match, doc)["zones"]}
    ends = {p.id: p.end for p in scenario.phases}

    def to_come(r: dict[str, Any]) -> dict[str, Any]:
        if minute is None:
            return r
        return {**r, "phases": [p for p in r["phases"] if ends[p] > minute]}

    by_id = {r["id"]: r for r in doc["requests"]}
    granted = {d.request.id for d in promotion.result.decisions if d.status == "granted"}
    assert set(held) <= granted
    kept = [by_id[i] for i in held] + [to_come(by_id[i]) for i in promoted]
    assert fits(kept, zones)
    for rid in listed:
        assert to_come(by_id[rid])["phases"], "a request with nothing to come is not listed"
        if rid not in promoted:
            assert not fits([*kept, to_come(by_id[rid])], zones)


def _seed() -> dict[str, Any]:
    return yaml.safe_load(SEED.read_text())


def test_a_freed_place_goes_to_the_first_of_the_waitlist_that_fits() -> None:
    doc = _seed()
    scenario = load_document(copy.deepcopy(doc))
    from pitchpass.core import decide_match

    result = decide_match(scenario, MATCH)
    granted = [d.request.id for d in result.decisions if d.status == "granted"]
    refused = [d.request.id for d in result.decisions if d.status == "refused"]
    on = waitlist(scenario, MATCH, refused)
    assert on and [w.place for w in on] == list(range(1, len(on) + 1))
    # Everyone granted holds their place: nothing is freed, nobody is promoted.
    assert promote(scenario, MATCH, granted, refused).promoted == ()
    # One grant in the tunnel gives its places back: the waitlist is decided again.
    freed = next(
        d.request for d in result.decisions if d.status == "granted" and d.request.zone == "tunnel"
    )
    after = promote(scenario, MATCH, [g for g in granted if g != freed.id], refused)
    assert after.promoted, "a tunnel grant's places freed promote someone"
    assert set(after.promoted) <= {w.request for w in on}


def test_offer_time_and_release_minute() -> None:
    scenario = load_document(_seed())
    plan = scenario.phases
    request = next(r for r in scenario.requests if r.phases == ("post-match",))
    post = next(p for p in plan if p.id == "post-match")
    assert offer_until(request, plan, post.start - 5, 30) == post.start + 25
    # No later than the end of the first of its phases still to come.
    assert offer_until(request, plan, post.end - 10, 30) == post.end


START = datetime(2026, 8, 1, tzinfo=UTC)


@settings(max_examples=examples(300))
@given(
    raw=st.lists(
        st.tuples(st.sampled_from("ab"), st.integers(0, 20), st.sampled_from([NO_SHOW, REQUEST])),
        max_size=14,
    ),
    limit=st.integers(0, 3),
)
def test_the_no_show_bar_matches_the_oracle(raw: Any, limit: int) -> None:
    events = [
        (by, START + timedelta(days=day), kind, f"{by}{n}") for n, (by, day, kind) in enumerate(raw)
    ]
    got = barred([Event(by, at, kind, rid) for by, at, kind, rid in events], limit)
    assert got == oracle_barred(events, limit)


def test_two_no_shows_bar_the_next_request_once() -> None:
    day = timedelta(days=1)
    events = [
        Event("bt", START, NO_SHOW, "m1-r1"),
        Event("bt", START + day, REQUEST, "m2-r1"),  # one no-show so far: not barred
        Event("bt", START + 2 * day, NO_SHOW, "m2-r1"),
        Event("bt", START + 3 * day, REQUEST, "m3-r1"),  # the next after two: barred
        Event("bt", START + 4 * day, REQUEST, "m4-r1"),  # the count started again
        Event("sky", START + 3 * day, REQUEST, "m3-r2"),  # another organisation's
    ]
    assert barred(events, 2) == {"m3-r1": 2}
    assert barred(events, 0) == {}


@pytest.mark.parametrize(
    ("match_day", "where"),
    [
        ({"release_before": 15}, "policy.match_day.release_before"),
        ({"release_before": -1}, "policy.match_day.release_before"),
        ({"accept_within": 0}, "policy.match_day.accept_within"),
        ({"accept_within": 1441}, "policy.match_day.accept_within"),
        ({"no_show_limit": True}, "policy.match_day.no_show_limit"),
        ([5], "policy.match_day"),
    ],
)
def test_bad_match_day_fields_are_named(match_day: Any, where: str) -> None:
    doc = _seed()
    doc.setdefault("policy", {})["match_day"] = match_day
    with pytest.raises(ScenarioInvalid) as caught:
        load_document(doc)
    assert where in [p.path for p in caught.value.problems]


def test_match_day_fields_are_read_and_change_no_decision() -> None:
    from pitchpass.core import decide
    from pitchpass.core.explaining.report import decide_json

    doc = _seed()
    plain = decide_json(decide(load_document(copy.deepcopy(doc))))
    doc.setdefault("policy", {})["match_day"] = {
        "release_before": 10,
        "accept_within": 45,
        "no_show_limit": 0,
    }
    scenario = load_document(copy.deepcopy(doc))
    assert (scenario.policy.match_day.release_before, scenario.policy.match_day.accept_within) == (
        10,
        45,
    )
    assert scenario.policy.match_day.no_show_limit == 0
    assert decide_json(decide(scenario)) == plain


@settings(max_examples=examples(300))
@given(
    rows=st.lists(
        st.tuples(
            st.booleans(), st.booleans(), st.sampled_from([None, "open", "declined", "lapsed"])
        ),
        max_size=6,
    ),
    decided=st.lists(
        st.tuples(
            st.integers(0, 7),
            st.sampled_from(["granted", "refused"]),
            st.sampled_from([[], ["capacity"], ["override"], ["late"]]),
        ),
        max_size=8,
        unique_by=lambda d: d[0],
    ),
    published=st.booleans(),
)
def test_who_holds_and_who_waits_matches_the_oracle(
    rows: Any, decided: Any, published: bool
) -> None:
    kept = {
        f"r{n}": {"locked": lock, "current": cur, "offer": offer}
        for n, (lock, cur, offer) in enumerate(rows)
    }
    run = [
        {"request": f"r{n}", "status": status, "reasons": [{"code": c} for c in codes]}
        for n, status, codes in decided
    ]
    standing = [Kept(k, v["locked"], v["current"], v["offer"]) for k, v in kept.items()]
    decisions = [(d["request"], d["status"], [r["code"] for r in d["reasons"]]) for d in run]
    held, waiting = held_and_waiting(standing, decisions if published else None)
    assert waiting == oracle_waiting(kept, run if published else None)
    assert held == [k for k, v in kept.items() if v["locked"] or v["offer"] == "open"]


def test_an_open_offer_past_its_time_has_lapsed() -> None:
    from pitchpass.core.match_day.waitlist import offer_state

    until = START + timedelta(minutes=30)
    assert offer_state("open", until, until - timedelta(seconds=1)) == "open"
    assert offer_state("open", until, until) == "lapsed"
    assert offer_state("accepted", until, until + timedelta(days=1)) == "accepted"
