"""No-show release and the waitlist on the desk (issue 11, section 4), on the seed match:
the worker's `do_match_day` at chosen moments of the match day releases a crew that did not check
in, offers its places to the next on the waitlist, tells both, and an offer is accepted
(a published grant with its pass), declined or lets its time pass."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from test_doors import SEED

from pitchpass.web.errors import ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.changes import changed
from pitchpass.web.services import decisions, entries, waitlist
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db


def _kickoff() -> Any:
    return m.Match.objects.get(key=SEED).kickoff


def _at(minute: float) -> Any:
    return _kickoff() + timedelta(minutes=minute)


def _check_in_all_but(*absent: str) -> None:
    """Every published crew but `absent` went in at its door before the doors opened. The
    seed match is long over: its grants are taken as published the day before it (a
    grant published after its release time is never released)."""
    match = m.Match.objects.get(key=SEED)
    match.requests.filter(locked=True).update(granted_at=_at(-24 * 60))
    for row in match.requests.filter(locked=True).exclude(key__in=absent).select_related("zone"):
        m.Scan.objects.create(
            match=match, request=row.key, zone=row.zone.key, phase=row.phases[0], direction="in",
            result="admitted", text="in", scanned=_at(-130), received=_at(-130),
        )  # fmt: skip


def _waitlist(client: Client) -> dict[str, Any]:
    answer = client.get(f"/api/matches/{SEED}/waitlist")
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_the_waitlist_is_the_published_refusals_in_the_policys_order(desk) -> None:
    everything = waitlist.waitlist_for(_user("officer"), SEED, _at(100))
    assert everything["waitlist"] == [
        {"request": "r24", "by": "man-city-documentary", "tier": "other", "place": 1}
    ]
    # Its own, without its place: that would tell how many others wait.
    assert waitlist.waitlist_for(_user("docs"), SEED, _at(100))["waitlist"] == [
        {"request": "r24", "by": "man-city-documentary", "tier": "other", "place": None}
    ]
    assert waitlist.waitlist_for(_user("bt"), SEED, _at(100)) == {"waitlist": [], "offers": []}
    # The seed match is long over: nobody waits for a place of use to nobody.
    assert _waitlist(desk["officer"]) == {"waitlist": [], "offers": []}
    assert desk["steward"].get(f"/api/matches/{SEED}/waitlist").status_code == 200


def test_a_no_show_loses_its_place_to_the_next_on_the_waitlist(desk) -> None:
    _check_in_all_but("r23")
    early = waitlist.do_match_day(SEED, _at(100))  # before the post-match release (112 - 5)
    assert (early.released, early.promoted) == ([], [])
    assert early.next_at == _at(107)
    done = waitlist.do_match_day(SEED, _at(108))
    assert done.released == ["r23"] and done.promoted == ["r24"]
    r23 = m.Request.objects.get(match__key=SEED, key="r23")
    assert not r23.locked and r23.revoked.startswith("no-show") and r23.no_show == _at(107)
    offer = m.Offer.objects.get(request__key="r24", request__match__key=SEED)
    # accept_within 30 minutes, within its post-match phase (it ends at minute 180)
    assert (offer.state, offer.until) == ("open", _at(138))
    told = {(n.kind, n.request, n.organisation.key) for n in m.Notice.objects.all()}
    assert ("revoked", "r23", "play-sports") in told
    assert ("promoted", "r24", "man-city-documentary") in told
    promoted = m.Notice.objects.get(kind="promoted")
    assert "accept by" in promoted.text and "(minute +138)" in promoted.text
    assert promoted.data["until_at"] == _at(138).isoformat()  # for webhooks: ISO 8601
    # The places it held stay held: nothing more is offered, nothing more released.
    again = waitlist.do_match_day(SEED, _at(109))
    assert (again.released, again.promoted) == ([], [])
    assert again.next_at == _at(138)  # the offer's end


def _user(name: str) -> User:
    return User.objects.get(username=name)


def test_an_accepted_offer_is_a_published_grant_with_its_pass(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    with pytest.raises(ServiceError) as other:
        waitlist.answer(_user("bt"), SEED, "r24", True, _at(110))
    assert other.value.code == "not-found"  # another organisation's offer is not there
    answer = waitlist.answer(_user("docs"), SEED, "r24", True, _at(110))
    assert answer["state"] == "accepted"
    assert m.Request.objects.get(match__key=SEED, key="r24").locked
    passes = desk["docs"].get(f"/api/matches/{SEED}/passes").json()["items"]
    assert {p["request"] for p in passes} == {"r24", "r25"}
    with pytest.raises(ServiceError) as twice:
        waitlist.answer(_user("docs"), SEED, "r24", False, _at(111))
    assert twice.value.code == "conflict" and "accepted" in twice.value.message


def test_an_offer_holds_only_the_phases_still_to_come(desk) -> None:
    # r24 asked for the away dressing room pre-match and post-match; its place frees up
    # at minute 108, long after pre-match ended: it is offered (and holds) post-match only.
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    offer = m.Offer.objects.get(request__key="r24", request__match__key=SEED)
    assert offer.phases == ["post-match"]
    shown = waitlist.waitlist_for(_user("docs"), SEED, _at(109))["offers"]
    assert [o["phases"] for o in shown] == [["post-match"]]
    told = m.Notice.objects.get(match__key=SEED, request="r24", kind="promoted")
    assert "for post-match only" in told.text and told.data["phases"] == ["post-match"]
    waitlist.answer(_user("docs"), SEED, "r24", True, _at(110))
    passes = desk["docs"].get(f"/api/matches/{SEED}/passes").json()["items"]
    assert next(p for p in passes if p["request"] == "r24")["phases"] == ["post-match"]
    # The engine's view and the grid count it post-match only: the away dressing room
    # before the match holds nobody of r24.
    exported = store.export(SEED)
    assert next(r for r in exported["requests"] if r["id"] == "r24")["phases"] == ["post-match"]
    usage = desk["officer"].get(f"/api/matches/{SEED}/decisions").json()["usage"]
    used = {(u["zone"], u["phase"]): u["used"] for u in usage}
    assert used[("away-dressing-room", "pre-match")] == 0
    assert used[("away-dressing-room", "post-match")] == 2
    # The board's row (and its CSV) shows the phases held, not those asked for.
    from pitchpass.web.services import views

    board = views.board_of(_user("docs"), SEED, {}, _at(111))
    assert next(r for r in board.rows if r.key == "r24").phases == ["post-match"]


def test_a_declined_or_lapsed_offer_passes_the_place_on(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    waitlist.answer(_user("docs"), SEED, "r24", False, _at(110))
    assert m.Offer.objects.get(request__key="r24").state == "declined"
    after = waitlist.do_match_day(SEED, _at(111))
    assert after.promoted == []  # off the waitlist for good; nobody else waits
    assert waitlist.waitlist_for(_user("officer"), SEED, _at(111))["waitlist"] == []


def test_an_offer_not_answered_in_time_lapses(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    done = waitlist.do_match_day(SEED, _at(138))
    assert done.lapsed == ["r24"] and m.Offer.objects.get(request__key="r24").state == "lapsed"
    with pytest.raises(ServiceError) as late:
        waitlist.answer(_user("docs"), SEED, "r24", True, _at(139))
    assert late.value.code == "conflict" and "lapsed" in late.value.message


def test_through_the_api_an_offer_past_its_time_is_a_409_and_a_bad_body_a_400(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))  # the seed match is long over: the offer's time is past
    url = f"/api/matches/{SEED}/offers/r24"
    late = desk["docs"].post(url, {"accept": True}, "application/json")
    assert late.status_code == 409 and "lapsed" in late.json()["message"]
    assert desk["docs"].post(url, {"accept": "yes"}, "application/json").status_code == 400
    assert desk["bt"].post(url, {"accept": True}, "application/json").status_code == 404
    missing = desk["docs"].post(
        f"/api/matches/{SEED}/offers/r99", {"accept": True}, "application/json"
    )
    assert missing.status_code == 404
    offers = _waitlist(desk["docs"])["offers"]
    assert [(o["request"], o["state"]) for o in offers] == [("r24", "lapsed")]


def test_a_match_over_releases_nobody(desk) -> None:
    """Done after its last phase (the worker stopped meanwhile): no place is of use."""
    done = waitlist.do_match_day(SEED, _at(181))
    assert (done.released, done.promoted, done.next_at) == ([], [], None)


def test_publish_and_revoke_queue_the_worker(desk) -> None:
    from django_tasks_db.models import DBTaskResult

    queued = DBTaskResult.objects.filter(task_path__endswith="tend_match")
    assert queued.count() == 1  # by the publish
    desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "gone"}, "application/json"
    )
    assert queued.count() == 2


def test_an_incident_shows_who_was_present_beside_the_plan(desk) -> None:
    """Coverage learns from presence: the plan's crews (`covered_by`) and those the doors
    counted inside the zone at the incident's minute (`present`)."""
    from pitchpass.web.services import doors

    code = {
        p["request"]: p["code"]
        for p in desk["bt"].get(f"/api/matches/{SEED}/passes").json()["items"]
    }
    body = {"code": code["r02"], "zone": "tunnel", "phase": "post-match", "direction": "in"}
    verdict = doors.do_check_in(_user("steward"), SEED, body, _at(110))
    assert verdict["result"] == "admitted", verdict
    logged = desk["officer"].post(
        f"/api/matches/{SEED}/incidents",
        {"zone": "tunnel", "minute": 115, "what": "flashpoint"},
        "application/json",
    )
    assert logged.status_code == 201, logged.content

    def tunnel(client: Client) -> dict[str, Any]:
        answer = client.get(f"/api/matches/{SEED}/coverage")
        assert answer.status_code == 200, answer.content
        return next(i for i in answer.json()["incidents"] if i["zone"] == "tunnel")

    seen = tunnel(desk["officer"])
    planned = {s["id"] for s in seen["covered_by"] if s["source"] == "request"}
    assert "r02" in planned and len(planned) > 1  # the plan: every tunnel crew
    assert seen["present"] == [{"id": "r02", "org": "bt-sport"}]  # the doors: one crew
    assert tunnel(desk["bt"])["present"] == [{"id": "r02", "org": "bt-sport"}]
    assert tunnel(desk["docs"])["present"] == [{"id": None, "org": "bt-sport"}]  # no id
    page = Client()
    page.force_login(_user("officer"))
    text = page.get(f"/matches/{SEED}/").content.decode()
    assert "present at the doors: r02 (BT Sport)" in text


