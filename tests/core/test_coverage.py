"""docs/contract.md's "Coverage": who caught each incident on camera."""

from __future__ import annotations

from typing import Any

from builders import KICKOFF, req, scenario
from pitchpass.core import decide_document


def incident(incident_id: str, zone: str, **when: Any) -> dict[str, Any]:
    return {"id": incident_id, "match": "m1", "zone": zone, "what": "something", **when}


def coverage(document: dict[str, Any]) -> dict[str, Any]:
    out = decide_document(document)
    return {i["incident"]: i for i in out["matches"][0]["incidents"]}


def test_granted_crews_with_cameras_in_the_zone_and_phase_cover_it() -> None:
    doc = scenario(
        req("a", "p1", zone="pitch", phases=("second-half",)),
        req("no-camera", "p2", zone="pitch", phases=("second-half",), cameras=0),
        req("other-phase", "p2", zone="pitch", phases=("first-half",)),
        req("other-zone", "p2", zone="tunnel", phases=("second-half",)),
        incidents=[incident("i1", "pitch", minute=80)],
    )
    assert coverage(doc)["i1"] == {
        "incident": "i1",
        "zone": "pitch",
        "phase": "second-half",
        "covered_by": [{"source": "request", "id": "a", "org": "p1"}],
    }


def test_a_refused_crew_covers_nothing() -> None:
    doc = scenario(
        req("big", "p1", zone="pitch", phases=("second-half",), crew=11),
        incidents=[incident("i1", "pitch", minute=80)],
    )
    assert coverage(doc)["i1"]["covered_by"] == []


def test_a_crew_passing_through_a_via_zone_does_not_cover_it() -> None:
    doc = scenario(
        req("room", "away-fc", zone="away-room", phases=("post-match",)),
        incidents=[incident("i1", "tunnel", minute=120)],
    )
    assert coverage(doc)["i1"]["covered_by"] == []


def test_fixed_cameras_after_requests_with_and_without_phases() -> None:
    doc = scenario(
        req("a", "p1", phases=("post-match",)),
        incidents=[incident("i1", "tunnel", minute=130), incident("i2", "tunnel", minute=10)],
    )
    doc["venues"][0]["cameras"] = [
        {"id": "always", "zone": "tunnel"},
        {"id": "after", "zone": "tunnel", "operator": "home-fc", "phases": ["post-match"]},
        {"id": "elsewhere", "zone": "pitch"},
    ]
    result = coverage(doc)
    assert result["i1"]["covered_by"] == [
        {"source": "request", "id": "a", "org": "p1"},
        {"source": "camera", "id": "always", "org": None},
        {"source": "camera", "id": "after", "org": "home-fc"},
    ]
    assert [s["id"] for s in result["i2"]["covered_by"]] == ["always"]


def test_phase_boundaries_and_outside_every_phase() -> None:
    doc = scenario(
        incidents=[
            incident("start", "pitch", minute=0),
            incident("end", "pitch", minute=47),
            incident("after", "pitch", minute=180),
            incident("before", "pitch", minute=-121),
        ]
    )
    doc["venues"][0]["cameras"] = [{"id": "always", "zone": "pitch"}]
    phases = {k: v["phase"] for k, v in coverage(doc).items()}
    assert phases == {"start": "first-half", "end": "half-time", "after": None, "before": None}
    # A camera with no phases listed is always there, even outside every phase.
    assert all(v["covered_by"] for v in coverage(doc).values())


def test_at_is_turned_into_minutes_after_kickoff_in_any_timezone() -> None:
    assert KICKOFF == "2024-05-01T15:00:00+00:00"
    doc = scenario(
        req("a", "p1", zone="pitch", phases=("half-time",)),
        incidents=[incident("i1", "pitch", at="2024-05-01T17:50:00+02:00")],  # minute 50
    )
    assert coverage(doc)["i1"]["phase"] == "half-time"
    assert coverage(doc)["i1"]["covered_by"][0]["id"] == "a"
