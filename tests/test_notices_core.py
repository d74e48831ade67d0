"""core/match_day/notices.py: which requests a change tells of, and of what kind."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from pitchpass.core.match_day import notices
from pitchpass.core.match_day.notices import Outcome
from pitchpass.core.model import Incident, Phase, Request

G, R = "granted", "refused"
FULL = Outcome(R, ("capacity: tunnel, post-match: 46 of 46",))


def test_a_new_proposal_tells_what_changed_and_a_lost_grant_as_bumped() -> None:
    before = {"r1": Outcome(G), "r2": FULL, "r3": Outcome(G)}
    after = {"r1": FULL, "r2": FULL, "r3": Outcome(G), "r4": Outcome(G)}
    assert notices.after_proposal(before, after) == {"r1": "bumped", "r4": "decided"}
    # A refusal for another reason is told again; a refusal turned grant is "decided".
    other = Outcome(R, ("late",))
    assert notices.after_proposal({"r2": FULL}, {"r2": other}) == {"r2": "decided"}
    assert notices.after_proposal({"r2": FULL}, {"r2": Outcome(G)}) == {"r2": "decided"}


def test_a_publish_tells_new_grants_and_refusals_not_told_as_they_stand() -> None:
    decided = {"r1": Outcome(G), "r2": FULL, "r3": FULL, "r4": Outcome(G)}
    told = {"r3": FULL, "r4": Outcome(G)}  # r4 published before: not newly
    assert notices.after_publish(decided, ["r1"], told) == {"r1": "granted", "r2": "refused"}
    assert notices.after_publish(decided, [], {**told, "r2": FULL, "r1": Outcome(G)}) == {}


outcomes = st.builds(
    Outcome, st.sampled_from([G, R]), st.tuples(st.sampled_from(["late", "capacity"]))
)
keyed = st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), outcomes)


@given(keyed, keyed)
def test_exactly_the_requests_decided_otherwise_are_told_of(before, after) -> None:
    told = notices.after_proposal(before, after)
    assert set(told) == {k for k, o in after.items() if before.get(k) != o}
    for key, kind in told.items():
        lost = before.get(key, Outcome(R)).status == G and after[key].status == R
        assert kind == ("bumped" if lost else "decided")


PLAN = (Phase("pre-match", -90, 0), Phase("post-match", 105, 150))
WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def _req(key: str, by: str, zone: str, phases: tuple[str, ...]) -> Request:
    return Request(key, "m", by, zone, phases, 2, WHEN, locked=True)


def test_an_incident_is_told_to_those_holding_its_zone_in_its_phase() -> None:
    published = [
        _req("r1", "sky", "tunnel", ("post-match",)),
        _req("r2", "bt", "tunnel", ("pre-match",)),
        _req("r3", "bbc", "pitch-side", ("post-match",)),
        _req("r4", "sky", "tunnel", ("post-match",)),
        _req("r5", "docs", "tunnel", ("pre-match", "post-match")),
    ]
    incident = Incident("i1", "m", "tunnel", 110.0)
    assert notices.holders(incident, PLAN, published) == ["sky", "docs"]
    outside = Incident("i2", "m", "tunnel", 60.0)  # in no phase: no one holds it then
    assert notices.holders(outside, PLAN, published) == []


def test_a_user_hears_as_they_chose_else_as_their_organisation_chose() -> None:
    assert notices.wanted("refused", None, None)
    assert not notices.wanted("refused", ["granted"], None)
    assert notices.wanted("refused", ["granted"], ["refused"])
    assert not notices.wanted("granted", None, [])  # chose to hear nothing
    assert set(notices.WORDS) == set(notices.KINDS)