def test_the_board_offers_the_place_and_its_buttons_to_its_organisation_only(desk) -> None:
    from django.utils import timezone

    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    # The seed match is long over: the offer is made open until tomorrow for the pages.
    m.Offer.objects.update(until=timezone.now() + timedelta(days=1))
    pages = {}
    for name in ("docs", "bt", "officer"):
        pages[name] = Client()
        pages[name].force_login(_user(name))
    board = pages["docs"].get(f"/matches/{SEED}/").content.decode()
    assert "Waitlist and places offered" in board and "Accept the place" in board
    # Offered a place, the crew is no longer told it was refused where it would catch one.
    assert "would have caught this: r24" not in board
    assert "r24" not in pages["bt"].get(f"/matches/{SEED}/").content.decode()
    officer = pages["officer"].get(f"/matches/{SEED}/").content.decode()
    assert "r24" in officer and "offered a place for post-match, open until" in officer
    assert "Accept the place" not in officer  # the organisation answers, not the officer
    url = f"/matches/{SEED}/requests/r24/offer/"
    refused = pages["bt"].post(url, {"answer": "accept"}, follow=True)
    assert "no place offered" in refused.content.decode()
    done = pages["docs"].post(url, {"answer": "accept"}, follow=True)
    assert "r24: place accepted" in done.content.decode()
    assert m.Request.objects.get(match__key=SEED, key="r24").locked


