"""The match day's record (core/match_day/record.py, docs/scenario-extensions.md "The match-day
record"): each request's state after publish from what was written as it happened, what
every view shows of it, what the engine is given, and the places it holds, checked
against the independent oracle's usage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import capacity_at, usage_of, venue_of
from test_properties import scenarios

from pitchpass.core import decide_match, load_document
from pitchpass.core.match_day.record import (
    CLOSED,
    HOLDS,
    PUBLISHED,
    Entry,
    State,
    engine_locked,
    publish_fits,
    shown,
    state_of,
    to_publish,
    usage,
)
from profiles import examples

NOW = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)
SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
MATCH = "mun-mci-2017-12-10"

OFFERS = st.sampled_from([None, "open", "accepted", "declined", "lapsed"])


@given(
    locked=st.booleans(),
    revoked=st.sampled_from(["", "crew banned"]),
    no_show=st.booleans(),
    offer=OFFERS,
    minutes=st.integers(-60, 60),
)
@settings(max_examples=examples(300), deadline=None)
def test_every_state_is_shown_and_given_to_the_engine_alike(
    locked: bool, revoked: str, no_show: bool, offer: str | None, minutes: int
) -> None:
    """Whatever was written: a granted place (shown granted) is exactly a held place the
    engine gets locked and that is not an open offer; a closed state is refused or
    revoked, with one reason of its own, and the engine never gets it; a revoke wins."""
    until = NOW + timedelta(minutes=minutes) if offer is not None else None
    entry = state_of(locked, revoked, no_show, offer, until, NOW)
    decision = {"status": "refused", "tier": "other", "reasons": [{"code": "capacity"}]}
    seen = shown(entry, decision, published_run=True)
    assert seen["state"] == (entry.state if entry.state is not State.OPEN else "published")
    if revoked:
        assert entry.state is (State.RELEASED if no_show else State.REVOKED)
        assert entry.text == revoked
    assert (seen["status"] == "granted") == (entry.state in PUBLISHED)
    assert (engine_locked(entry.state) is True) == (entry.state in HOLDS)
    assert (engine_locked(entry.state) is None) == (entry.state in CLOSED)
    if entry.state in CLOSED:
        assert seen["status"] in ("refused", "revoked") and len(seen["reasons"]) == 1
    if offer == "open" and not locked and not revoked:
        expected = State.OFFERED if minutes > 0 else State.LAPSED  # past its time: lapsed
        assert entry.state is expected


def test_an_open_request_shows_its_runs_decision() -> None:
    decision = {"status": "granted", "tier": "host", "reasons": []}
    assert shown(Entry(State.OPEN), decision, published_run=False)["state"] == "proposed"
    refused = {"status": "refused", "tier": "any", "reasons": [{"code": "capacity"}]}
    assert shown(Entry(State.OPEN), refused, published_run=True) == {
        **refused,
        "state": "published",
    }
    assert shown(Entry(State.OPEN), None, published_run=True)["status"] == "waiting"
    accepted = shown(Entry(State.ACCEPTED), refused, published_run=True)
    assert (accepted["status"], accepted["reasons"], accepted["tier"]) == ("granted", [], "any")


def test_a_publish_publishes_only_the_open_grants() -> None:
    record = {"a": Entry(State.GRANTED), "b": Entry(State.OFFERED), "c": Entry(State.OPEN)}
    assert to_publish(["a", "b", "c", "d"], record) == ["c", "d"]  # d: sent since, open


def _seed() -> dict[str, Any]:
    return yaml.safe_load(SEED.read_text())


def test_a_grant_that_no_longer_fits_beside_the_record_is_named() -> None:
    scenario = load_document(_seed())
    granted = [d.request.id for d in decide_match(scenario, MATCH).decisions]
    assert publish_fits(scenario, MATCH, []) == []
    # Every request of the match at once overfills the tunnel: each cell said with who.
    problems = publish_fits(scenario, MATCH, granted)
    assert problems and any("tunnel, post-match" in p.message for p in problems)


@given(doc=scenarios(), data=st.data())
@settings(max_examples=examples(150), deadline=None)
def test_the_places_held_are_counted_as_the_oracle_counts_them(doc: Any, data: Any) -> None:
    scenario = load_document(doc)
    match = doc["matches"][0]
    requests = [r for r in doc["requests"] if r["match"] == match["id"]]
    holding = data.draw(st.sets(st.sampled_from([r["id"] for r in requests] or ["none"])))
    venue = venue_of(match, doc)
    zones = {z["id"]: z for z in venue["zones"]}
    expected = usage_of([r for r in requests if r["id"] in holding], zones)
    got = usage(scenario, match["id"], holding)
    phases = [p["id"] for p in doc.get("phases") or []] or [u.phase for u in got]
    assert {(u.zone, u.phase) for u in got} == {(z, p) for z in zones for p in phases}
    for u in got:
        assert u.used == expected.get((u.zone, u.phase), 0)
        assert u.capacity == capacity_at(zones[u.zone], u.phase)


def test_taken_says_where_a_crew_finds_no_room_and_who_holds_it() -> None:
    """The seed's tunnel after the match holds 23 crews of 2 in its 46 places: the
    documentary's r24 (the away dressing room, reached through the tunnel) finds no room
    there, and every tunnel crew is named; before the match it finds room."""
    from pathlib import Path

    import yaml

    from pitchpass.core import load_document
    from pitchpass.core.match_day.record import taken

    seed = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
    scenario = load_document(yaml.safe_load(seed.read_text()))
    match = "mun-mci-2017-12-10"
    tunnel = {r.id for r in scenario.requests_of(match) if r.zone == "tunnel"}
    r24 = next(r for r in scenario.requests if r.id == "r24")
    found = taken(scenario, match, r24, tunnel)
    assert [(t.zone, t.phase, t.used, t.capacity) for t in found] == [
        ("tunnel", "post-match", 46, 46)
    ]
    after = {r.id for r in scenario.requests_of(match) if "post-match" in r.phases}
    assert set(found[0].holders) == tunnel & after
