"""A venue's zones from CSV (issue 12, section 1): added or replaced, checked as a scenario
is, every problem at its row, nothing half done."""

from __future__ import annotations

from typing import Any

import pytest
from test_fixtures import _seed

from pitchpass.core import decide_document
from pitchpass.core.reading.problems import ScenarioInvalid
from pitchpass.core.reading.zones_in import import_zones

ZONES = """\
venue,venue_name,id,name,capacity,capacity@half-time,via,occupant,closed
Old Trafford,,tunnel,Players' tunnel,40,,,,
old-trafford,,interview-room,Flash interviews,6,2,tunnel,,first-half; second-half
etihad,Etihad Stadium,etihad-tunnel,Tunnel,30,,,,
"""


def _zone(document: dict[str, Any], venue: str, zone: str) -> dict[str, Any]:
    place = next(v for v in document["venues"] if v["id"] == venue)
    return next(z for z in place["zones"] if z["id"] == zone)


def test_zones_are_added_or_replaced_and_the_scenario_still_decides() -> None:
    done = import_zones(_seed(), ZONES)
    assert done.replaced == ("old-trafford/tunnel",)
    assert done.added == ("old-trafford/interview-room", "etihad/etihad-tunnel")
    assert done.new_venues == ("etihad",)
    assert "old-trafford/away-dressing-room" in done.kept
    assert _zone(done.document, "old-trafford", "tunnel")["capacity"] == 40
    room = _zone(done.document, "old-trafford", "interview-room")
    assert room["capacity"] == {"default": 6, "half-time": 2}
    assert room["via"] == ["tunnel"] and room["closed"] == ["first-half", "second-half"]
    usage = decide_document(done.document)["matches"][0]["usage"]
    assert {"zone": "tunnel", "phase": "post-match"} | {"capacity": 40} in [
        {k: u[k] for k in ("zone", "phase", "capacity")} for u in usage
    ]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("venue,id,capacity\nOld Trafford,x,lots\n", "row 2.capacity"),
        ("venue,id,capacity\nOld Traford,x,3\n", "row 2.venue"),
        ("venue,id,capacity,via\nold-trafford,x,3,nowhere\n", "row 2.via[0]"),
        ("venue,id,capacity,occupant\nold-trafford,x,3,visitors\n", "row 2.occupant"),
        ("venue,id,capacity\nold-trafford,x,3\nold-trafford,x,4\n", "row 3.id"),
        ("venue,id,capacity@extra-time\nold-trafford,x,3\n", "row 2.capacity"),
        ("id,capacity,colour\nx,3,red\n", "header"),
    ],
)
def test_bad_rows_are_named_and_nothing_is_imported(text: str, where: str) -> None:
    with pytest.raises(ScenarioInvalid) as refused:
        import_zones(_seed(), text)
    paths = [p.path for p in refused.value.problems]
    assert any(p.startswith(where) for p in paths), paths


def test_an_unknown_venue_names_the_nearest() -> None:
    with pytest.raises(ScenarioInvalid) as refused:
        import_zones(_seed(), "venue,id,capacity\nOld Traford,x,3\n")
    assert 'did you mean "Old Trafford"' in refused.value.problems[0].message