def test_an_accepted_offer_is_not_released_for_a_release_time_before_it(desk) -> None:
    """The review's case: r24 (pre-match and post-match, released at minute -65) accepted
    at minute 110 keeps its place, though none of its crew went in by minute -65."""
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    waitlist.answer(_user("docs"), SEED, "r24", True, _at(110))
    later = waitlist.do_match_day(SEED, _at(150))
    assert "r24" not in later.released
    assert m.Request.objects.get(match__key=SEED, key="r24").locked


def test_a_refusal_by_hand_is_not_on_the_waitlist(desk) -> None:
    officer = desk["officer"]
    url = f"/api/matches/{SEED}/requests/r24/override"
    answer = officer.post(url, {"status": "refused", "reason": "crew banned"}, "application/json")
    assert answer.status_code == 200, answer.content
    assert officer.post(f"/api/matches/{SEED}/publish").status_code == 200
    assert waitlist.waitlist_for(_user("officer"), SEED, _at(100))["waitlist"] == []
    _check_in_all_but("r23")
    assert waitlist.do_match_day(SEED, _at(108)).promoted == []


def test_an_offer_cannot_be_accepted_once_the_club_took_its_consent_back(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    taken = desk["away"].post(
        f"/api/matches/{SEED}/requests/r24/consent", {"given": False}, "application/json"
    )
    assert taken.status_code == 200, taken.content
    with pytest.raises(ServiceError) as refused:
        waitlist.answer(_user("docs"), SEED, "r24", True, _at(110))
    assert refused.value.code == "conflict" and "consent" in refused.value.message.lower()
    assert not m.Request.objects.get(match__key=SEED, key="r24").locked


def test_tends_asked_for_again_and_again_queue_one_task_a_moment(desk) -> None:
    from django_tasks_db.models import DBTaskResult

    _check_in_all_but("r23")
    for _ in range(5):
        waitlist.do_match_day(SEED, _at(100))
    later = DBTaskResult.objects.filter(task_path__endswith="tend_match", run_after=_at(107))
    assert later.count() == 1


def _return_match(*requests: tuple[str, str, str, int], key: str = "", days: int = 21) -> None:
    """A second match of the seed's competition (the return derby, 3 weeks later) with
    these requests (id, by, zone, crew), sent a week after the seed match, one an hour."""
    from pitchpass.core.reading.parse import parse_text
    from pitchpass.web.persistence import store

    document = parse_text(SEED_FILE.read_text(), SEED_FILE.name)
    key = key or RETURN
    kickoff = _kickoff() + timedelta(days=days)
    sent = _kickoff() + timedelta(days=days - 14)
    document["matches"] = [{**document["matches"][0], "id": key, "kickoff": kickoff.isoformat()}]
    document["requests"] = [
        {"id": rid, "match": key, "by": by, "zone": zone, "phases": ["post-match"],
         "crew": crew, "submitted": (sent + timedelta(hours=n)).isoformat()}
        for n, (rid, by, zone, crew) in enumerate(requests)
    ]  # fmt: skip
    document["incidents"] = []
    store.load(document)


RETURN = "mci-mun-return"
SEED_FILE = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"


def _decided(client: Client, match: str) -> dict[str, Any]:
    answer = client.post(f"/api/matches/{match}/decide")
    assert answer.status_code == 200, answer.content
    return {d["request"]: d for d in answer.json()["decisions"]}


def test_the_no_show_bar_refuses_the_next_request_of_the_season(desk) -> None:
    """play-sports misses the derby (a no-show at its release time); with a limit of 1 its
    next request of the competition, at the return match, is refused `no-shows` and the
    place goes to the next crew; the one after is decided as ever. Withdrawn, the barred
    request passes the bar to the next one; a grant by hand sets the bar aside."""
    _check_in_all_but("r23")
    assert waitlist.do_match_day(SEED, _at(108)).released == ["r23"]
    _return_match(
        ("p1", "play-sports", "tunnel", 40), ("b1", "bt-sport", "tunnel", 10),
        ("p2", "play-sports", "mixed-zone", 1),
    )  # fmt: skip
    m.Competition.objects.update(no_show_limit=1)  # a load sets the file's (the default 2)
    decided = _decided(desk["officer"], RETURN)
    assert [r["code"] for r in decided["p1"]["reasons"]] == ["no-shows"]
    assert "no-show limit (1)" in decided["p1"]["reasons"][0]["text"]
    assert decided["b1"]["status"] == "granted"  # p1's 40 places would have left no room
    assert decided["p2"]["status"] == "granted"  # the bar refuses one request, not two
    # Withdrawn (by an admin: the return match's deadline is long past), the bar moves on.
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    entries.do_withdraw_request(_user("admin"), RETURN, "p1", _at(200))
    decided = _decided(desk["officer"], RETURN)
    assert [r["code"] for r in decided["p2"]["reasons"]] == ["no-shows"]
    # The league's own rule: the officer may set it aside by hand.
    override = desk["officer"].post(
        f"/api/matches/{RETURN}/requests/p2/override",
        {"status": "granted", "reason": "their crew was stuck in traffic"},
        "application/json",
    )
    assert override.status_code == 200, override.content
    shown = desk["officer"].get(f"/api/matches/{RETURN}/decisions").json()
    assert {d["request"]: d["status"] for d in shown["decisions"]}["p2"] == "granted"


def test_no_bar_without_a_limit_or_before_the_no_show(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    _return_match(("p1", "play-sports", "mixed-zone", 1))
    m.Competition.objects.update(no_show_limit=0)
    assert _decided(desk["officer"], RETURN)["p1"]["status"] == "granted"
    m.Competition.objects.update(no_show_limit=1)
    assert _decided(desk["officer"], RETURN)["p1"]["reasons"][0]["code"] == "no-shows"
    # A request sent before the no-show (its release time) is not barred.
    m.Request.objects.filter(key="p1").update(submitted=_at(100))
    assert _decided(desk["officer"], RETURN)["p1"]["status"] == "granted"


def test_an_exported_match_carries_the_bar_and_decides_alike_on_the_command_line(desk) -> None:
    from pitchpass.core import decide_document
    from pitchpass.web.persistence import store

    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    _return_match(("p1", "play-sports", "mixed-zone", 1), ("p2", "play-sports", "tunnel", 1))
    m.Competition.objects.update(no_show_limit=1)
    document = store.export(RETURN)
    assert [(r["id"], r.get("no_shows")) for r in document["requests"]] == [("p1", 1), ("p2", None)]
    on_the_desk = _decided(desk["officer"], RETURN)
    cli = {d["request"]: d for d in decide_document(document)["matches"][0]["decisions"]}
    assert cli["p1"]["reasons"] == on_the_desk["p1"]["reasons"]
    assert cli["p2"]["status"] == on_the_desk["p2"]["status"] == "granted"
    # Loaded back, the file's `no_shows` is not kept (the desk works it out): a warning says so.
    loaded = store.load(document, replace=True)
    assert [w.path for w in loaded.warnings] == ["requests[0].no_shows"]


def test_an_open_offer_holds_its_places_against_the_officers_decide_and_publish(desk) -> None:
    """The officer decides, grants by hand and publishes while the documentary's offer is
    open: its places stay held (granted in the proposal, published only once accepted)."""
    _check_in_all_but("r23")
    assert waitlist.do_match_day(SEED, _at(108)).promoted == ["r24"]
    offer = m.Offer.objects.filter(request__key="r24")  # the seed match is long over: its
    offer.update(until=timezone.now() + timedelta(hours=1))  # offer open an hour from now
    officer = desk["officer"]
    match = m.Match.objects.get(key=SEED)  # a partner's late request: refused, but a
    m.Request.objects.create(  # grant by hand sets the deadline aside
        match=match, key="x1", by=m.Organisation.objects.get(key="bt-sport"),
        zone=match.venue.zones.get(key="tunnel"), phases=["post-match"], crew=2,
        submitted=_at(-60), position=999, changed_in=match.version + 1,
    )  # fmt: skip
    changed(match)
    proposals = m.Notice.objects.filter(request="r24", kind__in=["decided", "bumped"])
    told = proposals.count()
    assert _decided(officer, SEED)["r24"]["status"] == "granted"  # held for its offer
    assert proposals.count() == told  # the offer tells the crew; no proposal notice too
    run = m.DecisionRun.objects.filter(match__key=SEED).latest("number")
    assert "r24" in run.locked  # held, as published grants are: not the policy's choice
    grant = officer.post(
        f"/api/matches/{SEED}/requests/x1/override",
        {"status": "granted", "reason": "the partner asked"},
        "application/json",
    )
    assert grant.status_code == 409 and grant.json()["code"] == "no-room", grant.content
    refuse = officer.post(
        f"/api/matches/{SEED}/requests/r24/override",
        {"status": "refused", "reason": "changed my mind"},
        "application/json",
    )  # its crew answers the offer: nothing by hand while it is open
    assert refuse.status_code == 409 and "offered a place" in refuse.json()["message"]
    from pitchpass.web.services import views

    seen = views.board_of(_user("officer"), SEED, {}, timezone.now())
    row = next(r for r in seen.rows if r.key == "r24")
    assert row.offered and not row.can_override  # the board offers no override of it
    page = Client()
    page.force_login(_user("officer"))
    board = page.get(f"/matches/{SEED}/").content.decode()
    assert "offered a place from the waitlist" in board
    # No grant to lock (the offer is its crew's to answer): a publish tells BT its late
    # request's refusal, and says so.
    assert '>Publish</button> <span class="muted">locks no grant; tells 1 refusal' in board
    published = officer.post(f"/api/matches/{SEED}/publish")
    assert published.status_code == 200 and "r24" not in published.json()["published"]
    assert m.Notice.objects.filter(request="x1", kind="refused").count() == 1
    assert not m.Request.objects.get(match__key=SEED, key="r24").locked
    assert m.Offer.objects.get(request__key="r24").state == "open"
    waitlist.answer(_user("docs"), SEED, "r24", True, _at(110))
    assert m.Request.objects.get(match__key=SEED, key="r24").locked


def test_an_offer_past_its_time_holds_nothing_even_before_the_worker_marks_it(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))  # the seed match is long over: the offer's time is past
    assert m.Offer.objects.get(request__key="r24").state == "open"  # not marked yet
    assert waitlist.offered(m.Match.objects.get(key=SEED)) == []


def test_the_board_tells_the_barred_organisation_why(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    _return_match(("p1", "play-sports", "mixed-zone", 1))
    m.Competition.objects.update(no_show_limit=1)
    _decided(desk["officer"], RETURN)
    do_add_user("play", "media", "play-sports", "pw-for-tests-only-7")
    page = Client()
    page.force_login(_user("play"))
    board = page.get(f"/matches/{RETURN}/")
    assert board.status_code == 200
    assert "reached the competition&#x27;s no-show limit (1)" in board.content.decode()


def test_a_run_made_before_the_bar_moved_is_stale(desk) -> None:
    """The bar moves with other matches (here a withdrawal at the return match): a run of
    a third match decided before is stale, not published as it was."""
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))
    _return_match(("p1", "play-sports", "mixed-zone", 1))
    _return_match(("p2", "play-sports", "mixed-zone", 1), key="third", days=28)
    m.Competition.objects.update(no_show_limit=1)
    assert _decided(desk["officer"], "third")["p2"]["status"] == "granted"  # p1 is barred
    third = m.Match.objects.get(key="third")

    def left() -> int:  # the room hint's places left in the mixed zone, post-match
        return decisions.room(third, "mixed-zone", ["post-match"], 1)[0].left

    before = left()
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    entries.do_withdraw_request(_user("admin"), RETURN, "p1", _at(200))
    assert left() == before + 1  # p2 is barred now: the hint kept across pages sees it
    stale = desk["officer"].post("/api/matches/third/publish")
    assert stale.status_code == 409 and stale.json()["code"] == "stale-run", stale.content
    assert "no-show bar" in stale.json()["message"]
    assert _decided(desk["officer"], "third")["p2"]["reasons"][0]["code"] == "no-shows"
    assert desk["officer"].post("/api/matches/third/publish").status_code == 200
    assert not m.Request.objects.get(match__key="third", key="p2").locked


