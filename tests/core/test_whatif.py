"""docs/contract.md's "What-if": grant, refuse, change a capacity; report what changes."""

from __future__ import annotations

import pytest

from builders import req, scenario
from pitchpass.core import Changes, ScenarioInvalid, decide_document, what_if_document


def story() -> dict:
    return scenario(
        req("p1-crew", "p1", crew=2, submitted="2024-04-01T00:00:00Z"),
        req("p2-crew", "p2", crew=2, submitted="2024-04-02T00:00:00Z"),
        req("docs", "prod", zone="away-room", crew=2, consent=["away-fc"]),
        incidents=[{"id": "row", "match": "m1", "zone": "away-room", "minute": 125}],
    )


def test_granting_outright_bumps_and_catches() -> None:
    out = what_if_document(story(), grant=["docs"])
    assert out["changes"] == [
        {"request": "p2-crew", "before": "granted", "after": "refused"},
        {"request": "docs", "before": "refused", "after": "granted"},
    ]
    assert out["incidents"] == [
        {
            "incident": "row",
            "before": [],
            "after": [{"source": "request", "id": "docs", "org": "prod"}],
        }
    ]


def test_result_is_the_decision_of_the_changed_scenario() -> None:
    changed = story()
    changed["requests"][2]["locked"] = True
    assert what_if_document(story(), grant=["docs"])["result"] == decide_document(changed)


def test_more_places_in_one_phase() -> None:
    out = what_if_document(story(), capacity={"tunnel@post-match": 6})
    assert out["changes"] == [{"request": "docs", "before": "refused", "after": "granted"}]
    usage = out["result"]["matches"][0]["usage"]
    tunnel = {u["phase"]: u["capacity"] for u in usage if u["zone"] == "tunnel"}
    assert tunnel["post-match"] == 6 and tunnel["pre-match"] == 4


def test_capacity_of_a_whole_zone_and_later_changes_win() -> None:
    out = what_if_document(story(), capacity={"tunnel": 2, "tunnel@post-match": 4})
    usage = out["result"]["matches"][0]["usage"]
    tunnel = {u["phase"]: u["capacity"] for u in usage if u["zone"] == "tunnel"}
    assert tunnel["post-match"] == 4 and tunnel["arrival"] == 2


def test_refusing_removes_the_request() -> None:
    out = what_if_document(story(), refuse=["p2-crew"])
    assert out["changes"] == [
        {"request": "p2-crew", "before": "granted", "after": "removed"},
        {"request": "docs", "before": "refused", "after": "granted"},
    ]
    ids = [d["request"] for d in out["result"]["matches"][0]["decisions"]]
    assert ids == ["p1-crew", "docs"]


def test_no_change_reports_nothing() -> None:
    out = what_if_document(story())
    assert out["changes"] == [] and out["incidents"] == []


@pytest.mark.parametrize(
    ("grant", "refuse", "capacity", "path"),
    [
        (["nope"], [], {}, "--grant"),
        ([], ["p1-crw"], {}, "--refuse"),
        (["docs"], ["docs"], {}, "--refuse"),
        ([], [], {"lobby": 3}, "--capacity"),
        ([], [], {"tunnel@extra-time": 3}, "--capacity"),
        ([], [], {"tunnel": -1}, "--capacity"),
        ([], [], {"tunnel": 10**23}, "--capacity"),
    ],
)
def test_bad_changes_are_reported(grant, refuse, capacity, path) -> None:
    with pytest.raises(ScenarioInvalid) as raised:
        what_if_document(story(), grant=grant, refuse=refuse, capacity=capacity)
    assert [p.path for p in raised.value.problems] == [path]


def test_did_you_mean_for_a_near_request_id() -> None:
    with pytest.raises(ScenarioInvalid) as raised:
        what_if_document(story(), refuse=["p1-crw"])
    assert '"p1-crew"' in raised.value.problems[0].message


def test_granting_more_than_fits_is_an_error_not_a_decision() -> None:
    with pytest.raises(ScenarioInvalid) as raised:
        what_if_document(story(), grant=["p1-crew", "p2-crew", "docs"])
    assert "tunnel, post-match" in raised.value.problems[0].message


def test_an_overflow_caused_by_a_capacity_change_is_blamed_on_it() -> None:
    document = story()
    document["requests"][0]["locked"] = True
    with pytest.raises(ScenarioInvalid) as raised:
        what_if_document(document, capacity={"tunnel@post-match": 1})
    assert [p.path for p in raised.value.problems] == ["--capacity"]


def test_a_change_to_a_request_of_a_match_not_shown_is_an_error() -> None:
    from pitchpass.core import Changes, load_document, what_if

    with pytest.raises(ScenarioInvalid) as raised:
        what_if(load_document(story()), Changes(grant=("docs",)), ["m2"])
    assert "is in match m1" in raised.value.problems[0].message


def test_spaces_around_the_phase_of_a_capacity_change() -> None:
    from pitchpass.core import parse_capacity

    change = parse_capacity("tunnel @ post-match =2")
    assert (change.zone, change.phase, change.places) == ("tunnel", "post-match", 2)


def on_base(base: Changes, changes: Changes) -> list[dict]:
    from pitchpass.core import load_document, what_if, what_if_json

    return what_if_json(what_if(load_document(story()), changes, base=base))["changes"]


def test_before_is_the_base_and_a_change_on_top_wins_over_it() -> None:
    """An officer's overrides stand (the base); ticks in a what-if come on top of them."""
    granted_by_hand = Changes(grant=("docs",))
    # "docs" stands granted by hand: taking it out is granted -> removed, and p2 comes back.
    assert on_base(granted_by_hand, Changes(refuse=("docs",))) == [
        {"request": "p2-crew", "before": "refused", "after": "granted"},
        {"request": "docs", "before": "granted", "after": "removed"},
    ]
    refused_by_hand = Changes(refuse=("p1-crew",))
    # p1 stands refused by hand; granting it outright is refused -> granted.
    assert on_base(refused_by_hand, Changes(grant=("p1-crew",))) == [
        {"request": "p1-crew", "before": "refused", "after": "granted"},
        {"request": "docs", "before": "granted", "after": "refused"},
    ]
    # A change elsewhere leaves a refusal by hand standing: it is not reported as a change.
    assert on_base(refused_by_hand, Changes(refuse=("p2-crew",))) == [
        {"request": "p2-crew", "before": "granted", "after": "removed"},
    ]


def test_no_base_is_the_plain_what_if() -> None:
    assert (
        on_base(Changes(), Changes(grant=("docs",)))
        == what_if_document(story(), grant=["docs"])["changes"]
    )
