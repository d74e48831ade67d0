"""Releases, phase by phase (core/match_day/release.py, docs/scenario-extensions.md "Releases"):
checked against the independent oracle (oracle_waitlist.oracle_releases) on generated
grants, scans, clocks, grace periods and exempt tiers, and on the cases the issue named:
no release within the grace after a publish, the host never released, a crew that
missed the arrival keeping its post-match place."""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_waitlist import oracle_late_scans, oracle_releases, oracle_upcoming

from pitchpass.core import load_document
from pitchpass.core.match_day.doors import IN, OUT, Scan
from pitchpass.core.match_day.release import (
    at_publish,
    contested,
    contradicted,
    due,
    released_by,
    schedule,
    upcoming,
    warnings,
    why,
)
from profiles import examples

SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
MATCH = "mun-mci-2017-12-10"
PHASES = ["arrival", "pre-match", "post-match"]


def _seed(**match_day: Any) -> dict[str, Any]:
    doc = yaml.safe_load(SEED.read_text())
    doc["matches"] = [m for m in doc["matches"] if m["id"] == MATCH]
    doc["requests"] = [r for r in doc["requests"] if r["match"] == MATCH]
    if match_day:
        doc.setdefault("policy", {})["match_day"] = match_day
    return doc


@settings(max_examples=examples(250), deadline=None)
@given(
    crews=st.lists(st.sets(st.sampled_from(PHASES), min_size=1), min_size=1, max_size=5),
    scans=st.lists(
        st.tuples(st.integers(0, 4), st.sampled_from([IN, OUT]), st.integers(-200, 200)),
        max_size=10,
    ),
    minute=st.integers(-200, 200),
    before=st.integers(0, 14),
    grace=st.sampled_from([0, 10, 60, 200]),
    exempt=st.sampled_from([None, [], ["host", "partner"], ["other"]]),
    made=st.lists(st.one_of(st.none(), st.integers(-300, 150)), min_size=5, max_size=5),
    released=st.lists(st.sampled_from(PHASES), max_size=2),
)
def test_releases_match_the_oracle(
    crews: Any, scans: Any, minute: int, before: int, grace: int, exempt: Any, made: Any,
    released: Any,
) -> None:  # fmt: skip
    rules: dict[str, Any] = {"release_before": before, "release_grace": grace}
    if exempt is not None:
        rules["release_exempt"] = exempt
    doc = _seed(**rules)
    scenario = load_document(copy.deepcopy(doc))
    grants = [
        {**r, "phases": [p for p in PHASES if p in phases]}
        for r, phases in zip(doc["requests"][::5], crews, strict=False)
    ]
    rows = [
        {"request": grants[i]["id"], "direction": d, "minute": float(t)}
        for i, d, t in scans
        if i < len(grants)
    ]
    by_id = {r.id: r for r in scenario.requests}
    core_grants = [dataclasses.replace(by_id[g["id"]], phases=tuple(g["phases"])) for g in grants]
    core_scans = [Scan(s["request"], "tunnel", s["direction"], s["minute"]) for s in rows]
    since = {g["id"]: float(t) for g, t in zip(grants, made, strict=False) if t is not None}
    done = {grants[0]["id"]: released}
    got = due(scenario, MATCH, core_grants, core_scans, minute, since, done)
    expected = oracle_releases(doc, grants, rows, minute, since, done)
    assert [(x.request, x.phase, x.minute) for x in got] == expected
    # What the match-day header says is due next: of the scans made by `minute` only.
    so_far = [s for s in core_scans if s.minute <= minute]
    ahead = upcoming(scenario, MATCH, core_grants, so_far, minute, since, done)
    listed = oracle_upcoming(doc, grants, [s for s in rows if s["minute"] <= minute], minute,
                             since, done)  # fmt: skip
    assert [(x.request, x.phase, x.minute) for x in ahead] == listed
    # A scan an offline door sends after a release: the pass as it was at `minute`, and
    # the releases the scans now known show were wrong.
    first = core_grants[0]
    lost = released_by(first, scenario, since.get(first.id), released, minute)
    wrong = contradicted(first, scenario, since.get(first.id), released, core_scans)
    assert (list(lost), list(wrong)) == oracle_late_scans(
        doc, grants[0], released, rows, minute, since
    )


def _grant(scenario: Any, tier: str = "other", phases: tuple[str, ...] = ("post-match",)) -> Any:
    """A request of the seed's of that tier, given these phases."""
    host = {"host": "sky-sports"}.get(tier)
    found = next(
        r for r in scenario.requests
        if (r.by == host if host else r.by not in ("sky-sports", "bt-sport"))
    )  # fmt: skip
    return dataclasses.replace(found, phases=phases)


