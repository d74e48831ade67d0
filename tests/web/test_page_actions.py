"""The forms of the pages, through Django's test client, on the demo site: the seed match
moved to next week (as `make demo` loads it), with its demo users."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from pitchpass.web import demo_site
from pitchpass.web.persistence import models as m
from pitchpass.web.services import board, decisions

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "manchester-derby-2017.yaml"
MATCH = "mun-mci-2017-12-10"
BOARD = f"/matches/{MATCH}/"
REFUSAL = "tunnel, post-match: 46 of 46 places taken by 1 host crew and 22 partner crews"
pytestmark = pytest.mark.django_db


@pytest.fixture
def site() -> demo_site.DemoSite:
    return demo_site.prepare(SEED, timezone.now())


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def test_the_demo_moves_the_match_to_this_week_and_makes_a_user_per_role(site) -> None:
    ahead = site.kickoff - timezone.now()
    assert site.loaded and timedelta(days=5, hours=6) < ahead <= timedelta(days=6, hours=7)
    sent = list(m.Request.objects.values_list("submitted", flat=True))
    assert max(sent) <= timezone.now() < max(sent) + timedelta(days=1)  # all sent, lately
    assert [u[0] for u in site.users] == [u[0] for u in demo_site.DEMO_USERS]
    roles = {p.user.username: p.role for p in m.Profile.objects.select_related("user")}
    assert set(roles.values()) == {"admin", "officer", "media", "steward"}
    # Submissions moved by the same whole days as the kick-off: still in time, same order.
    first = m.Request.objects.get(key="r24")
    assert first.submitted - site.kickoff == datetime.fromisoformat(
        "2017-12-04T10:00:00+00:00"
    ) - datetime.fromisoformat("2017-12-10T16:30:00+00:00")
    again = demo_site.prepare(SEED, timezone.now() + timedelta(days=3))
    assert not again.loaded and again.kickoff == site.kickoff  # kept, not moved twice
    assert again.users[0][1] != site.users[0][1]  # new passwords each start


@pytest.mark.parametrize(("now", "last"), [("09:59", "12-02T10:00"), ("10:00", "12-03T10:00")])
def test_the_demo_moves_by_whole_days_to_the_last_moment_not_after_now(now, last) -> None:
    document = {"requests": [{"submitted": "2017-12-04T10:00:00+00:00"},
                             {"submitted": "2017-11-27T09:00:00+00:00"}]}  # fmt: skip
    shift = demo_site._shift(document, datetime.fromisoformat(f"2026-12-03T{now}:00+00:00"))
    moved = datetime.fromisoformat("2017-12-04T10:00:00+00:00") + shift
    assert moved == datetime.fromisoformat(f"2026-{last}:00+00:00")


def test_officer_decides_publishes_and_the_broadcaster_sees_the_reason(site) -> None:
    officer = signed_in("officer")
    board = officer.get(BOARD).content.decode()
    assert "not decided yet" in board and 'action="/matches/' in board
    decided = officer.post(f"{BOARD}decide/", follow=True).content.decode()
    assert "Decided: 36 granted, 1 refused." in decided and REFUSAL in decided
    published = officer.post(f"{BOARD}publish/", follow=True).content.decode()
    assert "Published: 36 grants locked." in published and "(published)" in published
    assert "decide again" not in published  # publishing leaves the run current
    docs = signed_in("documentary").get(BOARD).content.decode()
    assert REFUSAL in docs and "Play Sports" not in docs and "Decide</button>" not in docs


def test_after_publish_no_grant_is_offered_where_none_can_be_made(site) -> None:
    """The board offers only what can succeed: after Publish the tunnel is full after the
    match, so r24's row says why no grant by hand can be made, in numbers, and links a
    what-if with the places it would need; a stale form sent anyway gets the same words."""
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    board = officer.get(BOARD).content.decode()
    row = board.split('id="request-r24"')[1].split("</tr>")[0]
    assert "Cannot be granted by hand: tunnel, post-match: 46 of 46 places taken by 23" in row
    assert 'value="granted"' not in row  # no grant offered
    link = re.search(r'<a href="([^"]+)">What if there were room', row)
    assert link is not None and "capacity%3Atunnel%40post-match=48" in link[1]
    answer = officer.get(html.unescape(link[1])).content.decode()
    assert "r24 would be granted" in answer and "dressing-room-altercation" in answer
    response = officer.post(  # the form of a page opened before the publish
        f"{BOARD}requests/r24/override/",
        {"request": "r24", "action": "override", "status": "granted", "reason": "the story"},
    )
    page = response.content.decode()
    alert = re.search(r'<p class="note error" role="alert">(.*?)</p>', page, re.S)
    assert response.status_code == 409 and alert is not None, page[-3000:]
    assert alert[1].startswith("r24: tunnel, post-match: 46 of 46 places taken by 23 published")
    assert "capacity tunnel@post-match=48" in alert[1]


def test_override_with_a_reason_grants_r24_and_bumps_another(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    page = officer.post(
        f"{BOARD}requests/r24/override/",
        {"status": "granted", "reason": "the story needs it"},
        follow=True,
    ).content.decode()
    assert "r24 granted by hand. Also changed: r23 now refused." in page
    run = m.DecisionRun.objects.filter(match__key=MATCH).order_by("-number").first()
    status = {d["request"]: d["status"] for d in run.output["decisions"]}
    assert status["r24"] == "granted" and list(status.values()).count("refused") == 1
    # The bumped crew's row says who took its places by hand, and why, beside the numbers
    # (not the policy's explanation: the policy did not refuse it).
    row = page.split('id="request-r23"')[1].split("</tr>")[0]
    assert "tunnel, post-match: 46 of 46 places taken by" in row
    assert "r24 was granted by hand there: the story needs it" in row
    assert "The policy gives places" not in row
    # Nothing is published: a grant by hand of r23 too can be made (it would bump another),
    # and what it would change can be seen first, in a what-if of just that grant.
    assert 'value="granted"' in row and "Cannot be granted by hand" not in row
    assert f'href="{BOARD}what-if/?grant=r23">What would granting it change?</a>' in row
    preview = officer.get(f"{BOARD}what-if/", {"grant": "r23"}).content.decode()
    assert "r23 would be granted" in preview and "would be bumped" in preview


def test_media_cannot_act_for_the_officer(site) -> None:
    docs = signed_in("documentary")
    response = docs.post(f"{BOARD}decide/")
    assert response.status_code == 403 and "only the home club" in response.content.decode()
    assert docs.get(f"{BOARD}what-if/").status_code == 403
    assert signed_in("steward").post(f"{BOARD}publish/").status_code == 403


def test_the_request_form_hints_room_left_and_keeps_what_was_typed(site) -> None:
    docs = signed_in("documentary")
    form = docs.get(f"{BOARD}requests/new/").content.decode()
    assert "Choose a zone and phases" in form
    hint = docs.get(f"{BOARD}room/", {"zone": "away-dressing-room", "phases": ["post-match"]})
    # Nothing published yet: the producer's hint counts its own requests only (r24 takes 2
    # places in the room and the tunnel), and says so; the officer's counts every request.
    assert "away-dressing-room, post-match: 2 of 4 places left" in hint.content.decode()
    assert (
        "tunnel (on the way to away-dressing-room), post-match: 44 of 46 places left"
        in hint.content.decode()
    )
    assert "counting the published grants and your own requests" in hint.content.decode()
    everyone = signed_in("officer").get(
        f"{BOARD}room/", {"zone": "away-dressing-room", "phases": ["post-match"]}
    )
    assert (
        "tunnel (on the way to away-dressing-room), post-match: 0 of 46"
        in everyone.content.decode()
    )
    assert "if every request were decided now" in everyone.content.decode()
    # The core's no-consent reason, as the request would be refused without it.
    assert (
        "Away dressing room (away-dressing-room) belongs to Manchester City, the away club,"
        " which has not consented to this crew yet" in html.unescape(hint.content.decode())
    )
    tunnel = docs.get(f"{BOARD}room/", {"zone": "tunnel", "phases": ["post-match"]})
    assert "consent" not in tunnel.content.decode()
    bad = docs.post(
        f"{BOARD}requests/new/",
        {"zone": "tunnel", "phases": ["post-match"], "crew": "two", "id": "late-one"},
    )
    page = bad.content.decode()
    assert bad.status_code == 400 and "crew must be a whole number" in page
    assert 'value="late-one"' in page and 'value="two"' in page
    assert 'value="post-match" checked' in page and 'value="tunnel" selected' in page
    typed = {"phases": ["post-match"], "crew": "2", "cameras": "1"}
    no_zone = docs.post(f"{BOARD}requests/new/", {**typed, "zone": ""}).content.decode()
    assert "choose a zone" in no_zone and "non-empty text" not in no_zone
    no_phase = docs.post(f"{BOARD}requests/new/", {**typed, "zone": "tunnel", "phases": []})
    assert "tick at least one phase" in no_phase.content.decode()
    made = docs.post(
        f"{BOARD}requests/new/",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": "2", "cameras": "1"},
        follow=True,
    ).content.decode()
    assert "Request man-city-documentary.1 submitted." in made
    assert "man-city-documentary.1" in made and "waiting" in made


def test_media_withdraw_their_own_request_only(site) -> None:
    docs = signed_in("documentary")
    done = docs.post(f"{BOARD}requests/r24/withdraw/", follow=True).content.decode()
    assert "r24 withdrawn." in done and not m.Request.objects.filter(key="r24").exists()
    other = docs.post(f"{BOARD}requests/r01/withdraw/")
    assert other.status_code == 404 and m.Request.objects.filter(key="r01").exists()


def test_steward_logs_an_incident_and_a_bad_minute_keeps_the_text(site) -> None:
    steward = signed_in("steward")
    bad = steward.post(
        f"{BOARD}incidents/", {"zone": "tunnel", "minute": "late", "what": "scuffle"}
    )
    assert bad.status_code == 400 and 'value="scuffle"' in bad.content.decode()
    assert "the minute must be a number" in bad.content.decode()
    assert "post-match 112 to 180" in bad.content.decode()  # the form says how minutes count
    nowhere = steward.post(f"{BOARD}incidents/", {"zone": "", "minute": "3", "what": "x"})
    assert "choose the zone where it happened" in nowhere.content.decode()
    for odd in ("٣٣", "1_0", "1e1", "nan", "inf", "+3", "3."):  # ASCII digits, as the API
        refused = steward.post(f"{BOARD}incidents/", {"zone": "tunnel", "minute": odd})
        assert (
            refused.status_code == 400 and "the minute must be a number" in refused.content.decode()
        )
    untold = steward.post(f"{BOARD}incidents/", {"zone": "tunnel", "minute": "-5", "what": " "})
    assert untold.status_code == 302  # what happened is optional, as in the API
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    page = steward.post(
        f"{BOARD}incidents/",
        {"zone": "pitch-side", "minute": "30", "what": "a tackle"},
        follow=True,
    ).content.decode()
    assert re.search(r"Incident incident-\d logged\.", page) and "caught by a crew of" in page


def test_the_away_officer_consents_for_its_own_dressing_room(site) -> None:
    away = signed_in("away-officer")
    board = away.get(BOARD).content.decode()
    assert "Take consent back" in board and "consent: given by Manchester City" in board
    page = away.post(f"{BOARD}requests/r24/consent/", {"given": "no"}, follow=True)
    assert "Consent for r24 taken back: the request is not refused" in page.content.decode()
    assert not m.Request.objects.get(key="r24").consent.exists()
    row = page.content.decode().split('id="request-r24"')[1].split("</tr>")[0]
    assert "consent: refused" in row
    # Refused again (never given since): said as a refusal, not as taking it back.
    again = away.post(f"{BOARD}requests/r24/consent/", {"given": "no"}, follow=True)
    assert "Consent for r24 refused: the request is not refused" in again.content.decode()
    signed_in("documentary").post(
        f"{BOARD}requests/r24/change/",
        {"zone": "away-dressing-room", "phases": ["post-match"], "crew": "1", "cameras": "1"},
    )
    changed = away.get(BOARD).content.decode().split('id="request-r24"')[1].split("</tr>")[0]
    assert "consent: not given yet" in changed  # a changed request asks afresh
    m.Request.objects.filter(key="r26").get().consent.clear()  # as if never given
    home = signed_in("officer").get(BOARD).content.decode()
    assert "consent: not given yet" in home.split('id="request-r26"')[1].split("</tr>")[0]


def test_what_if_panel_shows_the_incident_caught_with_two_more_places(site) -> None:
    officer = signed_in("officer")
    panel = officer.get(f"{BOARD}what-if/").content.decode()
    assert 'placeholder="46"' in panel
    answer = officer.post(
        f"{BOARD}what-if/", {"capacity:tunnel@post-match": "48"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert answer.lstrip().startswith('<section id="what-if-result"')
    assert "r24 would be granted" in answer and "now refused" in answer
    assert "caught by r24" in answer
    bumped = officer.post(f"{BOARD}what-if/", {"grant": ["r24"]}).content.decode()
    assert "r23 would be bumped" in bumped and "<h1>What if" in bumped
    wrong = officer.post(f"{BOARD}what-if/", {"capacity:tunnel@post-match": "many"})
    text = wrong.content.decode()
    assert "the places in tunnel, post-match must be a whole number, not &#x27;many&#x27;" in text


def test_filters_narrow_the_requests(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    refused = officer.get(BOARD, {"status": "refused"}).content.decode()
    assert 'id="request-r24"' in refused and 'id="request-r01"' not in refused
    found = officer.get(BOARD, {"q": "play sports"}).content.decode()
    assert found.count('<tr id="request-') == 1


def test_the_board_shows_what_the_cli_decides_for_the_exported_match(site) -> None:
    """The same data, three ways: the board after Decide, and `pitchpass decide --json`'s
    engine on the match as `pitchpass export` writes it, after a request and a consent
    change made through the pages."""
    import re

    from pitchpass.core import decide_document
    from pitchpass.web.persistence import store

    docs = signed_in("documentary")
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "tunnel", "phases": ["post-match"], "crew": "2", "cameras": "1"},
    )
    officer = signed_in("officer")
    page = officer.post(f"{BOARD}decide/", follow=True).content.decode()
    shown = dict(
        re.findall(r'<tr id="request-([^"]+)">.*?<span class="(granted|refused)">', page, re.S)
    )
    cli = decide_document(store.export(MATCH))["matches"][0]["decisions"]
    assert shown == {d["request"]: d["status"] for d in cli} and len(shown) == 38
    for d in cli:
        for reason in d["reasons"]:
            assert reason["text"] in page


def test_stewards_see_the_access_list_of_published_grants(site) -> None:
    steward = signed_in("steward")
    assert "Nothing published yet." in steward.get(BOARD).content.decode()
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    proposed = steward.get(BOARD).content.decode()
    assert "not published yet" not in proposed  # its coverage counts published crews only
    managing = officer.get(BOARD).content.decode()
    assert "As decided in run 1: 36 of its grants are not published yet; they count here" in (
        managing
    )
    media = signed_in("documentary").get(BOARD).content.decode()
    assert "of its grants are not published" not in media  # others' grants are not counted
    officer.post(f"{BOARD}publish/")
    page = steward.get(BOARD).content.decode()
    assert "<summary>away-dressing-room</summary>" not in page  # r24, refused, is not there
    assert "<strong>post-match</strong>: Sky Sports (2), BT Sport (2)" in page
    # r26 works in the home dressing room and is let through the tunnel to get there:
    tunnel = page.split("<summary>tunnel</summary>")[1].split("</details>")[0]
    assert re.search(r"pre-match</strong>: MUTV [^<]*\(2, passing through to home-dressing", tunnel)
    assert "<summary>home-dressing-room</summary>" in page
    assert "<h2>Requests</h2>" not in page  # the list, not the requests and reasons
    docs = signed_in("documentary").get(BOARD).content.decode()
    assert "Access list" not in docs


def test_what_if_with_a_request_ticked_to_refuse(site) -> None:
    officer = signed_in("officer")
    page = officer.post(f"{BOARD}what-if/", {"refuse": ["r01"]}).content.decode()
    assert "r01 taken out (Sky Sports; now granted)" in page and "r24 would be granted" in page
    assert "caught by r24" in page and 'refused">' not in page.split("What would change")[1]


def test_the_board_tells_more_of_each_incident_and_the_list_counts_only_ones_own(site) -> None:
    docs = signed_in("documentary")
    board = docs.get(BOARD).content.decode()
    assert "Not decided yet: fixed cameras only" in board
    assert "minute 125, away-dressing-room" in board and "milk and water" in board
    assert "a crew of Sky Sports" not in board  # not published: not the producer's to know
    assert "other organisations' crews once their grants are published" in board
    assert "cctv-tunnel: tunnel, post-match (Manchester United)" in board
    listing = docs.get("/").content.decode()
    assert re.search(r"<td>2</td>\s*</tr>", listing)  # r24 and r25 wait, not all 37
    hint = docs.get(
        f"{BOARD}room/", {"zone": "pitch-side", "phases": ["pre-match"], "crew": "29"}
    ).content.decode()
    # Its own r25 (2) only: the others' unpublished requests are not the producer's to see.
    assert "pitch-side, pre-match: 28 of 30 places left, too few for a crew of 29" in hint
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    board = docs.get(BOARD).content.decode()
    assert "a crew of Sky Sports" in board  # names, not ids, for another's published crew


def test_a_failed_override_keeps_the_chosen_status(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    page = officer.post(
        f"{BOARD}requests/r24/override/",
        {"request": "r24", "action": "override", "status": "refused", "reason": " "},
    ).content.decode()
    row = page.split('id="request-r24"')[1].split("</tr>")[0]
    assert "r24: an override needs a written reason" in page
    assert '<option value="refused" selected>' in row


def test_media_change_their_request_with_the_form_filled_in(site) -> None:
    docs = signed_in("documentary")
    form = docs.get(f"{BOARD}requests/r25/change/").content.decode()
    assert "Change request r25" in form and 'value="pitch-side" selected' in form
    assert 'value="pre-match" checked' in form and 'name="crew" min="1" value="2"' in form
    bad = docs.post(f"{BOARD}requests/r25/change/", {"zone": "pitch-side", "crew": "0"})
    assert bad.status_code == 400 and 'value="0"' in bad.content.decode()
    typo = docs.post(f"{BOARD}requests/r25/change/", {"zone": "pitch-side", "crew": "two"})
    assert typo.status_code == 400 and 'value="two"' in typo.content.decode()  # kept
    assert "Change request r25" in typo.content.decode()
    done = docs.post(
        f"{BOARD}requests/r25/change/",
        {"zone": "pitch-side", "phases": ["pre-match", "half-time"], "crew": "3", "cameras": "1"},
        follow=True,
    ).content.decode()
    assert "Request r25 changed" in done
    row = m.Request.objects.get(key="r25")
    assert (row.phases, row.crew) == (["pre-match", "half-time"], 3)
    assert docs.get(f"{BOARD}requests/r01/change/").status_code == 404  # not its own


def test_what_if_starts_from_the_decisions_as_overridden(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "story"})
    api = officer.post(
        f"/api/matches/{MATCH}/what-if",
        {"capacity": {"tunnel@post-match": 48}},
        content_type="application/json",
    ).json()
    assert api["changes"] == [{"request": "r23", "before": "refused", "after": "granted"}]
    panel = officer.get(f"{BOARD}what-if/").content.decode()
    assert re.search(r"<td>r24</td>.*?<td class=\"granted\">granted \(by hand\)</td>", panel, re.S)
    assert re.search(r"<td>r23</td>.*?<td class=\"refused\">refused</td>", panel, re.S)
    # Taking out the request granted by hand: before is as it stands (granted), not the
    # decision without the override.
    out = officer.post(
        f"/api/matches/{MATCH}/what-if", {"refuse": ["r24"]}, content_type="application/json"
    ).json()
    assert out["changes"] == [
        {"request": "r23", "before": "refused", "after": "granted"},
        {"request": "r24", "before": "granted", "after": "removed"},
    ]
    officer.post(f"{BOARD}requests/r01/override/", {"status": "refused", "reason": "late van"})
    panel = officer.get(f"{BOARD}what-if/").content.decode()
    assert re.search(r"<td>r01</td>.*?<td class=\"refused\">refused \(by hand\)</td>", panel, re.S)
    row = officer.get(BOARD).content.decode().split('id="request-r01"')[1].split("</tr>")[0]
    assert "refused by hand: late van" in row
    again = officer.post(
        f"/api/matches/{MATCH}/what-if", {"grant": ["r01"]}, content_type="application/json"
    ).json()
    assert {"request": "r01", "before": "refused", "after": "granted"} in again["changes"]
    more = officer.post(
        f"/api/matches/{MATCH}/what-if",
        {"capacity": {"tunnel@post-match": 48}},
        content_type="application/json",
    ).json()["result"]["matches"][0]["decisions"]
    assert len(more) == m.Request.objects.filter(match__key=MATCH).count()  # every one
    assert {"request": "r01", "status": "refused", "tier": "host",
            "reasons": [{"code": "override", "text": "late van"}]} in more  # fmt: skip
    # A request overridden, then withdrawn: the override is left out, nothing fails.
    signed_in("documentary").post(f"{BOARD}requests/r24/withdraw/")
    board = officer.get(BOARD)
    assert board.status_code == 200 and "dressing-room-altercation" in board.content.decode()
    assert officer.post(f"{BOARD}what-if/", {"grant": ["r23"]}).status_code == 200


def test_a_revoked_grant_stays_out_and_its_places_go_to_others(site) -> None:
    from pitchpass.core import decide_document
    from pitchpass.web.persistence import store

    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    page = officer.post(
        f"{BOARD}requests/r02/revoke/", {"reason": "accreditation withdrawn"}, follow=True
    ).content.decode()
    row = page.split('id="request-r02"')[1].split("</tr>")[0]
    assert "revoked" in row and "accreditation withdrawn" in row and "Override" not in row
    twice = officer.post(f"{BOARD}requests/r02/revoke/", {"reason": "from an old tab"})
    assert twice.status_code == 409  # said as it is, not "not published"
    assert "r02&quot; is taken back already (accreditation withdrawn)" in twice.content.decode()
    again = officer.post(f"{BOARD}decide/", follow=True).content.decode()
    assert "Decided: 36 granted, 0 refused." in again  # r24 takes r02's two places
    assert "revoked" in again.split('id="request-r02"')[1].split("</tr>")[0]
    exported = store.export(MATCH)
    assert "r02" not in {r["id"] for r in exported["requests"]}
    assert {d["status"] for d in decide_document(exported)["matches"][0]["decisions"]} == {
        "granted"
    }
    listed = officer.get(f"/api/matches/{MATCH}/requests").json()["items"]
    assert [r["revoked"] for r in listed if r["id"] == "r02"] == ["accreditation withdrawn"]
    assert (
        officer.post(
            f"{BOARD}requests/r02/override/", {"status": "granted", "reason": "sorry"}
        ).status_code
        == 409
    )
    panel = officer.get(f"{BOARD}what-if/").content.decode()
    assert "<td>r02</td>" not in panel and "<td>r03</td>" in panel  # out of every decision
    ticked = officer.post(
        f"/api/matches/{MATCH}/what-if", {"grant": ["r02"]}, content_type="application/json"
    )
    assert ticked.status_code == 409
    assert ticked.json()["message"] == (
        "r02 was revoked (accreditation withdrawn): it is out of every decision"
    )


def test_a_revoked_grant_leaves_its_organisations_views_working(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    officer.post(f"{BOARD}requests/r25/revoke/", {"reason": "no accreditation"})
    for who in (docs, signed_in("away-officer"), signed_in("steward")):
        assert who.get(BOARD).status_code == 200
        assert who.get(f"/api/matches/{MATCH}/coverage").status_code == 200
    seen = docs.get(f"/api/matches/{MATCH}/decisions").json()
    assert "r25" not in seen["waiting"]  # the match day's record says what became of it
    r25 = next(d for d in seen["decisions"] if d["request"] == "r25")
    assert (r25["status"], r25["state"]) == ("revoked", "revoked")
    assert r25["reasons"] == [{"code": "revoked", "text": "no accreditation"}]
    listed = docs.get(f"/api/matches/{MATCH}/requests/r25").json()
    assert listed["revoked"] == "no accreditation"


def test_the_what_if_panel_refuses_other_clubs_with_the_error_page(site) -> None:
    page = signed_in("away-officer").get(f"{BOARD}what-if/")
    text = page.content.decode()
    assert page.status_code == 403 and "only the home club&#x27;s officer or an admin" in text
    assert "Sign out" in text and "Back to the matches" in text  # the site's page


def test_taking_consent_back_from_a_published_grant_says_it_stands(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    page = officer.post(f"{BOARD}requests/r26/consent/", {"given": "no"}, follow=True)
    assert "published grant: it stands until" in page.content.decode()
    row = page.content.decode().split('id="request-r26"')[1].split("</tr>")[0]
    assert '<span class="granted">granted</span> <span class="muted">(published)' in row
    assert "consent: refused" in row and "Publish</button>" not in page.content.decode()


def test_a_reference_with_a_slash_is_refused_and_the_board_still_works(site) -> None:
    docs = signed_in("documentary")
    bad = docs.post(
        f"{BOARD}requests/new/",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": "1", "id": "a/b"},
    )
    assert bad.status_code == 400 and 'value="a/b"' in bad.content.decode()
    assert docs.get(BOARD).status_code == 200


def test_override_before_any_decide_says_decide_first(site) -> None:
    officer = signed_in("officer")
    response = officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "x"})
    assert response.status_code == 409 and "decide the match before" in response.content.decode()
    media = signed_in("documentary").post(
        f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "x"}
    )
    assert media.status_code == 403


def test_a_user_without_a_role_gets_a_page_that_says_so(site) -> None:
    User.objects.create_user("nobody", password="pw-for-tests-only-7")
    client = signed_in("nobody")
    for path in ("/", BOARD, f"{BOARD}requests/new/"):
        response = client.get(path)
        assert response.status_code == 403, path
        assert "this user has no role" in response.content.decode()


@pytest.mark.parametrize("crew", ["²", "--5", "1e3", " "])
def test_odd_numbers_in_forms_are_errors_not_server_errors(site, crew) -> None:
    docs = signed_in("documentary")
    hint = docs.get(f"{BOARD}room/", {"zone": "tunnel", "phases": ["post-match"], "crew": crew})
    assert hint.status_code == 200 and "places left" in hint.content.decode()
    form = docs.post(
        f"{BOARD}requests/new/", {"zone": "tunnel", "phases": ["post-match"], "crew": crew}
    )
    assert form.status_code == 400 and "crew" in form.content.decode()
    officer = signed_in("officer")
    wrong = officer.post(f"{BOARD}what-if/", {"capacity:tunnel@post-match": crew.strip() or "x"})
    assert wrong.status_code == 400 and "must be a whole number" in wrong.content.decode()


def test_text_is_bounded_alike_on_the_api_and_the_pages(site) -> None:
    """A reason of 2,001 characters: the same 400 and words from the API and the form."""
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    long = "x" * 2001
    api = officer.post(
        f"/api/matches/{MATCH}/requests/r24/override",
        {"status": "refused", "reason": long},
        content_type="application/json",
    )
    assert api.status_code == 400 and api.json()["path"] == "reason"
    said = api.json()["message"]
    assert said == "text has at most 2000 characters, not 2001"
    page = officer.post(f"{BOARD}requests/r24/override/", {"status": "refused", "reason": long})
    assert page.status_code == 400 and said in page.content.decode()
    steward = signed_in("steward")
    logged = steward.post(f"{BOARD}incidents/", {"zone": "tunnel", "minute": "5", "what": long})
    assert logged.status_code == 400 and said in logged.content.decode()


def test_the_request_form_takes_ascii_whole_numbers_only(site) -> None:
    docs = signed_in("documentary")
    for typed in ("٣", "1_000", "3.0", "+3", "1000001"):
        sent = docs.post(
            f"{BOARD}requests/new/",
            {"zone": "mixed-zone", "phases": ["post-match"], "crew": typed},
        )
        assert sent.status_code == 400, typed
        assert "crew must be" in sent.content.decode(), typed


def test_a_nul_character_is_refused_on_both_databases(site) -> None:
    docs = signed_in("documentary")
    sent = docs.post(
        f"/api/matches/{MATCH}/requests",
        {"zone": "tunnel", "phases": ["post-match"], "crew": 1, "id": "a\x00b"},
        content_type="application/json",
    )
    assert sent.status_code == 400 and sent.json()["path"] == "id"
    steward = signed_in("steward")
    logged = steward.post(f"{BOARD}incidents/", {"zone": "tunnel", "minute": "5", "what": "a\x00"})
    assert logged.status_code == 400 and "NUL" in logged.content.decode()


def test_only_broadcasters_and_admins_open_the_request_forms(site) -> None:
    for username in ("officer", "steward", "away-officer"):
        client = signed_in(username)
        assert client.get(f"{BOARD}requests/new/").status_code == 403, username
        assert client.get(f"{BOARD}requests/r24/change/").status_code == 403, username
    assert signed_in("admin").get(f"{BOARD}requests/r01/change/").status_code == 200


@pytest.mark.parametrize(
    "path",
    ["", "room/", "what-if/", "requests/new/", "requests/r24/change/"],
)
def test_every_page_asks_for_a_sign_in_first(site, path) -> None:
    response = Client().get(f"{BOARD}{path}")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    posted = Client().post(f"{BOARD}decide/")
    assert posted.status_code == 302 and not m.DecisionRun.objects.exists()


def test_the_board_says_when_coverage_is_as_if_decided_now(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    assert "Not decided yet: who would catch" in officer.get(BOARD).content.decode()
    assert "Not decided yet: fixed cameras only" in docs.get(BOARD).content.decode()
    officer.post(f"{BOARD}decide/")
    decided = officer.get(BOARD).content.decode()
    assert "if the requests were decided now" not in decided
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": "2", "cameras": "1"},
    )
    waiting = officer.get(BOARD).content.decode()
    assert "The match changed since the last decide: who would catch each incident" in waiting
    mine = docs.get(BOARD).content.decode()
    assert "your own crews as decided" in mine and "decided now" not in mine


def test_the_change_form_hint_leaves_out_the_request_being_changed(site) -> None:
    docs = signed_in("documentary")
    asked = {"zone": "pitch-side", "phases": ["pre-match"], "crew": "2"}
    new = docs.get(f"{BOARD}room/", asked).content.decode()
    assert "pitch-side, pre-match: 28 of 30 places left" in new  # its r25's 2 places counted
    form = docs.get(f"{BOARD}requests/r25/change/").content.decode()
    assert "pitch-side, pre-match: 30 of 30 places left" in form
    assert "without r25, the request being changed" in form
    assert 'hx-params="not csrfmiddlewaretoken"' in form
    live = docs.get(f"{BOARD}room/", asked | {"changing": "r25"}).content.decode()
    assert "30 of 30 places left" in live
    # Another organisation's request cannot be left out by naming it.
    assert "28 of 30" in docs.get(f"{BOARD}room/", asked | {"changing": "r27"}).content.decode()
    officer_view = signed_in("officer").get(f"{BOARD}room/", asked | {"changing": "r27"})
    assert "28 of 30" in officer_view.content.decode()  # Sky's 8 places, left out
    signed_in("officer").post(f"{BOARD}decide/")
    docs.post(f"{BOARD}requests/new/", asked | {"cameras": "1"})
    stale = docs.get(f"{BOARD}room/", asked).content.decode()
    assert "the board's grid shows the last decide" in stale


def test_override_reasons_show_and_published_grants_offer_revoke_only(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "the story"})
    page = officer.get(BOARD).content.decode()
    row = page.split('id="request-r24"')[1].split("</tr>")[0]
    assert "granted by hand: the story" in row
    officer.post(f"{BOARD}publish/")
    published = officer.get(BOARD).content.decode()
    row = published.split('id="request-r01"')[1].split("</tr>")[0]
    assert "<summary>Revoke</summary>" in row and "<summary>Override</summary>" not in row


def test_a_failed_action_leaves_the_board_address_and_a_reload_reads_the_board(site) -> None:
    officer = signed_in("officer")
    failed = officer.post(f"{BOARD}publish/")  # nothing decided yet
    text = failed.content.decode()
    assert failed.status_code == 409 and "decide the match before publishing" in text
    # desk.js sets the address bar back to it (the browser test in tests/e2e/test_csp.py).
    assert f'data-address="{BOARD}"' in text
    for action in ("decide/", "publish/", "requests/r24/override/", "incidents/"):
        opened = officer.get(f"{BOARD}{action}")
        assert (opened.status_code, opened["Location"]) == (302, BOARD)
    assert "data-address" not in officer.get(BOARD).content.decode()


def test_pages_have_an_icon_and_zone_names_with_their_ids(site) -> None:
    docs = signed_in("documentary")
    page = docs.get(BOARD).content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', page)
    assert icon is not None
    served = docs.get(icon.group(1))
    assert served.status_code == 200 and b"<svg" in b"".join(served.streaming_content)
    form = docs.get(f"{BOARD}requests/new/").content.decode()
    assert "Players&#x27; tunnel (tunnel)</option>" in form


def test_a_grant_by_hand_that_no_longer_fits_lapses_and_nothing_breaks(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}requests/r01/override/", {"status": "refused", "reason": "no"})
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "yes"})
    changed = docs.post(
        f"{BOARD}requests/r24/change/",
        {"zone": "away-dressing-room", "phases": ["post-match"], "crew": "40", "cameras": "1"},
    )
    assert changed.status_code == 302  # r24, granted by hand, no longer fits: it lapses
    for page in (BOARD, f"{BOARD}what-if/", f"{BOARD}room/?zone=tunnel&phases=post-match"):
        assert officer.get(page).status_code == 200, page
    coverage = officer.get(f"/api/matches/{MATCH}/coverage")
    assert coverage.status_code == 200 and coverage.json()["if_decided_now"] is True
    asked = officer.post(
        f"/api/matches/{MATCH}/what-if", {"refuse": ["r02"]}, content_type="application/json"
    )
    assert asked.status_code == 200
    standing = decisions.standing(m.Match.objects.get(key=MATCH))["decisions"]
    status = {d["request"]: (d["status"], d["reasons"]) for d in standing}
    assert status["r01"] == ("refused", [{"code": "override", "text": "no"}])  # it stays
    assert status["r24"][0] == "refused"  # the grant by hand lapsed
    # Withdrawn after an override: the next override does not trip over it.
    docs.post(f"{BOARD}requests/r24/withdraw/")
    again = officer.post(f"{BOARD}requests/r02/override/", {"status": "refused", "reason": "x"})
    assert again.status_code == 302


def test_a_grant_by_hand_lapses_when_its_zone_can_no_longer_take_it(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "yes"})
    match = m.Match.objects.get(key=MATCH)
    assert "r24" in decisions.standing(match)["by_hand"]
    # As a league admin may do: the away dressing room now holds one person, then none
    # after the match (closed). r24 (a crew of two) can be granted by nobody now.
    m.Zone.objects.filter(key="away-dressing-room").update(capacity=1)
    assert "r24" not in decisions.standing(match)["by_hand"]
    m.Zone.objects.filter(key="away-dressing-room").update(capacity=4, closed=["post-match"])
    standing = decisions.standing(match)
    assert "r24" not in standing["by_hand"]
    r24 = next(d for d in standing["decisions"] if d["request"] == "r24")
    assert r24["status"] == "refused" and r24["reasons"][0]["code"] == "closed"


def test_an_override_is_of_the_request_as_it_was(site) -> None:
    """Changed, or withdrawn and sent again under the same reference, a request is decided
    afresh: neither a grant nor a refusal by hand follows it (it could then be published
    into a closed zone, or refused for what another request did)."""
    officer, docs = signed_in("officer"), signed_in("documentary")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}requests/r25/override/", {"status": "granted", "reason": "warm-up"})
    docs.post(
        f"{BOARD}requests/r25/change/",
        {"zone": "home-dressing-room", "phases": ["pre-match", "first-half"], "crew": "2"},
    )
    officer.post(f"{BOARD}requests/r37/override/", {"status": "refused", "reason": "x"})
    officer.post(f"{BOARD}publish/")
    r25 = m.Request.objects.get(key="r25")
    assert r25.zone.key == "home-dressing-room" and not r25.locked
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": "1", "id": "x"},
    )
    officer.post(f"{BOARD}decide/")
    officer.post(
        f"{BOARD}requests/man-city-documentary.x/override/",
        {"status": "refused", "reason": "crew misbehaved last week"},
    )
    docs.post(f"{BOARD}requests/man-city-documentary.x/withdraw/")
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "pitch-side", "phases": ["pre-match"], "crew": "1", "id": "x"},
    )
    board = docs.get(BOARD).content.decode()
    row = board.split('id="request-man-city-documentary.x"')[1].split("</tr>")[0]
    assert "waiting" in row and "misbehaved" not in row
    standing = decisions.standing(m.Match.objects.get(key=MATCH))
    assert "man-city-documentary.x" not in standing["by_hand"]
    x = next(d for d in standing["decisions"] if d["request"] == "man-city-documentary.x")
    assert x["status"] == "granted", x


def test_a_grant_by_hand_sees_closed_zones_on_the_way_and_the_clubs_own_crews(site) -> None:
    officer, admin = signed_in("officer"), signed_in("admin")
    m.Zone.objects.filter(key="tunnel").update(closed=["arrival"])
    made = admin.post(
        f"/api/matches/{MATCH}/requests",
        {"id": "own", "by": "man-city", "zone": "away-dressing-room", "phases": ["pre-match"],
         "crew": 1},
        content_type="application/json",
    )  # fmt: skip
    assert made.status_code == 201
    docs = signed_in("documentary")
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "away-dressing-room", "phases": ["arrival"], "crew": "1", "id": "early"},
    )
    signed_in("away-officer").post(
        f"{BOARD}requests/man-city-documentary.early/consent/", {"given": "yes"}
    )
    officer.post(f"{BOARD}decide/")
    early = officer.post(
        f"{BOARD}requests/man-city-documentary.early/override/",
        {"status": "granted", "reason": "the bus is early"},
    )
    assert (
        early.status_code == 409
        and "Players&#x27; tunnel (tunnel) is closed at arrival" in early.content.decode()
    )
    own = officer.post(f"{BOARD}requests/own/override/", {"status": "granted", "reason": "ok"})
    assert own.status_code == 302  # City's own crew in City's room needs no consent


def test_a_request_changed_since_the_decide_waits_with_no_old_reasons(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    officer.post(f"{BOARD}decide/")
    before = docs.get(BOARD).content.decode().split('id="request-r24"')[1].split("</tr>")[0]
    assert "refused" in before and "places taken" in before
    docs.post(
        f"{BOARD}requests/r24/change/",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": "2", "cameras": "1"},
    )
    row = docs.get(BOARD).content.decode().split('id="request-r24"')[1].split("</tr>")[0]
    assert '<span class="waiting">waiting</span>' in row and "places taken" not in row
    assert re.search(r"<td>1</td>\s*</tr>", docs.get("/").content.decode())  # r24 waits
    filtered = docs.get(BOARD, {"status": "waiting"}).content.decode()
    assert 'id="request-r24"' in filtered
    seen = docs.get(f"/api/matches/{MATCH}/decisions").json()
    assert "r24" not in {d["request"] for d in seen["decisions"]} and "r24" in seen["waiting"]
    # A consent given or taken back since the run: the same.
    officer.post(f"{BOARD}requests/r26/consent/", {"given": "no"})  # its own room
    assert "r26" in officer.get(f"/api/matches/{MATCH}/decisions").json()["waiting"]
    officer.post(f"{BOARD}decide/")
    assert officer.get(f"/api/matches/{MATCH}/decisions").json()["waiting"] == []


def test_a_grant_by_hand_keeps_closed_phases_and_the_occupant_clubs_consent(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "away-dressing-room", "phases": ["first-half"], "crew": "1", "id": "half"},
    )
    officer.post(f"{BOARD}decide/")
    closed = officer.post(
        f"{BOARD}requests/man-city-documentary.half/override/",
        {"status": "granted", "reason": "just this once"},
    )
    assert closed.status_code == 409
    assert (
        "Away dressing room (away-dressing-room) is closed at first-half" in closed.content.decode()
    )
    signed_in("away-officer").post(f"{BOARD}requests/r24/consent/", {"given": "no"})
    officer.post(f"{BOARD}decide/")
    refused = officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "x"})
    assert refused.status_code == 409
    assert (
        "Away dressing room (away-dressing-room) belongs to Manchester City, the away club,"
        " which has not consented" in refused.content.decode()
    )
    assert (
        officer.post(
            f"{BOARD}requests/r24/override/", {"status": "refused", "reason": "x"}
        ).status_code
        == 302
    )  # refusing by hand needs nobody's say


def test_not_found_and_refusals_are_the_sites_own_pages_with_the_role(site) -> None:
    docs = signed_in("documentary")
    for url in ("/matches/nope/", f"{BOARD}requests/r01/change/"):
        page = docs.get(url)
        text = page.content.decode()
        assert page.status_code == 404 and "Back to the matches" in text, url
        assert "Sign out" in text and "documentary · " in text
    refused = signed_in("away-officer").get(f"{BOARD}what-if/").content.decode()
    assert "away-officer · club media officer" in refused


def test_only_actions_that_can_succeed_are_offered(site) -> None:
    docs, officer = signed_in("documentary"), signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    published = docs.get(f"{BOARD}requests/r25/change/")
    assert published.status_code == 409
    assert "r25 cannot be changed: it is a published grant" in published.content.decode()
    away = signed_in("away-officer")
    away.post(f"{BOARD}requests/r24/consent/", {"given": "no"})
    row = away.get(BOARD).content.decode().split('id="request-r24"')[1].split("</tr>")[0]
    assert ">Consent</button>" in row and "Refuse consent" not in row
    board = docs.get(BOARD).content.decode()
    assert "Request a place" in board and ">Withdraw</button>" in board
    m.Match.objects.filter(key=MATCH).update(kickoff=timezone.now() + timedelta(days=1))
    late = docs.get(BOARD).content.decode()
    assert "Requests closed at" in late and "(the deadline)" in late
    assert "Request a place" not in late and ">Withdraw</button>" not in late
    assert ">Change</a>" not in late
    # The request form, opened anyway (a bookmark), says so instead of offering a form.
    form = docs.get(f"{BOARD}requests/new/").content.decode()
    assert "Requests for this match closed at" in form and 'name="crew"' not in form
    change = docs.get(f"{BOARD}requests/r24/change/").content.decode()
    assert "r24 can no longer be changed" in change and 'name="crew"' not in change


def test_the_match_list_puts_coming_matches_apart_from_past_ones(site) -> None:
    officer = signed_in("officer")
    listed = officer.get("/").content.decode()
    coming, past = listed.split("<h2>Past</h2>")
    assert "Manchester United v Manchester City" in coming and "No past matches" in past
    m.Match.objects.filter(key=MATCH).update(kickoff=timezone.now() - timedelta(hours=4))
    listed = officer.get("/").content.decode()
    coming, past = listed.split("<h2>Past</h2>")
    assert "No coming matches" in coming and "Manchester United v Manchester City" in past


def test_publish_and_revoke_ask_before_they_act(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    board = officer.get(BOARD).content.decode()
    assert 'data-confirm="Publish the grants of run 1?' in board  # asked by desk.js
    officer.post(f"{BOARD}publish/")
    row = officer.get(BOARD).content.decode().split('id="request-r01"')[1].split("</tr>")[0]
    assert 'data-confirm="Revoke r01? Sky Sports loses its published place' in row


def test_the_access_list_adds_up_each_organisations_crews() -> None:
    published = [  # (zone, phase, organisation, crew, bound for): the core's footprints
        ("tunnel", "pre", "Sky", 2, ""),
        ("tunnel", "post", "Sky", 2, ""),
        ("tunnel", "post", "Sky", 3, ""),
        ("tunnel", "post", "BT", 1, ""),
        ("room", "post", "Sky", 2, ""),
        ("tunnel", "post", "Sky", 2, "room"),
    ]
    listed = board.access_list(published, ["tunnel", "room", "empty"], ["pre", "post"])
    assert listed == [
        {
            "zone": "tunnel",
            "phases": [
                ("pre", ["Sky (2)"]),
                ("post", ["Sky (5)", "BT (1)", "Sky (2, passing through to room)"]),
            ],
        },
        {"zone": "room", "phases": [("post", ["Sky (2)"])]},
    ]


@pytest.mark.parametrize("deadline", ["900000d", "5 days"])
def test_a_deadline_stored_broken_shows_the_board_with_the_problem(site, deadline) -> None:
    """Written before the admin checked edits, or straight into the database: the board
    still shows, saying what is wrong, and a request is refused with the same reason."""
    m.Competition.objects.update(deadline=deadline)
    docs = signed_in("documentary")
    board = docs.get(BOARD)
    text = board.content.decode()
    assert board.status_code == 409 and "a league admin has to correct it" in text
    assert "Requests closed at" not in text and "Request a place" not in text
    sent = docs.post(
        f"/api/matches/{MATCH}/requests",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1},
        content_type="application/json",
    )
    assert sent.status_code == 409 and "a league admin has to correct it" in sent.json()["message"]


def test_no_deadline_set_is_the_cores_default(site) -> None:
    from pitchpass.web.persistence import store
    from pitchpass.web.services import entries

    match = m.Match.objects.get(key=MATCH)
    m.Competition.objects.update(deadline="")
    match.refresh_from_db()
    assert entries.requests_close(match) == match.kickoff - timedelta(days=5)
    assert "deadline" not in store.export(MATCH)["policy"]  # the core's default, too
    assert signed_in("documentary").get(BOARD).status_code == 200
    m.Competition.objects.update(deadline="0m")
    match.refresh_from_db()
    assert entries.requests_close(match) == match.kickoff


def test_the_board_says_what_a_decide_drops_and_offers_publish_only_when_it_can_work(
    site,
) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    officer.post(f"{BOARD}decide/")
    board = officer.get(BOARD).content.decode()
    assert "Publish</button>" in board and "made by hand" not in board
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "story"})
    board = officer.get(BOARD).content.decode()
    assert "drops the 1 decision made by hand" in board and "data-confirm=" in board
    page = docs.get(BOARD).content.decode()
    mine = page.split('id="request-r24"')[1].split("</tr>")[0]
    assert 'title="proposed, not published yet">*' in mine  # the crew sees it is not final
    assert page.count("not published yet (") == 1  # said once, above the rows
    assert "proposed in run 2, not published yet (2 of the requests below)" in page
    assert "consent: given by Manchester City" in mine  # and whose say it needed
    again = officer.post(f"{BOARD}decide/", follow=True).content.decode()
    assert "Decisions by hand dropped: r24 (granted); override again to keep one." in again
    refused = again.split('id="request-r24"')[1].split("</tr>")[0]
    assert "(away-dressing-room is reached through tunnel)" in refused
    docs.post(f"{BOARD}requests/r25/withdraw/")
    stale = officer.get(BOARD).content.decode()
    assert "Publish</button>" not in stale and "decide again before publishing" in stale
    assert "changed since: decide again" in officer.get("/").content.decode()
    told = docs.get(BOARD).content.decode()
    assert "decide again" not in told  # another's withdrawal is not the producer's to learn
    assert "decide again" not in docs.get("/").content.decode()  # for those who decide
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "story"})
    officer.post(f"{BOARD}decide/")  # drops it
    officer.post(f"{BOARD}requests/r24/override/", {"status": "granted", "reason": "story"})
    officer.post(f"{BOARD}publish/")
    done = officer.get(BOARD).content.decode()
    assert "Publish</button>" not in done and "Every grant of run " in done
    assert "made by hand" not in done  # r24's grant by hand is published: nothing to drop
    again = officer.post(f"{BOARD}decide/", follow=True).content.decode()
    assert "Decisions by hand dropped" not in again
    assert "(published)" in again.split('id="request-r24"')[1].split("</tr>")[0]
    panel = officer.get(f"{BOARD}what-if/").content.decode()
    assert re.search(
        r"<td>r24</td>.*?<td class=\"granted\">granted \(published\)</td>", panel, re.S
    )


def test_the_request_form_sent_twice_makes_one_request_and_says_what_it_needs(site) -> None:
    docs = signed_in("documentary")
    form = docs.get(f"{BOARD}requests/new/").content.decode()
    once = re.search(r'name="once" value="([^"]+)"', form)
    assert once is not None
    assert "Away dressing room (away-dressing-room): needs Manchester City's consent" in form
    assert "requests close at" in form
    typed = {"zone": "mixed-zone", "phases": ["post-match"], "crew": "1", "once": once[1]}
    before = m.Request.objects.count()
    first = docs.post(f"{BOARD}requests/new/", typed, follow=True).content.decode()
    again = docs.post(f"{BOARD}requests/new/", typed, follow=True).content.decode()
    assert "Request man-city-documentary.1 submitted." in first
    assert "This form was already sent: request man-city-documentary.1." in again
    assert m.Request.objects.count() == before + 1
    other_zone = docs.post(f"{BOARD}requests/new/", {**typed, "zone": "pitch-side"}, follow=True)
    assert "Request man-city-documentary.2 submitted." in other_zone.content.decode()
    other = re.search(
        r'name="once" value="([^"]+)"', docs.get(f"{BOARD}requests/new/").content.decode()
    )
    assert other is not None and other[1] != once[1]  # a new form is a new request


def test_a_request_form_with_two_mistakes_names_both(site) -> None:
    docs = signed_in("documentary")
    page = docs.post(
        f"{BOARD}requests/new/",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": "0", "cameras": "-1"},
    ).content.decode()
    alert = re.search(r'<p class="note error" role="alert">(.*?)</p>', page, re.S)
    assert alert is not None, page
    assert alert[1] == "crew must be at least 1; also cameras must be at least 0", alert[1]


def test_a_grant_by_hand_that_no_longer_fits_leaves_the_others_standing(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    docs.post(
        f"{BOARD}requests/new/",
        {"zone": "flash-interview", "phases": ["post-match"], "crew": "8", "id": "fl1"},
    )
    officer.post(f"{BOARD}decide/")
    for key in ("man-city-documentary.fl1", "r24"):
        officer.post(f"{BOARD}requests/{key}/override/", {"status": "granted", "reason": "ok"})
    match = m.Match.objects.get(key=MATCH)
    assert decisions.standing(match)["by_hand"] == ["man-city-documentary.fl1", "r24"]
    m.Zone.objects.filter(key="away-dressing-room").update(capacity=1)  # r24 (2) cannot fit
    assert decisions.standing(match)["by_hand"] == ["man-city-documentary.fl1"]
    board = officer.get(BOARD).content.decode()
    assert "drops the 1 decision made by hand" in board
    docs.post(f"{BOARD}requests/man-city-documentary.fl1/withdraw/")
    board = officer.get(BOARD).content.decode()
    assert "made by hand" not in board  # none left in effect: nothing to drop
    done = officer.post(f"{BOARD}decide/", follow=True).content.decode()
    assert "Decisions by hand dropped" not in done


def test_a_change_saved_as_it_was_keeps_the_requests_place(site) -> None:
    docs = signed_in("documentary")
    was = m.Request.objects.get(key="r25").submitted
    form = docs.get(f"{BOARD}requests/r25/change/").content.decode()
    assert "requests close at" in form
    same = {"zone": "pitch-side", "phases": ["pre-match"], "crew": "2", "cameras": "1"}
    page = docs.post(f"{BOARD}requests/r25/change/", same, follow=True).content.decode()
    assert "Nothing changed: r25 keeps its place." in page
    assert m.Request.objects.get(key="r25").submitted == was
    assert not m.AuditEntry.objects.filter(action="change", target="r25").exists()
    api = docs.patch(
        f"/api/matches/{MATCH}/requests/r25", {"crew": 2}, content_type="application/json"
    )
    assert api.status_code == 200 and m.Request.objects.get(key="r25").submitted == was


def test_an_incident_form_sent_twice_logs_one_and_a_wild_minute_is_refused(site) -> None:
    steward = signed_in("steward")
    board = steward.get(BOARD).content.decode()
    once = re.search(r'name="once" value="([^"]+)"', board)
    assert once is not None
    typed = {"zone": "pitch-side", "minute": "30", "what": "pitch invader", "once": once[1]}
    before = m.Incident.objects.count()
    first = steward.post(f"{BOARD}incidents/", typed, follow=True).content.decode()
    again = steward.post(f"{BOARD}incidents/", typed, follow=True).content.decode()
    assert "Incident incident-1 logged." in first
    assert "This form was already sent: incident incident-1." in again
    assert m.Incident.objects.count() == before + 1
    wild = steward.post(f"{BOARD}incidents/", {**typed, "minute": "99999", "once": "x"})
    assert wild.status_code == 400
    assert "the minute must be within a day of kick-off, -1440 to 1440" in wild.content.decode()


def test_a_form_mark_that_the_page_did_not_make_is_no_mark(site) -> None:
    steward = signed_in("steward")
    for mark in ("a\x00b", "x" * 500, "é"):
        sent = steward.post(f"{BOARD}incidents/", {"zone": "tunnel", "minute": "3", "once": mark})
        assert sent.status_code == 302, mark  # logged, not a server error


def test_another_organisations_unpublished_request_does_not_change_ones_coverage(site) -> None:
    officer, docs = signed_in("officer"), signed_in("documentary")
    usage = officer.post(f"/api/matches/{MATCH}/decide").json()["usage"]
    cell = next(u for u in usage if (u["zone"], u["phase"]) == ("pitch-side", "second-half"))
    left = cell["capacity"] - cell["used"]  # the producer's crew fills the rest
    typed = {"zone": "pitch-side", "phases": ["second-half"], "cameras": "1", "id": "wide"}
    docs.post(f"{BOARD}requests/new/", {**typed, "crew": str(left)})
    officer.post(f"{BOARD}decide/")

    def seen() -> tuple[bool, list[dict[str, object]]]:
        answer = docs.get(f"/api/matches/{MATCH}/coverage").json()
        booking = next(i for i in answer["incidents"] if i["incident"] == "herrera-booking")
        return answer["if_decided_now"], booking["covered_by"]

    before = seen()
    assert before[0] is False and [s["id"] for s in before[1]] == ["man-city-documentary.wide"]
    bt = User.objects.create(username="bt")
    m.Profile.objects.create(
        user=bt, role="media", organisation=m.Organisation.objects.get(key="bt-sport")
    )
    bt_client = Client()
    bt_client.force_login(bt)
    sent = bt_client.post(
        f"/api/matches/{MATCH}/requests",
        {"zone": "pitch-side", "phases": ["second-half"], "crew": 2},
        content_type="application/json",
    )
    assert sent.status_code == 201  # a partner: decided now, it would push the producer out
    assert seen() == before  # BT's request is not the producer's to learn of
    officer_view = officer.get(f"/api/matches/{MATCH}/coverage").json()
    assert officer_view["if_decided_now"] is True
    booking = next(i for i in officer_view["incidents"] if i["incident"] == "herrera-booking")
    assert "man-city-documentary.wide" not in [s["id"] for s in booking["covered_by"]]


def test_not_caught_on_camera_names_who_would_have_caught_it_and_the_what_if(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    board = officer.get(BOARD).content.decode()
    item = board.split("<strong>dressing-room-altercation</strong>")[1].split("</li>")[0]
    assert "not caught on camera" in item
    assert "Refused, and it would have caught this: r24 (Manchester City documentary" in item
    links = dict(
        (text, html.unescape(href))
        for href, text in re.findall(r'<a href="([^"]+)">(What if[^<]*)</a>', item)
    )
    assert set(links) == {
        "What if it had been granted?",
        "What if there had been room (tunnel@post-match = 48)?",
    }
    room = officer.get(links["What if there had been room (tunnel@post-match = 48)?"])
    answer = room.content.decode()
    assert "r24 would be granted" in answer and "caught by r24" in answer
    granted = officer.get(links["What if it had been granted?"]).content.decode()
    assert "r24 would be granted" in granted and "r23 would be bumped" in granted
    # After Publish a grant outright has no room: only the what-if with room is offered.
    officer.post(f"{BOARD}publish/")
    item = officer.get(BOARD).content.decode()
    item = item.split("<strong>dressing-room-altercation</strong>")[1].split("</li>")[0]
    assert "What if it had been granted?" not in item and "What if there had been room" in item
    # The crew itself learns that it would have caught it; no what-if (not its to ask).
    docs = signed_in("documentary").get(BOARD).content.decode()
    mine = docs.split("<strong>dressing-room-altercation</strong>")[1].split("</li>")[0]
    assert "Refused, and it would have caught this: r24" in mine and "What if" not in mine
    # Those who see no requests learn nothing of r24.
    steward = signed_in("steward").get(BOARD).content.decode()
    assert "r24" not in steward.split("<h2>Incidents</h2>")[1]


def test_those_who_do_not_manage_see_the_published_grid_not_the_proposal(site) -> None:
    def tunnel_after(client: Client) -> str:
        page = client.get(BOARD).content.decode()
        cell = re.search(r'title="tunnel, post-match: (\d+) of (\d+)"', page)
        assert cell is not None, page
        return f"{cell[1]}/{cell[2]}"

    officer, docs = signed_in("officer"), signed_in("documentary")
    officer.post(f"{BOARD}decide/")
    assert tunnel_after(officer) == "46/46"  # the proposal
    assert tunnel_after(docs) == "0/46"  # nothing published yet
    said = "proposals not yet published, and places offered from the waitlist until accepted,"
    assert f"{said} are not counted" in docs.get(BOARD).content.decode()
    officer.post(f"{BOARD}publish/")
    assert tunnel_after(docs) == "46/46"


def test_a_refusal_that_looks_unfair_carries_the_policys_explanation(site) -> None:
    """A crew of 5 sent first loses the flash-interview positions (8) at half-time to three
    crews of 2 of its tier sent later: most-granted grants three requests rather than two.
    The board names them for the officer, and explains the policy with a link to it; the
    requester gets the explanation from what its refusal's numbers tell (crews of its tier
    or below hold the places), not which requests or when they were sent."""
    officer, docs = signed_in("officer"), signed_in("documentary")
    for key, crew in (("big", "5"), ("s1", "2"), ("s2", "2"), ("s3", "2")):
        sent = docs.post(
            f"{BOARD}requests/new/",
            {"zone": "flash-interview", "phases": ["half-time"], "crew": crew, "id": key},
        )
        assert sent.status_code == 302, sent.content.decode()
    officer.post(f"{BOARD}decide/")
    row = officer.get(BOARD).content.decode().split('id="request-man-city-documentary.big"')[1]
    row = row.split("</tr>")[0]
    assert "Granted there though ranked after it: man-city-documentary.s1, sent later, same" in row
    assert "The policy gives places tier by tier" in row
    assert "(host, partner, club, other)" in row and '<a href="#policy">' in row
    page = docs.get(BOARD).content.decode()
    mine = page.split('id="request-man-city-documentary.big"')[1].split("</tr>")[0]
    assert "Crews of its tier or a lower one hold places there." in mine
    assert "sent later" not in mine  # what others sent, and when, is not the requester's
    # Published, the refusal is final: the explanation stays (the run's own grants are
    # the policy's choice, though published since).
    officer.post(f"{BOARD}publish/")
    row = officer.get(BOARD).content.decode().split('id="request-man-city-documentary.big"')[1]
    assert "Granted there though ranked after it: man-city-documentary.s1" in row.split("</tr>")[0]


def test_a_refusal_for_room_by_higher_tiers_says_so_without_the_policy_note(site) -> None:
    """r24 (other) finds the tunnel full of partner crews: its reason says so in numbers;
    nothing ranked after it holds places there, so no policy note on its row."""
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    docs = signed_in("documentary").get(BOARD).content.decode()
    row = docs.split('id="request-r24"')[1].split("</tr>")[0]
    assert "tunnel, post-match: 46 of 46 places taken by" in row
    assert "The policy gives places tier by tier" not in row
    policy = docs.split('<details id="policy">')[1].split("</details>")[0]
    assert "<strong>partner</strong>: the competition&#x27;s broadcast partners" in policy
    assert "most-granted" in policy and "Requests close 5 days before kick-off" in policy
    granted = docs.split('id="request-r25"')[1].split("</tr>")[0]
    assert "The policy gives places" not in granted


def test_incidents_take_football_minutes_and_refuse_one_outside_every_phase(site) -> None:
    steward = signed_in("steward")
    logged = steward.post(
        f"{BOARD}incidents/",
        {"zone": "pitch-side", "minute": "90+3", "what": "a late scuffle", "once": "f1"},
        follow=True,
    ).content.decode()
    assert "Incident incident-1 logged." in logged
    item = logged.split("<strong>incident-1</strong>")[1].split("</li>")[0]
    assert "90+3' of play (minute 109 on the clock), pitch-side, second-half" in item
    seed = logged.split("<strong>herrera-booking</strong>")[1].split("</li>")[0]
    assert "minute 80, pitch-side" in seed  # a plain minute is the clock, as in the file
    assert m.Incident.objects.get(key="incident-1").minute == 109
    wrong = steward.post(f"{BOARD}incidents/", {"zone": "tunnel", "minute": "60+2", "once": "f2"})
    assert wrong.status_code == 400 and "stoppage time follows 45 or 90" in wrong.content.decode()
    outside = steward.post(
        f"{BOARD}incidents/",
        {"zone": "tunnel", "minute": "900", "once": "f3", "action": "incident"},
    )
    page = outside.content.decode()
    assert outside.status_code == 400 and "minute 900 after kick-off is outside every phase" in page
    form = page.split('aria-label="log an incident"')[1].split("</form>")[0]
    assert "outside every phase" in form  # said beside the form too, not only at the top
    assert m.Incident.objects.filter(match__key=MATCH).count() == 3  # the seed's 2 and one


def test_the_usual_sign_in_address_leads_to_the_sign_in_page(site) -> None:
    response = Client().get("/accounts/login/?next=/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/"


def test_a_what_if_error_is_said_once_on_the_page(site) -> None:
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    officer.post(f"{BOARD}publish/")
    page = officer.post(f"{BOARD}what-if/", {"grant": ["r24"]}).content.decode()
    assert page.count("a grant by hand must fit beside the published grants") == 1


def test_a_rivals_unpublished_requests_never_move_a_producers_hint(site) -> None:
    """Issue 10's probe: places left moved, live, as rivals submitted and withdrew. Now
    those who do not manage the match count published grants and their own requests."""
    docs, officer, admin = signed_in("documentary"), signed_in("officer"), signed_in("admin")
    asked = {"zone": "mixed-zone", "phases": ["post-match"], "crew": "1"}

    def left(client: Client) -> str:
        hint = client.get(f"{BOARD}room/", asked).content.decode()
        found = re.search(r"mixed-zone, post-match: (\d+) of 40 places left", hint)
        assert found is not None, hint
        return found[1]

    before, officer_before = left(docs), left(officer)
    sent = admin.post(
        f"/api/matches/{MATCH}/requests",
        {
            "by": "bt-sport",
            "id": "rival",
            "zone": "mixed-zone",
            "phases": ["post-match"],
            "crew": 9,
        },
        content_type="application/json",
    )
    assert sent.status_code == 201, sent.json()
    assert left(docs) == before  # not the producer's to learn
    assert int(left(officer)) == int(officer_before) - 9  # the officer counts every request
    assert admin.delete(f"/api/matches/{MATCH}/requests/rival").status_code == 204
    assert left(docs) == before


def test_the_officers_hint_follows_a_decision_by_hand(site) -> None:
    """The hint's places are kept per match version and run: an override (a new run, the
    same version) is counted at once."""
    officer = signed_in("officer")
    officer.post(f"{BOARD}decide/")
    asked = {"zone": "pitch-side", "phases": ["pre-match"], "crew": "1"}

    def left() -> int:
        hint = officer.get(f"{BOARD}room/", asked).content.decode()
        found = re.search(r"pitch-side, pre-match: (\d+) of 30 places left", hint)
        assert found is not None, hint
        return int(found[1])

    before = left()
    officer.post(f"{BOARD}requests/r27/override/", {"status": "refused", "reason": "no room"})
    assert left() == before + 8  # Sky Sports' crew of 8, refused by hand


def test_the_demo_also_plays_the_match_now_published_and_tended_by_the_worker() -> None:
    from pitchpass.web.services import waitlist

    now = timezone.now()
    site = demo_site.prepare(SEED, now, match_day=True)
    playing = site.match_day
    assert playing is not None and playing.key == "mun-mci-2017-12-10-match-day"
    assert now - playing.kickoff - demo_site.IN_PLAY < timedelta(minutes=1)
    assert playing.requests.filter(locked=True).count() == 36  # published: all but r24
    # Published at the demo's start (minute 100): nothing is released at once (the grace
    # after a publish, 60 minutes); the post-match tunnel crews not checked in are warned
    # at minute 130 and lose their places at 160, which go to the documentary crew.
    published = playing.requests.filter(locked=True).values_list("granted_at", flat=True)[0]
    at_once = waitlist.do_match_day(playing.key, now)
    assert (at_once.released, at_once.promoted) == ([], [])
    assert at_once.next_at == published + timedelta(minutes=30)  # the warning
    warned = waitlist.do_match_day(playing.key, published + timedelta(minutes=31)).warned
    assert "r02" in warned and "r01" not in warned  # Sky, the host, is never released
    later = waitlist.do_match_day(playing.key, published + timedelta(minutes=61))
    assert "r02" in later.released and "r01" not in later.released
    assert later.promoted == ["r24"]
    assert playing.incidents.count() == 2
    again = demo_site.prepare(SEED, now + timedelta(hours=1), match_day=True)
    assert again.match_day is not None and again.match_day.kickoff == playing.kickoff  # kept
