"""The example scenarios: each passes both the JSON Schema and the validator, and the seed
scenario tells the story it is written from."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from pitchpass.core import check_document, decide_document, what_if_document
from pitchpass.core.reading.parse import parse_text
from pitchpass.core.reading.schema import scenario_schema

SCENARIOS = sorted((Path(__file__).resolve().parents[1] / "scenarios").glob("*.yaml"))
VALIDATOR = jsonschema.Draft202012Validator(scenario_schema())


def load(path: Path) -> dict:
    return parse_text(path.read_text(), path.name)


def test_there_are_the_seed_and_two_more() -> None:
    names = [p.name for p in SCENARIOS]
    assert "manchester-derby-2017.yaml" in names and len(names) >= 3


def test_the_schema_is_itself_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(scenario_schema())


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_example_passes_schema_and_validator(path: Path) -> None:
    document = load(path)
    assert list(VALIDATOR.iter_errors(document)) == []
    scenario, problems, warnings = check_document(document)
    assert scenario is not None and problems == [] and warnings == []


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["requests"][0].update(crew=0), "crew"),
        (lambda d: d["matches"][0].update(kickoff="2017-12-10T16:30:00"), "kickoff"),
        (lambda d: d["incidents"][0].update(at="2017-12-10T18:35:00+00:00"), "oneOf"),
        (lambda d: d.update(pitchpass=2), "pitchpass"),
    ],
)
def test_schema_and_validator_both_reject_bad_examples(change, field) -> None:
    document = load(SCENARIOS[[p.name for p in SCENARIOS].index("manchester-derby-2017.yaml")])
    change(document)
    assert list(VALIDATOR.iter_errors(document)), field
    assert check_document(document)[0] is None


def seed() -> dict:
    return load(next(p for p in SCENARIOS if p.name == "manchester-derby-2017.yaml"))


def test_seed_story_the_documentary_crew_is_refused_for_room_in_the_tunnel() -> None:
    document = seed()
    partners = document["competition"]["partners"]
    assert len(partners) == 23
    match = decide_document(document)["matches"][0]
    decisions = {d["request"]: d for d in match["decisions"]}
    refused = [d for d in match["decisions"] if d["status"] == "refused"]
    assert [d["request"] for d in refused] == ["r24"]
    (reason,) = decisions["r24"]["reasons"]
    assert (reason["code"], reason["zone"], reason["phase"]) == ("capacity", "tunnel", "post-match")
    assert (reason["used"], reason["capacity"], reason["needed"]) == (46, 46, 2)
    requests = {r["id"]: r for r in document["requests"]}
    assert requests["r24"]["zone"] == "away-dressing-room"
    warm_up = requests["r25"]
    assert (warm_up["by"], warm_up["zone"], decisions["r25"]["status"]) == (
        requests["r24"]["by"],
        "pitch-side",
        "granted",
    )
    tunnel_post = [
        r for r in document["requests"] if r["zone"] == "tunnel" and "post-match" in r["phases"]
    ]
    assert sorted({r["by"] for r in tunnel_post}) == sorted(partners)


def test_seed_story_the_altercation_was_not_caught_but_the_booking_was() -> None:
    incidents = {i["incident"]: i for i in decide_document(seed())["matches"][0]["incidents"]}
    assert incidents["dressing-room-altercation"]["covered_by"] == []
    assert incidents["dressing-room-altercation"]["phase"] == "post-match"
    booking = incidents["herrera-booking"]
    assert booking["phase"] == "second-half" and booking["covered_by"]


def test_seed_story_what_if_the_tunnel_had_two_more_places() -> None:
    out = what_if_document(seed(), capacity={"tunnel@post-match": 48})
    assert out["changes"] == [{"request": "r24", "before": "refused", "after": "granted"}]
    (incident,) = out["incidents"]
    assert incident["incident"] == "dressing-room-altercation"
    assert [s["id"] for s in incident["after"]] == ["r24"]