def test_releases_leave_a_grace_warn_first_spare_the_host_and_go_phase_by_phase(desk) -> None:
    """Issue 26, section 2, on the seed match published at minute -121: nobody is
    released a minute later (the grace, 60 minutes); crews not in are warned 30 minutes
    before; Sky (the host) is never released; Sky Sports News misses pre-match and loses
    that place only, keeps post-match once one of its crew has checked in."""
    from pitchpass.web.persistence import store

    match = m.Match.objects.get(key=SEED)
    match.requests.filter(locked=True).update(granted_at=_at(-121))
    assert waitlist.do_match_day(SEED, _at(-120)).released == []  # a minute after the publish
    warned = waitlist.do_match_day(SEED, _at(-91)).warned
    assert "r35" in warned and "r01" not in warned  # the host is never released
    notice = m.Notice.objects.get(kind="release-warning", request="r35")
    assert notice.data["phase"] == "pre-match" and notice.data["at"] == _at(-61).isoformat()
    assert "unless one of its crew checks in" in notice.text
    assert waitlist.do_match_day(SEED, _at(-62)).released == []  # pre-match's own time was -65
    done = waitlist.do_match_day(SEED, _at(-61))
    assert "r35" in done.released and "r01" not in done.released
    r35 = m.Request.objects.get(match=match, key="r35")
    assert r35.locked and r35.released == ["pre-match"] and not r35.revoked  # kept post-match
    said = m.Notice.objects.get(kind="released", request="r35")
    assert "60 minutes after its grant was published" in said.text and "pre-match" in said.text
    exported = next(r for r in store.export(SEED)["requests"] if r["id"] == "r35")
    assert exported["phases"] == ["post-match"]
    passes = {
        p["request"]: p for p in desk["officer"].get(f"/api/matches/{SEED}/passes").json()["items"]
    }
    assert passes["r35"]["phases"] == ["post-match"]
    # Every view says the same: granted, for post-match, its pre-match place released.
    shown = desk["officer"].get(f"/api/matches/{SEED}/decisions").json()["decisions"]
    said = next(d for d in shown if d["request"] == "r35")
    assert (said["status"], said["state"]) == ("granted", "granted")
    assert [r["code"] for r in said["reasons"]] == ["released"]
    assert said["reasons"][0]["text"].startswith("its pre-match place released as a no-show")
    from pitchpass.web.services import views as board_views

    rows = board_views.board_of(_user("officer"), SEED, {}, _at(-60)).rows
    assert next(r for r in rows if r.key == "r35").phases == ["post-match"]
    # One of its crew comes at minute 30: its post-match place stays (release at 107).
    m.Scan.objects.create(
        match=match, request="r35", zone="press-conference", phase="post-match", direction="in",
        result="admitted", text="in", scanned=_at(30), received=_at(30),
    )  # fmt: skip
    assert "r35" not in waitlist.do_match_day(SEED, _at(108)).released
    assert m.Request.objects.get(match=match, key="r35").locked
    host = m.Request.objects.get(match=match, key="r01")
    assert host.locked and host.released == []
    # Every view counts the phase released: a media user's grid frees r35's pre-match
    # place in the press conference (it is published: the run's own usage no longer is).
    from django.utils import timezone

    from pitchpass.web.services import views

    grid = views.board_of(_user("bt"), SEED, {}, timezone.now()).grid
    cells = {(c["zone"], c["phase"]): c["used"] for _, row in grid for c in row}
    stored = m.Request.objects.filter(match=match, locked=True, zone__key="press-conference")
    held = sum(r.crew for r in stored if "pre-match" in r.phases and "pre-match" not in r.released)
    assert cells["press-conference", "pre-match"] == held
    # Revoked by hand after losing a phase, it reads revoked, not released.
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r35/revoke", {"reason": "crew swapped"}, "application/json"
    )
    assert revoked.status_code == 200, revoked.content
    shown = desk["officer"].get(f"/api/matches/{SEED}/decisions").json()
    r35 = next(d for d in shown["decisions"] if d["request"] == "r35")
    assert r35["state"] == "revoked" and r35["reasons"][0]["code"] == "revoked"


