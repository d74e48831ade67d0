"""A matchweek decided and published together (issue 27, section 1): a league admin
decides several matches of one competition jointly under its season rules, their open
requests in one decision, and publishes them all or none; a club's officer cannot.
Two copies of the seed match a week apart with a season quota of 3 for Sky Sports (what
Sky gets at one match): each decided on its own grants Sky 3 at both (the second publish
then fails on the quota); decided together, Sky gets 3 in all and both publish."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from test_season_on_desk import FIRST, SECOND, SKY, SKY_AGAIN, _granted, _two_matches

from pitchpass.core import decide_document
from pitchpass.web.errors import ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions, matchweek
from pitchpass.web.services.accounts import do_add_user, do_create_token

pytestmark = pytest.mark.django_db
COMPETITION = "premier-league-2017-18"


def _users() -> dict[str, User]:
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    return {name: User.objects.get(username=name) for name in ("admin", "officer")}


def _sky(outputs: dict[str, dict[str, Any]]) -> set[str]:
    return {key for o in outputs.values() for key in _granted(o)} & (SKY | SKY_AGAIN)


def test_a_matchweek_decided_together_keeps_a_quota_that_matches_alone_break() -> None:
    store.load(_two_matches())
    users = _users()
    alone = {key: decisions.do_decide(users["officer"], key) for key in (FIRST, SECOND)}
    assert _sky(alone) == SKY | SKY_AGAIN  # 3 + 3: each knows nothing of the other
    together = matchweek.do_decide_together(users["admin"], [SECOND, FIRST])
    assert list(together) == [FIRST, SECOND] and len(_sky(together)) == 3
    for key, output in together.items():  # each match's run is the joint decision
        assert decisions.latest_run(m.Match.objects.get(key=key)).output == output
        refused = [d for d in output["decisions"] if d["status"] == "refused"]
        assert all(
            "quota" in [r["code"] for r in d["reasons"]]
            for d in refused
            if d["request"] in SKY | SKY_AGAIN
        )
    # The command line, given the same document, decides alike.
    cli = decide_document(store.export(FIRST, together=[SECOND]))["matches"]
    assert {o["match"]: _granted(o) for o in cli} == {k: _granted(o) for k, o in together.items()}
    published = matchweek.do_publish_together(users["admin"], [FIRST, SECOND])
    assert set(published[FIRST]) | set(published[SECOND]) >= _sky(together)
    locked = m.Request.objects.filter(locked=True, key__in=sorted(SKY | SKY_AGAIN))
    assert locked.count() == 3


def test_a_matchweek_is_published_all_or_none() -> None:
    store.load(_two_matches())
    users = _users()
    matchweek.do_decide_together(users["admin"], [FIRST, SECOND])
    # The second match changes after the decide: its run is stale, so neither publishes.
    decisions.do_decide(users["officer"], FIRST)  # the first decided again, alone
    m.Match.objects.filter(key=SECOND).update(version=99)
    with pytest.raises(ServiceError) as stale:
        matchweek.do_publish_together(users["admin"], [FIRST, SECOND])
    assert stale.value.code == "stale-run"
    assert stale.value.message.startswith(f"{SECOND}: the match changed since the last decide")
    assert stale.value.message.endswith("None of the 2 matches ticked was published.")
    assert not m.Request.objects.filter(locked=True).exists()


def test_only_a_league_admin_decides_together_and_says_why_not() -> None:
    store.load(_two_matches())
    users = _users()
    cases = [
        (users["officer"], [FIRST, SECOND], "forbidden", "a club's officer decides its own"),
        (users["admin"], [], "invalid", "tick the matches to decide or publish together"),
        (users["admin"], [FIRST, "no-such-match"], "not-found", 'no match "no-such-match"'),
        (users["admin"], [f"m{n}" for n in range(21)], "invalid", "at most 20 matches"),
        (users["admin"], [FIRST, "a\x00b"], "invalid", "NUL"),
        (users["admin"], [FIRST, "\ud800"], "invalid", "valid Unicode"),
    ]
    for user, keys, code, said in cases:
        with pytest.raises(ServiceError) as refused:
            matchweek.do_decide_together(user, keys)
        assert refused.value.code == code and said in refused.value.message
    assert not m.DecisionRun.objects.exists()


def test_the_api_decides_and_publishes_a_matchweek() -> None:
    store.load(_two_matches())
    _users()
    admin = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token('admin')}")
    officer = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token('officer')}")
    body = {"matches": [FIRST, SECOND]}
    url = f"/api/competitions/{COMPETITION}/"
    refused = officer.post(url + "decide", body, content_type="application/json")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    other = admin.post(
        "/api/competitions/another-cup/decide", body, content_type="application/json"
    )
    assert other.status_code == 400 and f"are of {COMPETITION}" in other.json()["message"]
    bad = admin.post(url + "decide", {"matches": "all"}, content_type="application/json")
    assert bad.status_code == 400 and set(bad.json()) == {"code", "message", "path"}
    decided = admin.post(url + "decide", body, content_type="application/json")
    assert decided.status_code == 200
    assert [o["match"] for o in decided.json()["matches"]] == [FIRST, SECOND]
    published = admin.post(url + "publish", body, content_type="application/json")
    assert published.status_code == 200 and set(published.json()["published"]) == {FIRST, SECOND}


def test_requests_of_two_matches_with_one_id_are_each_decided_as_their_own() -> None:
    """Ids are a match's own: "r05" at both matches is written `match:r05` for the second
    in the joint document, and each run names its requests by their own ids."""
    store.load(_two_matches())
    m.Request.objects.filter(match__key=SECOND, key="s05").update(key="r05")
    decided = matchweek.do_decide_together(_users()["admin"], [FIRST, SECOND])
    for key, output in decided.items():
        own = set(m.Request.objects.filter(match__key=key).values_list("key", flat=True))
        assert {d["request"] for d in output["decisions"]} == own
    assert "r05" in {d["request"] for d in decided[SECOND]["decisions"]}


def _coming() -> dict[str, Any]:
    doc = _two_matches()
    for match, day in zip(doc["matches"], ("2099-12-10", "2099-12-17"), strict=True):
        match["kickoff"] = f"{day}T16:30:00+00:00"
    return doc


def test_the_match_list_offers_a_league_admin_the_matchweek_and_says_what_it_did() -> None:
    store.load(_coming())
    _users()
    pages = {}
    for name in ("admin", "officer"):
        pages[name] = Client()
        pages[name].force_login(User.objects.get(username=name))
    listed = pages["admin"].get("/").content.decode()
    assert "Decide ticked together" in listed and f'value="{FIRST}" form="together"' in listed
    assert "Decide ticked together" not in pages["officer"].get("/").content.decode()
    done = (
        pages["admin"]
        .post("/together/", {"match": [FIRST, SECOND], "action": "decide"}, follow=True)
        .content.decode()
    )
    assert f"Decided together (publish them together, or each from its board): {FIRST}, " in done
    for key in (FIRST, SECOND):  # still ticked, to publish them next
        assert "checked" in done.split(f'value="{key}" form="together"')[1].split(">")[0]
    # An officer posting anyway is told why not, with a 403; a bad choice keeps the ticks.
    refused = pages["officer"].post("/together/", {"match": [FIRST], "action": "decide"})
    assert refused.status_code == 403 and "decides its own" in refused.content.decode()
    nothing = pages["admin"].post("/together/", {"match": [SECOND], "action": "guess"})
    assert nothing.status_code == 400
    assert f'value="{SECOND}" form="together" aria-label' in nothing.content.decode()
    assert "checked" in nothing.content.decode().split(f'value="{SECOND}"')[1].split(">")[0]
    published = (
        pages["admin"]
        .post("/together/", {"match": [FIRST, SECOND], "action": "publish"}, follow=True)
        .content.decode()
    )
    assert f"Published together: {FIRST}, " in published
    assert m.Request.objects.filter(locked=True, key__in=sorted(SKY | SKY_AGAIN)).count() == 3


def test_a_matchweek_run_is_stale_once_a_match_of_it_is_decided_again_alone() -> None:
    """The helper's trial: decided together, then one match decided and published on its
    own: the others' runs were decided with that match's requests as they were, and say
    so; publishing them together again is refused until they are decided again."""
    store.load(_two_matches())
    users = _users()
    matchweek.do_decide_together(users["admin"], [FIRST, SECOND])
    decisions.do_decide(users["officer"], FIRST)
    run = decisions.latest_run(m.Match.objects.get(key=SECOND))
    why = decisions.season_changed(m.Match.objects.get(key=SECOND), run)
    assert (
        why
        == f"{FIRST} was decided again on its own since run 1 decided them together with this match"
    )
    with pytest.raises(ServiceError) as refused:
        decisions.do_publish(users["admin"], SECOND)
    assert refused.value.code == "stale-run"
    matchweek.do_decide_together(users["admin"], [FIRST, SECOND])
    assert (
        decisions.season_changed(
            m.Match.objects.get(key=SECOND), decisions.latest_run(m.Match.objects.get(key=SECOND))
        )
        is None
    )
    matchweek.do_publish_together(users["admin"], [FIRST, SECOND])  # each current: both go
