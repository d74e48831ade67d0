"""One small test per rule of docs/contract.md's "Decisions": codes and numbers, never sentences."""

from __future__ import annotations

import dataclasses

import pytest

from builders import codes, decided, req, scenario, statuses, zone
from pitchpass.core import ScenarioInvalid, decide_document, load_document
from pitchpass.core.deciding.policy import beyond_override, ineligibility

KICK = "2024-05-01T15:00:00+00:00"

# -- 1. tiers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("by", "tier"),
    [("h", "host"), ("p1", "partner"), ("home-fc", "club"), ("away-fc", "club"), ("prod", "other")],
)
def test_default_tiers(by: str, tier: str) -> None:
    assert decided(scenario(req("r1", by)))["r1"]["tier"] == tier


def test_host_that_is_also_a_partner_takes_the_first_matching_tier() -> None:
    doc = scenario(req("r1", "p1"))
    doc["matches"][0]["host"] = "p1"
    assert decided(doc)["r1"]["tier"] == "host"


def test_org_and_kind_rules_and_unranked() -> None:
    policy = {
        "tiers": [
            {"name": "documentary", "rule": "org:prod"},
            {"name": "agencies", "rule": "kind:agency"},
        ]
    }
    doc = scenario(req("r1", "prod"), req("r2", "agency"), req("r3", "p1"), policy=policy)
    tiers = {rid: d["tier"] for rid, d in decided(doc).items()}
    assert tiers == {"r1": "documentary", "r2": "agencies", "r3": "unranked"}


def test_unranked_comes_below_every_tier() -> None:
    policy = {"tiers": [{"name": "agencies", "rule": "kind:agency"}]}
    zone_doc = scenario(
        req("early", "p1", submitted="2024-04-01T00:00:00+00:00", crew=4),
        req("late", "agency", crew=4),
        policy=policy,
    )
    assert statuses(zone_doc) == {"early": "refused", "late": "granted"}


# -- 2. eligibility ------------------------------------------------------------------


def test_submitted_exactly_on_the_deadline_is_in_time() -> None:
    doc = scenario(
        req("on", "p1", submitted="2024-04-26T15:00:00+00:00"),
        req("after", "p2", submitted="2024-04-26T15:00:01+00:00"),
    )
    result = decided(doc)
    assert result["on"]["status"] == "granted"
    assert codes(result["after"]) == ["late"]


def test_deadline_in_another_timezone_and_unit() -> None:
    # 12h before 15:00 UTC is 03:00 UTC, which is 05:00 at +02:00.
    doc = scenario(
        req("on", "p1", submitted="2024-05-01T05:00:00+02:00"),
        req("after", "p2", submitted="2024-05-01T05:01:00+02:00"),
        policy={"deadline": "12h"},
    )
    assert statuses(doc) == {"on": "granted", "after": "refused"}


def test_closed_gives_one_reason_per_zone_and_phase_including_via() -> None:
    doc = scenario(req("r1", "away-fc", zone="away-room", phases=("first-half", "second-half")))
    zone(doc, "tunnel")["closed"] = ["second-half"]
    reasons = decided(doc)["r1"]["reasons"]
    closed = sorted((r["zone"], r["phase"]) for r in reasons if r["code"] == "closed")
    assert closed == [
        ("away-room", "first-half"),
        ("away-room", "second-half"),
        ("tunnel", "second-half"),
    ]


def test_occupied_zone_needs_the_occupant_or_its_consent() -> None:
    doc = scenario(
        req("club", "away-fc", zone="away-room", phases=("pre-match",)),
        req("consented", "prod", zone="away-room", phases=("post-match",), consent=["away-fc"]),
        req("wrong-club", "p1", zone="away-room", phases=("post-match",), consent=["home-fc"]),
        req("none", "p2", zone="away-room", phases=("arrival",)),
    )
    result = decided(doc)
    assert result["club"]["status"] == "granted"
    assert result["consented"]["status"] == "granted"
    assert codes(result["wrong-club"]) == ["no-consent"]
    assert codes(result["none"]) == ["no-consent"]


def test_every_eligibility_reason_is_given_at_once() -> None:
    doc = scenario(
        req("r1", "p1", zone="away-room", phases=("first-half",), submitted="2024-05-01T14:00:00Z")
    )
    assert codes(decided(doc)["r1"]) == ["closed", "late", "no-consent"]


