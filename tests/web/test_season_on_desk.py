"""The season's rules bind on the desk (issue 27, section 1): a match is decided with
what the season has published already (the other matches' published grants, locked) and
by the same core engine as the command line.
Two copies of the seed match a week apart, with a season quota for Sky Sports equal to
what Sky gets at one match (3 requests): once the first is published, the desk's
decision of the second keeps Sky within its quota, each of its requests there refused
for `quota`; the CLI deciding the exported match agrees."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from pitchpass.core import decide_document
from pitchpass.web.errors import ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions, views
from pitchpass.web.services.accounts import do_add_user, do_create_token

pytestmark = pytest.mark.django_db

SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
FIRST, SECOND = "mun-mci-2017-12-10", "mun-mci-2017-12-17"
SKY = {"r01", "r27", "r30"}  # at the first match; "s01", "s27", "s30" at the second
SKY_AGAIN = {"s01", "s27", "s30"}


def _two_matches(quota: int = 3) -> dict[str, Any]:
    doc = yaml.safe_load(SEED.read_text())
    first = next(m for m in doc["matches"] if m["id"] == FIRST)
    doc["matches"] = [first, {**first, "id": SECOND, "kickoff": "2017-12-17T16:30:00+00:00"}]
    own = [r for r in doc["requests"] if r["match"] == FIRST]
    again = [{**copy.deepcopy(r), "match": SECOND, "id": "s" + r["id"][1:]} for r in own]
    doc["requests"] = own + again  # ids are unique in a scenario file
    doc.setdefault("policy", {})["season"] = {
        "quotas": [{"for": "sky-sports", "per": "season", "counts": "requests", "at_most": quota}]
    }
    return doc


def _granted(output: dict[str, Any]) -> set[str]:
    return {d["request"] for d in output["decisions"] if d["status"] == "granted"}


def test_a_season_quota_binds_the_second_match_once_the_first_is_published() -> None:
    store.load(_two_matches())
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    first = decisions.do_decide(officer, FIRST)
    sky_first = _granted(first) & SKY
    decisions.do_publish(officer, FIRST)
    second = decisions.do_decide(officer, SECOND)
    sky_second = _granted(second) & SKY_AGAIN
    assert sky_first == SKY and sky_second == set()  # 3 of 3 used at the first
    refused = [d for d in second["decisions"] if d["request"] in SKY_AGAIN - sky_second]
    assert len(refused) == len(sky_first)
    for d in refused:
        assert d["status"] == "refused"
        assert "quota" in [r["code"] for r in d["reasons"]], d
    # The command line, given the desk's export of the second match, decides alike.
    exported = store.export(SECOND)
    mine = next(m for m in decide_document(exported)["matches"] if m["match"] == SECOND)
    assert _granted(mine) == _granted(second)


def test_without_season_rules_each_match_is_decided_on_its_own() -> None:
    doc = _two_matches()
    del doc["policy"]["season"]
    store.load(doc)
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)
    assert _granted(decisions.do_decide(officer, SECOND)) & SKY_AGAIN == SKY_AGAIN
    assert [m["id"] for m in store.export(SECOND)["matches"]] == [SECOND]


def test_a_clubs_officer_exports_its_match_alone_and_an_admin_the_season() -> None:
    store.load(_two_matches())
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    officer = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token('officer')}")
    admin = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token('admin')}")
    own = yaml.safe_load(officer.get(f"/api/matches/{SECOND}/export").content)
    assert [m["id"] for m in own["matches"]] == [SECOND]
    assert {r["match"] for r in own["requests"]} == {SECOND} and "season" not in own["policy"]
    whole = yaml.safe_load(admin.get(f"/api/matches/{SECOND}/export").content)
    assert [m["id"] for m in whole["matches"]] == [FIRST, SECOND]
    assert whole["policy"]["season"]["quotas"][0]["at_most"] == 3


def test_a_run_decided_before_the_season_moved_on_elsewhere_is_stale() -> None:
    # The second match decided (Sky granted its 3 there: nothing held at the first); then
    # the first published with Sky's three: the second's run was decided with a season
    # that is no more. Its board says so, Publish is not offered, and a publish is a 409.
    store.load(_two_matches())
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    assert _granted(decisions.do_decide(officer, SECOND)) & SKY_AGAIN
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)
    page = Client()
    page.force_login(officer)
    board = page.get(f"/matches/{SECOND}/").content.decode()
    said = "The season changed since run 1: another of its matches published, revoked"
    assert said in board and 'action="/matches/mun-mci-2017-12-17/publish/"' not in board
    with pytest.raises(ServiceError) as refused:
        decisions.do_publish(officer, SECOND)
    assert refused.value.code == "stale-run" and "the season changed since run 1" in (
        refused.value.message
    )
    assert not m.Request.objects.filter(match__key=SECOND, locked=True).exists()
    again = decisions.do_decide(officer, SECOND)  # decided again: the season as it stands
    assert _granted(again) & SKY_AGAIN == set()
    assert 'id="stale"' not in page.get(f"/matches/{SECOND}/").content.decode()
    decisions.do_publish(officer, SECOND)


def test_a_publish_checks_the_quotas_again_under_the_competitions_lock(monkeypatch) -> None:
    # Two officers publishing at once: both runs are current when each checks (the other
    # has not committed yet), so only the check under the competition's lock, with the
    # season read after it, stands between them and a quota passed. That moment is made
    # here by the first match's grants written behind the app and the run's own check
    # passed (as the race passes it): publishing the second would take Sky past 3 of 3,
    # and is refused with the quota, where the season stands and who counts.
    store.load(_two_matches())
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    sky_second = _granted(decisions.do_decide(officer, SECOND)) & SKY_AGAIN
    assert sky_second
    m.Request.objects.filter(match__key=FIRST, key__in=sorted(SKY)).update(locked=True)
    monkeypatch.setattr(decisions, "season_changed", lambda match, run: None)
    with pytest.raises(ServiceError) as refused:
        decisions.do_publish(officer, SECOND)
    said = refused.value.message
    assert refused.value.code == "quota"
    assert f"season quota of Sky Sports: {3 + len(sky_second)} of 3 requests" in said
    assert "r01" in said and all(key in said for key in sky_second)
    assert not m.Request.objects.filter(match__key=SECOND, locked=True).exists()  # nothing


def test_the_officers_board_says_where_the_season_stands_and_media_do_not_see_it() -> None:
    store.load(_two_matches())
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)
    match = m.Match.objects.get(key=SECOND)
    season = views.season_standing(match, officer)
    assert season is not None
    assert [(q.name, q.used, q.at_most) for q in season.quotas] == [
        ("season quota of Sky Sports", 3, 3)
    ]
    pages = {}
    for name in ("officer", "bt"):
        client = Client()
        client.force_login(User.objects.get(username=name))
        pages[name] = client.get(f"/matches/{SECOND}/").content.decode()
    assert "Where the season stands" in pages["officer"]
    assert "season quota of Sky Sports: 3 of 3 requests used" in pages["officer"]
    assert "Where the season stands" not in pages["bt"]


def test_section_k_on_the_desk_owes_the_broadcaster_televising_the_match() -> None:
    """docs/section-k.md on the desk: each match's `televised_by` is kept by a load and
    exported again; at the second match, televised by BT, United owes BT its one
    enhancement (the flash interview has no occupant: the home club's), the board says
    so, and the desk decides as the command line does on the export."""
    doc = _two_matches()
    doc["matches"][0]["televised_by"] = ["sky-sports"]
    doc["matches"][1]["televised_by"] = ["bt-sport"]
    doc["policy"]["season"]["minimums"] = [
        {"name": "Section K", "section": "K", "at_least": 1,
         "cells": [{"zone": "flash-interview", "phases": ["half-time"]}]},
    ]  # fmt: skip
    doc["requests"].append(
        {"id": "s99", "match": SECOND, "by": "bt-sport", "zone": "flash-interview",
         "phases": ["half-time"], "crew": 2, "submitted": "2017-12-08T09:00:00+00:00"}
    )  # fmt: skip
    store.load(doc)
    exported = store.export(SECOND)
    assert {x["id"]: x.get("televised_by") for x in exported["matches"]} == {
        FIRST: ["sky-sports"],
        SECOND: ["bt-sport"],
    }
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    season = views.season_standing(m.Match.objects.get(key=SECOND), officer)
    assert season is not None
    assert [(x.name, x.club, x.to, x.met, x.at_least, x.left) for x in season.minimums] == [
        ("Section K", "Manchester United", "BT Sport", 0, 1, 1)
    ]
    client = Client()
    client.force_login(officer)
    page = client.get(f"/matches/{SECOND}/").content.decode()
    assert "Section K, Manchester United to BT Sport: 0 of 1 met, 1 match left" in page
    output = decisions.do_decide(officer, SECOND)
    mine = next(x for x in decide_document(exported)["matches"] if x["match"] == SECOND)
    assert _granted(mine) == _granted(output)


def test_the_board_says_the_make_up_debts_a_club_owes_from_its_published_refusals() -> None:
    """Section K's debt on the desk: at the first match United refuses BT its dressing
    room (no consent) and the refusal is published; the second match's board says United
    owes BT one occasion made up, counted by the same walk as the season report
    (core.debts), and says none before the first is published."""
    doc = _two_matches()
    for match in doc["matches"]:
        match["televised_by"] = ["bt-sport"]
    doc["policy"]["season"]["minimums"] = [
        {"name": "Section K", "section": "K", "at_least": 2,
         "cells": [{"zone": "home-dressing-room", "phases": ["pre-match"]}]},
    ]  # fmt: skip
    for n, match_id in enumerate((FIRST, SECOND)):  # no consent given: United refuses
        doc["requests"].append(
            {"id": f"k{n}", "match": match_id, "by": "bt-sport", "zone": "home-dressing-room",
             "phases": ["pre-match"], "crew": 2, "submitted": "2017-12-01T09:00:00+00:00"}
        )  # fmt: skip
    store.load(doc)
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    second = m.Match.objects.get(key=SECOND)

    def owed() -> list[tuple[str, str, int, int]]:
        season = views.season_standing(second, officer)
        assert season is not None
        return [(x.club, x.to, x.met, x.owed) for x in season.minimums]

    first = decisions.do_decide(officer, FIRST)
    refused = next(d for d in first["decisions"] if d["request"] == "k0")
    assert [r["code"] for r in refused["reasons"]] == ["no-consent"]
    assert owed() == [("Manchester United", "BT Sport", 0, 0)]  # proposed, not published
    decisions.do_publish(officer, FIRST)
    assert owed() == [("Manchester United", "BT Sport", 0, 1)]
    client = Client()
    client.force_login(officer)
    page = client.get(f"/matches/{SECOND}/").content.decode()
    assert "Section K, Manchester United to BT Sport: 0 of 2 met" in page
    assert "2 matches" not in page and "the one still owed" not in page  # 2 still owed
    assert "of the 2 still owed, 1 makes up for a refusal by Manchester United</li>" in page


def test_the_seasons_fingerprint_read_from_the_export_is_the_one_read_again() -> None:
    """A run's fingerprint of the season (store.held_digest) is read from the export it
    was decided from, where there is one: it is the one read again from the rows, an id
    the export writes `match:id` included, and it moves when another match publishes."""
    store.load(_two_matches(quota=10))
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)
    second = m.Match.objects.get(key=SECOND)
    m.Request.objects.create(  # an id the first match's published grant r01 has
        match=second, key="r01", by=m.Organisation.objects.get(key="bt-sport"),
        zone=second.venue.zones.get(key="tunnel"), phases=["post-match"], crew=1,
        submitted=second.kickoff, position=999,
    )  # fmt: skip
    document = store.export(SECOND)
    assert f"{FIRST}:r01" in {r["id"] for r in document["requests"]}
    read_again = store.held_digest(second)
    assert store.held_digest(second, document=document) == read_again
    decisions.do_decide(officer, SECOND)
    assert m.DecisionRun.objects.get(match=second).season_held == read_again
    m.Request.objects.filter(match__key=FIRST, key="r01").update(revoked="taken back")
    assert store.held_digest(second) != read_again
    assert store.held_digest(second, document=store.export(SECOND)) == store.held_digest(second)


def test_the_match_list_marks_a_run_the_season_moved_on_from() -> None:
    """The match list says "changed since" of a run whose season moved on elsewhere (the
    board's `season_changed`), every match's fingerprint read at once (store.held_digests,
    each the match's own held_digest)."""
    store.load(_two_matches(quota=10))
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    client = Client()
    client.force_login(officer)
    decisions.do_decide(officer, SECOND)

    def marked() -> list[str]:
        rows = client.get("/").content.decode().split("<tr")[1:]
        return [k for k in (FIRST, SECOND) for row in rows if k in row and "changed since" in row]

    assert marked() == []
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)
    assert marked() == [SECOND]  # the first match's grants now count for the second's quota
    competition = m.Match.objects.get(key=SECOND).competition
    every = store.held_digests(competition)
    assert every == {k: store.held_digest(m.Match.objects.get(key=k)) for k in (FIRST, SECOND)}
    decisions.do_decide(officer, SECOND)
    assert marked() == []


def test_the_boards_debts_stand_as_the_season_is_published_and_stay_the_clubs_own() -> None:
    """Section K's debts on the desk (docs/scenario-extensions.md), by hand: United refuses
    BT its room at the first match (no consent) and City its away room, both published.
    United's officer sees United's debt, not City's (a league admin sees both); a grant
    published at a later match pays United's, even seen from the first match's board; a
    refused request offered a place from the waitlist is held, not a refusal."""
    doc = _two_matches()
    for match in doc["matches"]:
        match["televised_by"] = ["bt-sport"]
    doc["policy"]["season"]["minimums"] = [
        {"name": "Section K", "section": "K", "at_least": 1,
         "cells": [{"zone": "home-dressing-room", "phases": ["pre-match"]},
                   {"zone": "away-dressing-room", "phases": ["pre-match"]}]},
    ]  # fmt: skip
    ask = {"by": "bt-sport", "phases": ["pre-match"], "crew": 1,
           "submitted": "2017-12-01T09:00:00+00:00"}  # fmt: skip
    doc["requests"] += [
        {**ask, "id": "k0", "match": FIRST, "zone": "home-dressing-room"},  # no consent
        {**ask, "id": "a0", "match": FIRST, "zone": "away-dressing-room"},  # no consent
        {**ask, "id": "k1", "match": SECOND, "zone": "home-dressing-room",
         "consent": ["man-united"]},
    ]  # fmt: skip
    store.load(doc)
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("league", "admin", None, "pw-for-tests-only-7")
    officer, admin = User.objects.get(username="officer"), User.objects.get(username="league")
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)

    def owed(key: str, user: User) -> dict[str, tuple[int, int]]:
        season = views.season_standing(m.Match.objects.get(key=key), user)
        assert season is not None
        return {x.club: (x.met, x.owed) for x in season.minimums}

    assert owed(SECOND, admin) == {"Manchester United": (0, 1), "Manchester City": (0, 1)}
    assert owed(SECOND, officer) == {"Manchester United": (0, 1), "Manchester City": (0, 0)}
    assert owed(FIRST, officer)["Manchester United"] == (0, 1)  # refused there: owed
    decisions.do_decide(officer, SECOND)
    decisions.do_publish(officer, SECOND)  # k1 granted: United's debt paid
    assert owed(FIRST, officer)["Manchester United"] == (1, 0)  # seen from the first match
    m.Offer.objects.create(  # City's refusal, then a place offered from the waitlist
        request=m.Request.objects.get(match__key=FIRST, key="a0"), made=timezone.now(),
        until=timezone.now() + timedelta(days=1),
    )  # fmt: skip
    assert owed(SECOND, admin)["Manchester City"] == (1, 0)


def test_a_run_fingerprinted_before_fingerprints_were_sums_is_not_stale_for_that_alone() -> None:
    """A run kept before fingerprints were sums holds the SHA-256 of the sorted places: it
    is compared so (not stale for the change of form, which would make an officer decide
    again and drop the grants by hand), and is stale once the season moves on."""
    store.load(_two_matches(quota=10))
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    officer = User.objects.get(username="officer")
    decisions.do_decide(officer, FIRST)
    decisions.do_publish(officer, FIRST)
    decisions.do_decide(officer, SECOND)
    second = m.Match.objects.get(key=SECOND)
    held = sorted(
        [r["match"], r["id"], r["zone"], r["crew"], r["phases"]]
        for _, r in store.held_elsewhere(second)
    )
    old = hashlib.sha256(json.dumps(held).encode()).hexdigest()  # as it was written
    m.DecisionRun.objects.filter(match=second).update(season_held=old)
    run = decisions.latest_run(second)
    assert run.season_held == old and not old.startswith(store.DIGEST_MARK)
    assert decisions.season_changed(second, run) is None
    assert decisions.season_changed(second, run, store.export(SECOND)) is None
    m.Request.objects.filter(match__key=FIRST, locked=True).update(revoked="taken back")
    assert decisions.season_changed(second, run) is not None
