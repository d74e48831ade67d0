"""One record of each request's state after publish (issue 26, section 1): what happens on
match day (a revoke, a release, an offer made and answered) is written once, as it
happens, and every view reads it at once, with no decide: the board, GET /decisions,
the waitlist, passes and the door; it never makes a run stale; a decide after it decides
only the requests still open, and tells only of what changed; the CLI's export of the
match decides as the desk does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from test_doors import SEED

from pitchpass.core import decide_document
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import doors, views, waitlist

pytestmark = pytest.mark.django_db


def _user(name: str) -> User:
    return User.objects.get(username=name)


def _at(minute: float) -> Any:
    return m.Match.objects.get(key=SEED).kickoff + timedelta(minutes=minute)


def _decisions(client: Client) -> dict[str, dict[str, Any]]:
    answer = client.get(f"/api/matches/{SEED}/decisions")
    assert answer.status_code == 200, answer.content
    return {d["request"]: d for d in answer.json()["decisions"]}


def _revoke_and_offer(desk: dict[str, Client]) -> None:
    """r23 (Play Sports, tunnel) revoked by the officer; the worker offers its places
    down the waitlist to r24 (the documentary), open for an hour from now."""
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r23/revoke", {"reason": "crew banned"}, "application/json"
    )
    assert revoked.status_code == 200, revoked.content
    # Every other published grant is taken as checked in: nobody else is released.
    m.Request.objects.filter(match__key=SEED, locked=True).update(granted_at=_at(200))
    assert waitlist.do_match_day(SEED, _at(100)).promoted == ["r24"]
    m.Offer.objects.filter(request__key="r24").update(until=timezone.now() + timedelta(hours=1))


def test_an_accepted_place_is_granted_everywhere_at_once_without_a_decide(desk) -> None:
    _revoke_and_offer(desk)
    runs = m.DecisionRun.objects.filter(match__key=SEED).count()
    before = _decisions(desk["officer"])
    assert before["r23"]["status"] == "revoked" and before["r23"]["state"] == "revoked"
    assert before["r23"]["reasons"] == [{"code": "revoked", "text": "crew banned"}]
    assert before["r24"]["status"] == "offered"
    accepted = desk["docs"].post(
        f"/api/matches/{SEED}/offers/r24", {"accept": True}, "application/json"
    )
    assert accepted.status_code == 200, accepted.content
    for name in ("officer", "docs", "away"):  # the home club, the crew, the other club
        seen = _decisions(desk[name])
        assert seen["r24"]["status"] == "granted" and seen["r24"]["state"] == "accepted", name
        assert seen["r24"]["reasons"] == []
    assert m.DecisionRun.objects.filter(match__key=SEED).count() == runs  # no decide
    # Who catches the dressing-room incident: GET /decisions says what GET /coverage says.
    for name in ("officer", "docs"):
        listed = desk[name].get(f"/api/matches/{SEED}/decisions").json()["incidents"]
        covered = desk[name].get(f"/api/matches/{SEED}/coverage").json()["incidents"]
        room = [i for i in listed if i["incident"] == "dressing-room-altercation"]
        assert room[0]["covered_by"] == next(
            i["covered_by"] for i in covered if i["incident"] == "dressing-room-altercation"
        ), name
        assert [s["org"] for s in room[0]["covered_by"]] == ["man-city-documentary"], name
    # The board: granted and published for the crew and the officer, and not stale.
    for name in ("officer", "docs"):
        board = views.board_of(_user(name), SEED, {}, timezone.now())
        row = next(r for r in board.rows if r.key == "r24")
        assert (row.status, row.state, row.locked) == ("granted", "accepted", True), name
        assert not board.stale, name
    page = Client()
    page.force_login(_user("officer"))
    text = page.get(f"/matches/{SEED}/").content.decode()
    assert "decide again" not in text
    # The grids agree: nothing is proposed, so the officer's counts what the media user's
    # does (the published places, r24's accepted one among them, r23's revoked one not).
    officer = views.board_of(_user("officer"), SEED, {}, timezone.now()).grid
    media = views.board_of(_user("docs"), SEED, {}, timezone.now()).grid
    assert officer == media
    cells = {(c["zone"], c["phase"]): c["used"] for _, row in officer for c in row}
    rows = m.Request.objects.filter(match__key=SEED, locked=True, zone__key="tunnel")
    assert cells["tunnel", "post-match"] >= sum(
        r.crew for r in rows if "post-match" in r.phases
    )  # what passes through the tunnel to the pitch counts there too
    assert cells["tunnel", "post-match"] <= 46  # the tunnel's places: never more
    # Its pass, and the door lets its crew in.
    passes = desk["docs"].get(f"/api/matches/{SEED}/passes").json()["items"]
    code = next(p["code"] for p in passes if p["request"] == "r24")
    body = {"code": code, "zone": "tunnel", "phase": "post-match", "direction": "in"}
    verdict = doors.do_check_in(_user("steward"), SEED, body, _at(110))
    assert verdict["result"] == "admitted", verdict


def test_match_day_events_never_make_the_run_stale(desk) -> None:
    _revoke_and_offer(desk)
    desk["docs"].post(f"/api/matches/{SEED}/offers/r24", {"accept": False}, "application/json")
    board = views.board_of(_user("officer"), SEED, {}, timezone.now())
    assert not board.stale
    row = next(r for r in board.rows if r.key == "r24")
    assert (row.status, row.state) == ("refused", "declined")
    published = desk["officer"].post(f"/api/matches/{SEED}/publish")
    assert published.status_code == 200, published.content  # nothing stale to decide again
    assert published.json()["published"] == []


def test_a_decide_after_publish_decides_only_the_open_requests_and_tells_only_of_change(
    desk,
) -> None:
    _revoke_and_offer(desk)
    desk["docs"].post(f"/api/matches/{SEED}/offers/r24", {"accept": True}, "application/json")
    told = m.Notice.objects.count()
    decided = desk["officer"].post(f"/api/matches/{SEED}/decide")
    assert decided.status_code == 200, decided.content
    shown = _decisions(desk["officer"])
    assert shown["r24"]["state"] == "accepted" and shown["r23"]["state"] == "revoked"
    # No "proposed granted" to a crew that holds its pass; no notice at all: nothing open
    # was decided otherwise.
    assert m.Notice.objects.count() == told


def test_the_clis_export_decides_as_the_desk_at_any_moment(desk) -> None:
    _revoke_and_offer(desk)
    desk["docs"].post(f"/api/matches/{SEED}/offers/r24", {"accept": False}, "application/json")
    document = store.export(SEED)
    ids = {r["id"] for r in document["requests"]}
    assert "r23" not in ids and "r24" not in ids  # revoked, declined: decided by nobody
    on_the_desk = desk["officer"].post(f"/api/matches/{SEED}/decide").json()
    cli = decide_document(document)["matches"][0]
    assert cli["decisions"] == on_the_desk["decisions"]


def test_an_open_offer_is_exported_as_holding_its_places(desk) -> None:
    _revoke_and_offer(desk)
    document = store.export(SEED)
    r24 = next(r for r in document["requests"] if r["id"] == "r24")
    assert r24["locked"] is True
    # Its crew has not accepted: not a published grant (no pass, not released).
    assert not m.Request.objects.get(match__key=SEED, key="r24").locked
    assert "r24" not in {
        p["request"] for p in desk["docs"].get(f"/api/matches/{SEED}/passes").json()["items"]
    }


def test_what_is_not_published_is_nobody_elses_and_is_marked_proposed(desk) -> None:
    """Issue 26, section 4: a rival's proposed crew moves no count that a media user or
    a steward sees (the board's grid, the match list); the away club's officer reads a
    proposal in its room as proposed, not final."""
    from pitchpass.web.persistence.changes import changed

    match = m.Match.objects.get(key=SEED)

    def grids() -> dict[str, Any]:
        return {
            name: views.board_of(_user(name), SEED, {}, timezone.now()).grid
            for name in ("docs", "steward")
        }

    def fullest(name: str) -> Any:
        coming, past = views.match_list(_user(name), timezone.now())
        return next(line.fullest for line in [*coming, *past] if line.match.key == SEED)

    before, listed = grids(), fullest("docs")
    m.Request.objects.create(
        match=match, key="x1", by=m.Organisation.objects.get(key="bt-sport"),
        zone=match.venue.zones.get(key="mixed-zone"), phases=["post-match"], crew=3,
        submitted=_at(-10 * 24 * 60), position=999, changed_in=match.version + 1,
    )  # fmt: skip
    changed(match)
    decided = desk["officer"].post(f"/api/matches/{SEED}/decide").json()
    assert {d["request"]: d["status"] for d in decided["decisions"]}["x1"] == "granted"
    assert grids() == before and fullest("docs") == listed  # proposed: not theirs to count
    officer = views.board_of(_user("officer"), SEED, {}, timezone.now())
    assert officer.grid != before["docs"]  # the officer's grid counts its proposal
    away = views.board_of(_user("away"), SEED, {}, timezone.now())
    r24 = next(r for r in away.rows if r.key == "r24")  # in City's dressing room
    assert (r24.status, r24.state, r24.proposed) == ("refused", "proposed", True)
    page = Client()
    page.force_login(_user("away"))
    row = page.get(f"/matches/{SEED}/").content.decode().split('id="request-r24"')[1]
    assert 'title="proposed, not published yet">*' in row.split("</tr>")[0]


def test_the_usage_of_get_decisions_is_the_grid_the_record_holds(desk) -> None:
    # The run granted r23 (a crew of 2 in the tunnel after the match); revoked since, its
    # places are free at once in the usage every role reads, with no decide.
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r23/revoke", {"reason": "crew banned"}, "application/json"
    )
    assert revoked.status_code == 200, revoked.content
    run = m.DecisionRun.objects.filter(match__key=SEED).latest("number")
    ran = {(u["zone"], u["phase"]): u["used"] for u in run.output["usage"]}
    assert ran[("tunnel", "post-match")] == 46
    for who in ("officer", "bt", "away"):
        answer = desk[who].get(f"/api/matches/{SEED}/decisions").json()
        used = {(u["zone"], u["phase"]): u["used"] for u in answer["usage"]}
        assert used[("tunnel", "post-match")] == 44, who


def test_the_officers_coverage_reads_the_record_not_a_decide_now(desk) -> None:
    """r23's tunnel places freed by a revoke, before the worker offers them on: a decide
    now would grant r24 (the documentary, refused and published) and film the dressing
    room. While the run is current, the officer's coverage says what the board says: r24
    is refused and catches nothing; it is not "if decided now"."""
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r23/revoke", {"reason": "crew banned"}, "application/json"
    )
    assert revoked.status_code == 200, revoked.content
    assert _decisions(desk["officer"])["r24"]["status"] == "refused"
    answer = desk["officer"].get(f"/api/matches/{SEED}/coverage").json()
    assert answer["if_decided_now"] is False
    room = next(i for i in answer["incidents"] if i["incident"] == "dressing-room-altercation")
    assert room["covered_by"] == [], room
    assert {d["request"] for d in decisions_now(desk)} >= {"r24"}  # a decide would grant it


def decisions_now(desk: dict[str, Client]) -> list[dict[str, Any]]:
    """The run a decide now makes: its grants."""
    answer = desk["officer"].post(f"/api/matches/{SEED}/decide")
    assert answer.status_code == 200, answer.content
    return [d for d in answer.json()["decisions"] if d["status"] == "granted"]


def test_the_match_list_shows_the_fullest_place_the_board_shows(desk) -> None:
    """After a revoke (r23's 2 tunnel places free), the match list's fullest zone counts
    what the board's grid counts, for the officer and a media user alike."""
    from pitchpass.web.services import board

    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r23/revoke", {"reason": "crew banned"}, "application/json"
    )
    assert revoked.status_code == 200, revoked.content
    for name in ("officer", "docs"):
        coming, past = views.match_list(_user(name), timezone.now())
        line = next(x for x in coming + past if x.match.key == SEED)
        grid = views.board_of(_user(name), SEED, {}, timezone.now()).grid
        usage = [c for _, row in grid for c in row]
        assert line.fullest is not None
        fullest = board.fullest(usage)
        assert fullest is not None
        assert line.fullest == {k: fullest[k] for k in line.fullest}, name
        tunnel = next(c for c in usage if (c["zone"], c["phase"]) == ("tunnel", "post-match"))
        assert tunnel["used"] == 44, name  # 46 of 46 before the revoke