def test_a_request_the_no_show_bar_names_is_refused_and_frees_its_place() -> None:
    doc = scenario(
        req("barred", "p1", crew=4, submitted="2024-04-01T00:00:00+00:00"),
        req("next", "p2", crew=4),
        req("held", "h", zone="pitch", locked=True),
    )
    doc["requests"][0]["no_shows"] = 3
    doc["requests"][2]["no_shows"] = 3  # a published grant is never taken back
    result = decided(doc)
    assert codes(result["barred"]) == ["no-shows"]
    assert "no-show limit (2)" in result["barred"]["reasons"][0]["text"]  # the default
    assert "3" not in result["barred"]["reasons"][0]["text"]  # never the organisation's count
    assert statuses(doc) == {"barred": "refused", "next": "granted", "held": "granted"}
    doc["requests"][0]["no_shows"] = 0  # 0: not barred (the default)
    assert statuses(doc)["barred"] == "granted"


def test_the_no_show_bar_is_checked_as_a_whole_number() -> None:
    doc = scenario(req("r1", "p1"))
    doc["requests"][0]["no_shows"] = -1
    with pytest.raises(ScenarioInvalid) as raised:
        load_document(doc)
    assert [p.path for p in raised.value.problems] == ["requests[0].no_shows"]


def test_a_grant_by_hand_sets_aside_lateness_only() -> None:
    doc = scenario(
        req("r1", "p1", zone="away-room", phases=("first-half",), submitted="2024-05-01T14:00:00Z",
            locked=True),
        req("own", "away-fc", zone="away-room", phases=("pre-match",), submitted=KICK),
    )  # fmt: skip
    loaded = load_document(doc)
    match = loaded.matches[0]
    venue = loaded.venue(match.venue)
    r1, own = loaded.requests_of(match.id)
    assert [r.code for r in beyond_override(r1, match, venue, loaded.policy)] == [
        "closed",
        "no-consent",
    ]  # locked or not: it asks what a grant by hand would have to set aside
    assert beyond_override(own, match, venue, loaded.policy) == []  # late, its own room
    barred = dataclasses.replace(own, no_shows=2)  # the no-show bar: the league's own rule
    codes_now = [r.code for r in ineligibility(barred, match, venue, loaded.policy)]
    assert codes_now == ["late", "no-shows"]
    assert beyond_override(barred, match, venue, loaded.policy) == []


def test_locked_request_skips_eligibility_and_is_granted() -> None:
    doc = scenario(
        req("r1", "p1", zone="away-room", phases=("first-half",), submitted=KICK, locked=True)
    )
    assert decided(doc)["r1"] == {"request": "r1", "status": "granted", "tier": "partner",
                                  "reasons": []}  # fmt: skip


# -- 3. places -----------------------------------------------------------------------


def test_a_crew_takes_places_in_its_zone_and_each_via_zone() -> None:
    doc = scenario(req("r1", "away-fc", zone="away-room", crew=2))
    usage = decide_document(doc)["matches"][0]["usage"]
    used = {(u["zone"], u["phase"]): u["used"] for u in usage}
    assert used[("away-room", "post-match")] == 2
    assert used[("tunnel", "post-match")] == 2
    assert used[("pitch", "post-match")] == 0
    assert sum(used.values()) == 4


def test_via_is_not_followed_further() -> None:
    doc = scenario(req("r1", "p1", zone="inner", crew=3))
    doc["venues"][0]["zones"] += [
        {"id": "middle", "capacity": 3, "via": ["tunnel"]},
        {"id": "inner", "capacity": 3, "via": ["middle"]},
    ]
    zone(doc, "tunnel")["capacity"] = 0  # the inner crew never passes "through" the tunnel
    assert statuses(doc) == {"r1": "granted"}


def test_usage_lists_every_zone_and_phase_in_order() -> None:
    usage = decide_document(scenario())["matches"][0]["usage"]
    assert [(u["zone"], u["phase"]) for u in usage][:7] == [
        ("tunnel", "arrival"), ("tunnel", "pre-match"), ("tunnel", "first-half"),
        ("tunnel", "half-time"), ("tunnel", "second-half"), ("tunnel", "post-match"),
        ("away-room", "arrival"),
    ]  # fmt: skip
    assert len(usage) == 3 * 6