def test_a_publish_leaves_the_grace_before_any_release() -> None:
    """The review's case: published one minute before the release time, the crew is not
    released a minute later but 60 minutes after the publish, warned 30 before."""
    scenario = load_document(_seed())
    request = _grant(scenario, phases=("pre-match", "post-match"))
    pre = next(p for p in scenario.phases if p.id == "pre-match")
    published = pre.start - 5 - 1  # one minute before pre-match's release time
    assert due(scenario, MATCH, [request], [], published + 2, {request.id: published}) == []
    later = due(scenario, MATCH, [request], [], published + 60, {request.id: published})
    assert [(x.phase, x.minute, x.grace) for x in later] == [("pre-match", published + 60, True)]
    warned = warnings(scenario, MATCH, [request], [], published + 30, {request.id: published})
    assert [x.phase for x in warned] == ["pre-match"]
    assert at_publish(scenario, MATCH, [request], published)[0].phase == "pre-match"
    text = why(later[0], scenario.policy.match_day, "18:35 (minute -59)")
    assert "60 minutes after its grant was published" in text and "pre-match" in text


def test_a_crew_that_missed_the_arrival_keeps_its_post_match_place() -> None:
    scenario = load_document(_seed())
    request = _grant(scenario, phases=("pre-match", "post-match"))
    post = next(p for p in scenario.phases if p.id == "post-match")
    first = due(scenario, MATCH, [request], [], -10, {})  # pre-match: -60 to 0
    assert [x.phase for x in first] == ["pre-match"]
    came = [Scan(request.id, request.zone, IN, 30)]  # in at minute 30, before post-match
    done = {request.id: ["pre-match"]}
    assert due(scenario, MATCH, [request], came, post.start, {}, done) == []
    # Missing that too, it loses the post-match place as well.
    missed = due(scenario, MATCH, [request], [], post.start, {}, done)
    assert [x.phase for x in missed] == ["post-match"]


def test_the_host_is_never_released_by_default() -> None:
    scenario = load_document(_seed())
    host = _grant(scenario, "host", ("pre-match",))
    assert due(scenario, MATCH, [host], [], 30, {}) == []
    assert schedule(host, scenario, None)  # it has release times: only exempt from them
    everyone = load_document(_seed(release_exempt=[]))
    assert [x.request for x in due(everyone, MATCH, [host], [], -10, {})] == [host.id]


def test_bad_release_rules_are_named_at_their_paths() -> None:
    from pitchpass.core.reading.problems import ScenarioInvalid

    try:
        load_document(_seed(release_grace=-1, release_warning=5000, release_exempt=["hots"]))
    except ScenarioInvalid as invalid:
        paths = sorted(p.path for p in invalid.problems)
        said = " ".join(p.message for p in invalid.problems)
    else:
        raise AssertionError("bad release rules were accepted")
    assert paths == [
        "policy.match_day.release_exempt[0]",
        "policy.match_day.release_grace",
        "policy.match_day.release_warning",
    ]
    assert 'did you mean "host"' in said


def test_a_grant_keeps_its_phases_not_released_and_is_released_whole_with_none() -> None:
    from pitchpass.core.match_day.release import kept, released_whole

    assert kept(("pre-match", "post-match"), ["pre-match"]) == ("post-match",)
    assert not released_whole(("pre-match", "post-match"), ["pre-match"])
    assert released_whole(("pre-match", "post-match"), ["post-match", "pre-match"])
    assert not released_whole(("pre-match",), [])  # nothing released: not a release
    # A place offered from the waitlist holds the phases offered only (those to come).
    assert kept(("pre-match", "post-match"), [], ["post-match"]) == ("post-match",)
    assert released_whole(("pre-match", "post-match"), ["post-match"], ["post-match"])


def test_a_contested_release_keeps_its_reason_and_says_it_was_no_no_show() -> None:
    said = contested("no-show: none of its crew had checked in by 20:10", ["post-match"],
                     "20:05", "tunnel, post-match: 46 of 46 places held by r24")  # fmt: skip
    assert said.startswith("no-show: none of its crew had checked in by 20:10; one of its")
    assert "let in at 20:05 by a door that was offline, before its post-match place" in said
    assert said.endswith("(tunnel, post-match: 46 of 46 places held by r24): not a no-show,"
                         " a conflict for the officer")  # fmt: skip
    alone = contested("", ["pre-match", "post-match"], "20:05", "x")
    assert alone.startswith("one of its crew") and "pre-match, post-match place" in alone
