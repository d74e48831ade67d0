"""Scenarios into the database and back: the exported match decides as the file did."""

from __future__ import annotations

from pathlib import Path

import pytest

from pitchpass.core import ScenarioInvalid, decide_document
from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.yaml"))
pytestmark = pytest.mark.django_db


def document(path: Path) -> dict:
    return parse_text(path.read_text(), path.name)


def decided(doc: dict) -> dict[str, dict]:
    return {m_["match"]: m_ for m_ in decide_document(doc)["matches"]}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_match_exported_decides_exactly_as_the_file(path: Path) -> None:
    doc = document(path)
    loaded = store.load(doc)
    assert "policy.season" not in [w.path for w in loaded.warnings]  # kept: they bind
    expected = decided(doc)
    for match_key in expected:
        if "season" in (doc.get("policy") or {}):
            # Season rules bind on the desk: a match's export carries them and what the
            # season holds elsewhere (nothing yet: nothing is published), so it decides
            # as the file does with only that match's requests.
            alone = {**doc, "requests": [r for r in doc["requests"] if r["match"] == match_key]}
            expected[match_key] = decided(alone)[match_key]
        assert decided(store.export(match_key))[match_key] == expected[match_key]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_the_list_read_in_one_query_is_the_requests_read_as_rows(path: Path) -> None:
    """store.requests_json (what the API lists, consent joined in) says of every request
    what request_json says of its row; revoked and locked ones too."""
    store.load(document(path))
    changed = m.Request.objects.order_by("pk")
    changed.filter(pk__in=changed.values("pk")[:2]).update(locked=True)
    changed.filter(pk__in=changed.values("pk")[2:3]).update(revoked="by hand: <b>x</b>")
    two = m.Organisation.objects.order_by("-key")[:2]  # joined as two rows, listed sorted
    changed.last().consent.set(two)
    compared = 0
    for match in m.Match.objects.all():
        rows = [store.request_json(match.key, r) for r in store.request_rows(match)]
        assert store.requests_json(match.requests.all()) == rows
        compared += len(rows)
    assert compared == m.Request.objects.count() > 0
    every = [store.request_json(r.match.key, r) for r in m.Request.objects.order_by(
        "match__position", "match_id", "position", "pk")]  # fmt: skip
    assert store.requests_json(m.Request.objects.all()) == every  # several matches, in order
    last = changed.last()
    listed = store.requests_json(m.Request.objects.filter(pk=last.pk))
    assert listed[0]["consent"] == sorted(o.key for o in two)


def test_loading_twice_changes_nothing() -> None:
    doc = document(SCENARIOS[0])
    store.load(doc)
    rows = _primary_keys()
    exported = {k: store.export(k) for k in store.match_keys()}
    store.load(doc)
    assert _primary_keys() == rows
    assert {k: store.export(k) for k in store.match_keys()} == exported


def test_a_request_left_out_of_the_file_is_removed_and_a_change_is_kept() -> None:
    doc = document(next(p for p in SCENARIOS if p.name == "manchester-derby-2017.yaml"))
    store.load(doc)
    doc["requests"] = doc["requests"][1:]
    doc["requests"][0]["crew"] = 1
    store.load(doc)
    exported = store.export("mun-mci-2017-12-10")
    assert [r["id"] for r in exported["requests"]] == [r["id"] for r in doc["requests"]]
    assert exported["requests"][0]["crew"] == 1


def test_loading_again_writes_consent_order_and_fields_as_the_file_has_them() -> None:
    """A load writes each match's requests in a few statements: loaded again with a
    consent given, one taken back, the requests in another order and one more, the
    stored match is the file's, and the requests kept keep their rows."""
    doc = document(next(p for p in SCENARIOS if p.name == "manchester-derby-2017.yaml"))
    store.load(doc)
    before = dict(m.Request.objects.values_list("key", "pk"))
    with_consent = next(r for r in doc["requests"] if r.get("consent"))
    without = next(r for r in doc["requests"] if not r.get("consent"))
    with_consent["consent"] = []
    without["consent"] = ["man-united", "man-city"]
    doc["requests"].reverse()
    doc["requests"].append({**doc["requests"][0], "id": "r99"})
    store.load(doc)
    exported = store.export("mun-mci-2017-12-10")
    assert [r["id"] for r in exported["requests"]] == [r["id"] for r in doc["requests"]]
    by_id = {r["id"]: r for r in exported["requests"]}
    assert by_id[with_consent["id"]].get("consent", []) == []
    assert by_id[without["id"]]["consent"] == ["man-city", "man-united"]
    after = dict(m.Request.objects.values_list("key", "pk"))
    assert {k: after[k] for k in before} == before and "r99" in after


def test_an_invalid_file_writes_nothing() -> None:
    doc = document(SCENARIOS[0])
    doc["requests"][0]["crew"] = 0
    with pytest.raises(ScenarioInvalid):
        store.load(doc)
    assert m.Match.objects.count() == 0 and m.Organisation.objects.count() == 0


def _primary_keys() -> dict:
    return {model: sorted(model.objects.values_list("pk", flat=True)) for model in _models()}


def _models() -> list:
    return [m.Organisation, m.Competition, m.Tier, m.Phase, m.Venue, m.Zone, m.Camera,
            m.Match, m.Request, m.Incident]  # fmt: skip


def test_a_time_the_database_cannot_keep_is_a_problem_not_a_crash() -> None:
    doc = document(next(p for p in SCENARIOS if p.name == "manchester-derby-2017.yaml"))
    doc["incidents"][0].pop("minute", None)
    doc["incidents"][0]["at"] = "0001-01-01T00:30:00+01:00"
    doc["requests"][1]["submitted"] = "9999-12-31T23:30:00-01:00"
    with pytest.raises(ScenarioInvalid) as invalid:
        store.load(doc)
    assert [p.path for p in invalid.value.problems] == ["requests[1].submitted", "incidents[0].at"]
    assert m.Match.objects.count() == 0