def test_capacity_map_with_default_and_one_phase() -> None:
    doc = scenario(req("r1", "p1", phases=("half-time",), crew=2))
    zone(doc, "tunnel")["capacity"] = {"default": 4, "half-time": 1}
    result = decided(doc)["r1"]
    assert result["reasons"][0] | {"text": ""} == {
        "code": "capacity", "zone": "tunnel", "phase": "half-time",
        "used": 0, "capacity": 1, "needed": 2, "text": "",
    }  # fmt: skip


def test_locked_requests_take_their_places_first() -> None:
    doc = scenario(
        req("host", "h", crew=3),
        req("locked", "prod", crew=2, locked=True),
    )
    assert statuses(doc) == {"host": "refused", "locked": "granted"}


# -- 4. choice -----------------------------------------------------------------------


def test_most_granted_prefers_two_small_crews_to_one_big() -> None:
    doc = scenario(
        req("big", "p1", crew=4, submitted="2024-04-01T00:00:00Z"),
        req("small-a", "p2", crew=2),
        req("small-b", "p2", crew=2),
    )
    assert statuses(doc) == {"big": "refused", "small-a": "granted", "small-b": "granted"}


def test_first_come_walks_the_order_instead() -> None:
    doc = scenario(
        req("big", "p1", crew=4, submitted="2024-04-01T00:00:00Z"),
        req("small-a", "p2", crew=2),
        req("small-b", "p2", crew=2),
        policy={"within_tier": "first-come"},
    )
    assert statuses(doc) == {"big": "granted", "small-a": "refused", "small-b": "refused"}


def test_a_higher_tier_beats_any_number_of_lower_ones() -> None:
    doc = scenario(
        req("host", "h", crew=4),
        req("a", "p1", crew=1, submitted="2024-04-01T00:00:00Z"),
        req("b", "p2", crew=1, submitted="2024-04-01T00:00:00Z"),
    )
    assert statuses(doc) == {"host": "granted", "a": "refused", "b": "refused"}


def test_ties_go_to_the_earlier_submission_then_the_smaller_id() -> None:
    doc = scenario(
        req("z-late", "p1", crew=3, submitted="2024-04-21T00:00:00Z"),
        req("y-early", "p2", crew=3, submitted="2024-04-20T00:00:00Z"),
        req("x-early", "p1", crew=3, submitted="2024-04-20T00:00:00Z"),
    )
    assert statuses(doc) == {"z-late": "refused", "y-early": "refused", "x-early": "granted"}


def test_lexicographic_tie_break_beyond_the_first_request() -> None:
    # Capacity 4: {a, c} (3 + 1) and {b, c}... a is first, so the answer holds a; then
    # among sets with a, the earliest next request that fits is taken.
    doc = scenario(
        req("a", "p1", crew=3, submitted="2024-04-01T00:00:00Z"),
        req("b", "p1", crew=2, submitted="2024-04-02T00:00:00Z"),
        req("c", "p1", crew=1, submitted="2024-04-03T00:00:00Z"),
        req("d", "p1", crew=2, submitted="2024-04-04T00:00:00Z"),
    )
    # Most granted: 2 of them at best ({a,c}, {b,d}, {b,c}, ...); lexicographically
    # greatest in (a, b, c, d) order is {a, c}.
    assert statuses(doc) == {"a": "granted", "b": "refused", "c": "granted", "d": "refused"}


# -- 5. reasons ----------------------------------------------------------------------


def test_capacity_reason_names_every_binding_cell_in_numbers() -> None:
    doc = scenario(
        req("host", "h", phases=("pre-match", "post-match"), crew=3),
        req("club", "home-fc", phases=("post-match",), crew=1),
        req("docs", "prod", phases=("pre-match", "post-match"), crew=2),
    )
    reasons = decided(doc)["docs"]["reasons"]
    numbers = sorted(
        (r["zone"], r["phase"], r["used"], r["capacity"], r["needed"]) for r in reasons
    )
    assert numbers == [
        ("tunnel", "post-match", 4, 4, 2),
        ("tunnel", "pre-match", 3, 4, 2),
    ]  # fmt: skip
    post = next(r for r in reasons if r["phase"] == "post-match")
    assert "1 host crew and 1 club crew" in post["text"]


def test_a_granted_request_has_no_reasons() -> None:
    assert decided(scenario(req("r1", "p1")))["r1"]["reasons"] == []
