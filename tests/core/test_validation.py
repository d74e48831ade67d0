"""docs/contract.md's "Validation": every rule, with the place of the problem in the document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from builders import req, scenario, zone
from pitchpass.core import ScenarioInvalid, check_document, load_document
from pitchpass.core.model import DEFAULT_PHASES

Doc = dict[str, Any]


def problems(document: Doc) -> dict[str, str]:
    with pytest.raises(ScenarioInvalid) as raised:
        load_document(document)
    return {p.path: p.message for p in raised.value.problems}


def _set(path: list[Any], value: Any) -> Callable[[Doc], None]:
    def change(document: Doc) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


_DELETE = object()

CASES = {
    "unknown version": (_set(["pitchpass"], 2), "pitchpass", "unknown version"),
    "missing version": (_set(["pitchpass"], _DELETE), "pitchpass", "missing"),
    "missing matches": (_set(["matches"], _DELETE), "matches", "missing"),
    "missing kickoff": (_set(["matches", 0, "kickoff"], _DELETE), "matches[0].kickoff", "missing"),
    "missing crew": (_set(["requests", 0, "crew"], _DELETE), "requests[0].crew", "missing"),
    "duplicate request id": (
        _set(["requests", 1, "id"], "r0"),
        "requests[1].id",
        'id "r0" is already used',
    ),
    "duplicate zone id": (
        _set(["venues", 0, "zones", 1, "id"], "tunnel"),
        "venues[0].zones[1].id",
        "already used",
    ),
    "duplicate organisation": (
        _set(["organisations", 1, "id"], "h"),
        "organisations[1].id",
        "already used",
    ),
    "unknown organisation": (_set(["requests", 0, "by"], "p3"), "requests[0].by", "unknown"),
    "unknown partner": (
        _set(["competition", "partners"], ["sky"]),
        "competition.partners[0]",
        "unknown",
    ),
    "unknown venue": (_set(["matches", 0, "venue"], "wembley"), "matches[0].venue", "unknown"),
    "unknown zone": (_set(["requests", 0, "zone"], "tunel"), "requests[0].zone", "tunnel"),
    "unknown phase": (
        _set(["requests", 0, "phases"], ["postmatch"]),
        "requests[0].phases[0]",
        "post-match",
    ),
    "unknown match": (_set(["requests", 0, "match"], "m2"), "requests[0].match", "unknown"),
    "unknown consent club": (
        _set(["requests", 0, "consent"], ["x"]),
        "requests[0].consent[0]",
        "unknown",
    ),
    "via itself": (
        _set(["venues", 0, "zones", 0, "via"], ["tunnel"]),
        "venues[0].zones[0].via[0]",
        "itself",
    ),
    "via unknown zone": (
        _set(["venues", 0, "zones", 0, "via"], ["lobby"]),
        "venues[0].zones[0].via[0]",
        "unknown",
    ),
    "bad occupant": (
        _set(["venues", 0, "zones", 0, "occupant"], "visitors"),
        "venues[0].zones[0].occupant",
        "home or away",
    ),
    "crew below one": (_set(["requests", 0, "crew"], 0), "requests[0].crew", "at least 1"),
    "negative cameras": (_set(["requests", 0, "cameras"], -1), "requests[0].cameras", "at least 0"),
    "negative capacity": (
        _set(["venues", 0, "zones", 0, "capacity"], -4),
        "venues[0].zones[0].capacity",
        "at least 0",
    ),
    "crew not a number": (_set(["requests", 0, "crew"], "two"), "requests[0].crew", "whole number"),
    "kickoff without timezone": (
        _set(["matches", 0, "kickoff"], "2024-05-01T15:00:00"),
        "matches[0].kickoff",
        "timezone",
    ),
    "submitted without timezone": (
        _set(["requests", 0, "submitted"], "2024-04-01T10:00"),
        "requests[0].submitted",
        "timezone",
    ),
    "not a time": (
        _set(["requests", 0, "submitted"], "last tuesday"),
        "requests[0].submitted",
        "not a date",
    ),
    "phase end before start": (
        _set(["phases"], [{"id": "a", "start": 0, "end": 0}]),
        "phases[0].end",
        "after start",
    ),
    "phases overlap": (
        _set(["phases"], [{"id": "a", "start": 0, "end": 50}, {"id": "b", "start": 45, "end": 90}]),
        "phases[1]",
        "overlaps",
    ),
    "incident with neither": (
        _set(["incidents"], [{"id": "i", "match": "m1", "zone": "pitch"}]),
        "incidents[0]",
        "neither",
    ),
    "incident with both": (
        _set(
            ["incidents"],
            [{"id": "i", "match": "m1", "zone": "pitch", "minute": 3, "at": "2024-05-01T15:03Z"}],
        ),
        "incidents[0]",
        "both",
    ),
    "capacity map without default or every phase": (
        _set(["venues", 0, "zones", 0, "capacity"], {"post-match": 4}),
        "venues[0].zones[0].capacity",
        "missing: arrival",
    ),
    "capacity map with unknown phase": (
        _set(["venues", 0, "zones", 0, "capacity"], {"default": 4, "extra-time": 1}),
        "venues[0].zones[0].capacity.extra-time",
        "unknown phase",
    ),
    "locked requests alone exceed capacity": (
        lambda d: d["requests"].extend(
            [req("l1", "p1", crew=3, locked=True), req("l2", "p2", crew=2, locked=True)]
        ),
        "requests[4].locked",
        "locked requests alone need 5 places in tunnel, post-match",
    ),
    "unknown tier rule": (
        _set(["policy"], {"tiers": [{"name": "t", "rule": "partners"}]}),
        "policy.tiers[0].rule",
        '"partner"',
    ),
    "unknown kind in rule": (
        _set(["policy"], {"tiers": [{"name": "t", "rule": "kind:tv"}]}),
        "policy.tiers[0].rule",
        "unknown organisation kind",
    ),
    "bad deadline": (_set(["policy"], {"deadline": "5 days"}), "policy.deadline", "duration"),
    "bad mode": (_set(["policy"], {"within_tier": "most"}), "policy.within_tier", "most-granted"),
    "bad organisation kind": (
        _set(["organisations", 0, "kind"], "tv"),
        "organisations[0].kind",
        "unknown kind",
    ),
    "home is away": (_set(["matches", 0, "away"], "home-fc"), "matches[0].away", "same club"),
    "empty phases": (_set(["requests", 0, "phases"], []), "requests[0].phases", "at least one"),
    "locked not boolean": (_set(["requests", 0, "locked"], "yes"), "requests[0].locked", "true or"),
    "request not a mapping": (_set(["requests", 0], "r0"), "requests[0]", "mapping"),
    "a bare id where a list is due": (
        _set(["requests", 0, "phases"], "post-match"),
        "requests[0].phases",
        "[post-match]",
    ),
    "crew beyond any ground": (
        _set(["requests", 0, "crew"], 2**63),
        "requests[0].crew",
        "at most 1,000,000",
    ),
    "capacity beyond any ground": (
        _set(["venues", 0, "zones", 0, "capacity"], {"default": 2**62}),
        "venues[0].zones[0].capacity.default",
        "at most",
    ),
    "minute not a number": (
        _set(["incidents", 0, "minute"], float("nan")),
        "incidents[0].minute",
        "finite",
    ),
    "missing competition": (_set(["competition"], _DELETE), "competition", "missing"),
    "a camera with an empty phase list": (
        _set(["venues", 0, "cameras"], [{"id": "c", "zone": "pitch", "phases": []}]),
        "venues[0].cameras[0].phases",
        "leave it out",
    ),
    "a phase listed twice": (
        _set(["requests", 0, "phases"], ["post-match", "post-match"]),
        "requests[0].phases",
        "more than once",
    ),
    "a deadline of centuries": (
        _set(["policy"], {"deadline": "99999999999d"}),
        "policy.deadline",
        "at most 3650d",
    ),
    "a kick-off too early for its deadline": (
        _set(["matches", 0, "kickoff"], "0001-01-02T00:00:00+00:00"),
        "matches[0].kickoff",
        "too early",
    ),
    "requests not a list": (_set(["requests"], {"id": "r0"}), "requests", "must be a list"),
    # A lone surrogate passed `validate` and ended `load` in the database's traceback; a
    # newline in an organisation's name dropped every e-mail of its match (a header line).
    "a lone surrogate in a name": (
        _set(["organisations", 1, "name"], "Partner \ud800One"),
        "organisations[1].name",
        "lone surrogate (U+D800) at character 9",
    ),
    "a newline in a name": (
        _set(["organisations", 1, "name"], "Partner\nOne"),
        "organisations[1].name",
        "control character or line break (U+000A)",
    ),
    "a terminal's escape in an id": (
        _set(["requests", 0, "id"], "r0\x1b[2J"),
        "requests[0].id",
        "control character",
    ),
    "a line separator in a venue's name": (
        _set(["venues", 0, "name"], "The\u2028Ground"),
        "venues[0].name",
        "(U+2028)",
    ),
}


def valid() -> Doc:
    return scenario(
        req("r0", "p1"),
        req("r1", "p2"),
        req("r2", "h"),
        incidents=[{"id": "i1", "match": "m1", "zone": "pitch", "minute": 10}],
    )


def test_the_base_document_is_valid() -> None:
    assert load_document(valid()).requests[0].id == "r0"


@pytest.mark.parametrize("case", CASES)
def test_each_rule(case: str) -> None:
    change, path, fragment = CASES[case]
    document = valid()
    change(document)
    found = problems(document)
    assert path in found, found
    assert fragment in found[path]


def test_every_problem_is_reported_at_once() -> None:
    document = valid()
    document["requests"][0]["crew"] = 0
    document["requests"][1]["zone"] = "lobby"
    document["matches"][0]["kickoff"] = "2024-05-01 15:00"
    found = problems(document)
    assert {"requests[0].crew", "requests[1].zone", "matches[0].kickoff"} <= set(found)


def test_a_bad_match_does_not_cascade_into_its_requests() -> None:
    document = valid()
    document["matches"][0]["kickoff"] = "soon"
    assert list(problems(document)) == ["matches[0].kickoff"]


def test_unknown_fields_are_warnings_with_a_hint_not_errors() -> None:
    document = valid()
    document["requests"][0]["cosent"] = ["away-fc"]
    scenario_, found, warnings = check_document(document)
    assert scenario_ is not None and found == []
    assert [(w.path, "consent" in w.message) for w in warnings] == [("requests[0].cosent", True)]


def test_numeric_ids_are_read_as_text() -> None:
    document = valid()
    document["requests"][0]["id"] = 7
    assert load_document(document).requests[0].id == "7"


def test_defaults_for_policy_phases_and_cameras() -> None:
    loaded = load_document(valid())
    assert [t.rule for t in loaded.policy.tiers] == ["host", "partner", "club", "any"]
    assert loaded.policy.deadline.days == 5
    assert loaded.phases[0].id == "arrival"
    assert loaded.requests[0].cameras == 1


def test_zone_closed_and_capacity_map_refer_to_known_phases() -> None:
    document = valid()
    zone(document, "away-room")["closed"] = ["halftime"]
    assert '"half-time"' in problems(document)["venues[0].zones[1].closed[0]"]


def _default_plan_with_a_bad_end() -> list[dict[str, Any]]:
    plan = [{"id": p.id, "start": p.start, "end": p.end} for p in DEFAULT_PHASES]
    plan[0]["end"] = "x"
    return plan


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (_set(["venues", 0, "zones", 0, "capacity"], -1), ["venues[0].zones[0].capacity"]),
        (_set(["organisations", 1, "kind"], "tv"), ["organisations[1].kind"]),
        (lambda d: d.update(phases=_default_plan_with_a_bad_end()), ["phases[0].end"]),
    ],
)
def test_an_item_with_a_problem_is_still_known_to_its_references(change, expected) -> None:
    """No "unknown zone tunnel" on top of the tunnel's own bad capacity."""
    document = valid()
    document["requests"][0]["phases"] = ["arrival"]
    document["requests"][1]["phases"] = ["arrival"]
    document["requests"][2]["phases"] = ["arrival"]
    document["incidents"][0]["minute"] = 0
    change(document)
    assert list(problems(document)) == expected