def test_the_board_says_before_a_publish_who_it_puts_inside_its_release_time(desk) -> None:
    """A grant about to be published 100 minutes before kick-off: its pre-match place
    (release time -65) would go at -40, the grace after the publish; the officer reads
    who and when before clicking Publish, on the board and its page."""
    from pitchpass.web.services import views

    match = m.Match.objects.get(key=SEED)
    m.Request.objects.create(
        match=match, key="x1", by=m.Organisation.objects.get(key="bt-sport"),
        zone=match.venue.zones.get(key="mixed-zone"), phases=["pre-match"], crew=1,
        submitted=_at(-10 * 24 * 60), position=999, changed_in=match.version + 1,
    )  # fmt: skip
    changed(match)
    assert _decided(desk["officer"], SEED)["x1"]["status"] == "granted"
    board = views.board_of(_user("officer"), SEED, {}, _at(-100))
    assert board.publishable
    assert [(x["request"], x["phase"]) for x in board.release_soon] == [("x1", "pre-match")]
    assert "(minute -40)" in board.release_soon[0]["at_text"]
    later = views.board_of(_user("officer"), SEED, {}, _at(-200))  # the phase's own time
    assert later.release_soon == []
    media = views.board_of(_user("bt"), SEED, {}, _at(-100))
    assert media.release_soon == []  # the officer's, before publishing


