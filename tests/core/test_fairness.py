"""When a refusal for room looks unfair (core/explaining/fairness.py): the grants the policy ranks
after the refused request that hold places where it was refused, on small stories built
on the seed's venue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from pitchpass.core import decide_match, load_document
from pitchpass.core.codes import Status
from pitchpass.core.explaining.fairness import full_cells, its_tier_or_below, ranked_after
from pitchpass.core.explaining.report import match_json

SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
MATCH = "mun-mci-2017-12-10"


def _story(requests: list[tuple[str, str, int, str]]) -> Any:
    """The seed with only these requests (id, by, crew, sent at) for the flash-interview
    positions (8 places) at half-time."""
    doc = yaml.safe_load(SEED.read_text())
    doc["requests"] = [
        {
            "id": rid,
            "match": MATCH,
            "by": by,
            "zone": "flash-interview",
            "phases": ["half-time"],
            "crew": crew,
            "submitted": f"2017-12-01T{at}:00Z",
        }
        for rid, by, crew, at in requests
    ]
    doc["incidents"] = []
    return load_document(doc)


def _explained(scenario: Any, refused: str) -> list[tuple[str, str]]:
    decided = match_json(decide_match(scenario, MATCH))["decisions"]
    status = {d["request"]: d for d in decided}
    assert status[refused]["status"] == Status.REFUSED
    granted = [k for k, d in status.items() if d["status"] == Status.GRANTED]
    found = ranked_after(scenario, MATCH, refused, full_cells(status[refused]["reasons"]), granted)
    assert all(a.cells == (("flash-interview", "half-time"),) for a in found)
    return [(a.request, a.why) for a in found]


def test_smaller_crews_of_its_tier_sent_later_are_named() -> None:
    partner = "nbc-sports"  # a partner of the competition in the seed
    scenario = _story(
        [
            ("big", partner, 5, "10:00"),
            ("a", partner, 2, "11:00"),
            ("b", partner, 2, "12:00"),
            ("c", partner, 2, "13:00"),
        ]
    )
    assert _explained(scenario, "big") == [
        ("a", "sent later, same tier (partner)"),
        ("b", "sent later, same tier (partner)"),
        ("c", "sent later, same tier (partner)"),
    ]


def test_a_lower_tier_granted_where_a_crew_too_big_was_refused_is_named() -> None:
    scenario = _story([("big", "nbc-sports", 9, "10:00"), ("small", "mutv", 2, "11:00")])
    assert _explained(scenario, "big") == [("small", "a lower tier (other)")]


def test_grants_ranked_before_it_are_not_named() -> None:
    """Earlier requests of its tier, and higher tiers, took the places: nothing to explain
    beyond the numbers of its reason."""
    scenario = _story(
        [
            ("first", "nbc-sports", 4, "09:00"),
            ("second", "nbc-sports", 4, "10:00"),
            ("late", "nbc-sports", 4, "11:00"),
            ("host", "sky-sports", 4, "12:00"),
        ]
    )
    assert _explained(scenario, "late") == []


def test_its_tier_or_below_tells_what_the_numbers_tell_without_the_timing() -> None:
    """True where crews of its tier (earlier ones too) or a lower tier hold the places,
    false where only higher tiers do."""
    scenario = _story(
        [
            ("first", "nbc-sports", 4, "09:00"),
            ("second", "nbc-sports", 4, "10:00"),
            ("late", "nbc-sports", 4, "11:00"),
            ("below", "mutv", 9, "12:00"),
        ]
    )
    full = [("flash-interview", "half-time")]
    assert its_tier_or_below(scenario, MATCH, "late", full, ["first", "second"])
    assert not its_tier_or_below(scenario, MATCH, "below", full, ["first", "second"])


def test_sent_at_the_same_moment_the_id_after_is_ranked_after() -> None:
    partner = "nbc-sports"
    scenario = _story(
        [
            ("m-big", partner, 5, "10:00"),
            ("n1", partner, 2, "10:00"),
            ("n2", partner, 2, "10:00"),
            ("a0", partner, 2, "10:00"),
        ]
    )
    assert _explained(scenario, "m-big") == [
        ("n1", "sent at the same moment, same tier (partner), its id after"),
        ("n2", "sent at the same moment, same tier (partner), its id after"),
    ]