def test_locked_overflow_is_reported_beside_other_problems() -> None:
    document = valid()
    document["requests"] += [
        req("l1", "p1", crew=3, locked=True),
        req("l2", "p2", crew=2, locked=True),
    ]
    document["requests"][0]["zone"] = "lobby"
    found = problems(document)
    assert set(found) == {"requests[0].zone", "requests[4].locked"}


def test_numeric_phase_ids_in_a_capacity_map() -> None:
    document = valid()
    document["phases"] = [{"id": 1, "start": 0, "end": 45}, {"id": 2, "start": 45, "end": 90}]
    for request in document["requests"]:
        request["phases"] = [1]
    document["incidents"] = []
    for z in document["venues"][0]["zones"]:
        z.pop("closed", None)
    zone(document, "tunnel")["capacity"] = {1: 3, 2: 4}
    assert load_document(document).venues[0].zones[0].capacity == {"1": 3, "2": 4}


def test_an_incidents_account_may_run_over_lines_but_holds_no_other_control() -> None:
    document = valid()
    document["incidents"][0]["what"] = "push in the tunnel\n\tseen by two stewards"
    assert load_document(document).incidents[0].what.startswith("push")
    document["incidents"][0]["what"] = "push\x00"
    assert "control character" in problems(document)["incidents[0].what"]