def test_a_release_time_is_told_to_the_second_not_rounded_to_a_minute(desk) -> None:
    """Published at 30 seconds past a minute, r35's pre-match place is released 60 minutes
    later, at minute -60.5: the warning says so, neither the minute before nor after."""
    match = m.Match.objects.get(key=SEED)
    match.requests.filter(locked=True).update(granted_at=_at(-120.5))
    assert "r35" in waitlist.do_match_day(SEED, _at(-90)).warned
    notice = m.Notice.objects.get(kind="release-warning", request="r35")
    due = _at(-60.5).astimezone(match.kickoff.tzinfo)
    assert due.second == 30
    assert f"{due:%H:%M:%S} UTC (minute -60.5)" in notice.text, notice.text
    assert waitlist.do_match_day(SEED, _at(-60.6)).released == []
    done = waitlist.do_match_day(SEED, _at(-60.4))
    assert "r35" in done.released
    said = m.Notice.objects.get(kind="released", request="r35")
    assert f"checked in by {due:%a %-d %b %Y, %H:%M:%S} UTC (minute -60.5)" in said.text


def test_a_moment_is_told_cut_to_its_second_and_without_a_minute_days_away(desk) -> None:
    from pitchpass.web.services import times

    match = m.Match.objects.get(key=SEED)
    kickoff = match.kickoff.astimezone(times.zone_of(match))
    at = _at(161.97)  # 9718.2 s after kick-off
    assert times.clock(match, at) == (
        f"{times.text(match, at, times.SECONDS)} (minute +161.9)"
    )  # neither +162 nor a second after the moment
    assert f"{at.astimezone(kickoff.tzinfo):%H:%M:%S}" in times.clock(match, at)
    assert times.clock(match, _at(-45)).endswith("(minute -45)")
    days = _at(-3 * 24 * 60 - 0.5)
    assert times.clock(match, days) == times.text(match, days, times.SECONDS)  # no minute
    assert "minute" not in times.clock(match, _at(-24 * 60))
