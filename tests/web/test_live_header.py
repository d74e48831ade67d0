"""The match-day header (issue 26, section 5): the phase and the minute now (stoppage time
as 45+2), who is inside each zone, who is due for release next and when, the offers open,
and an incident logged now with the minute filled in; each role sees what is theirs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from test_doors import SEED, _passes, _signed_in
from test_match_day import _at, _check_in_all_but, _user

from pitchpass.web.persistence import models as m
from pitchpass.web.services import doors, live, waitlist

pytestmark = pytest.mark.django_db


def _live(name: str, minute: float) -> live.Live | None:
    return live.live_of(_user(name), m.Match.objects.get(key=SEED), _at(minute))


def _published_the_day_before() -> None:
    m.Request.objects.filter(match__key=SEED, locked=True).update(granted_at=_at(-24 * 60))


def test_the_clock_says_the_phase_the_minute_and_stoppage_time(desk) -> None:
    _published_the_day_before()
    before = _live("officer", -24 * 60)
    assert before is not None and not before.on and before.inside == []
    kickoff = m.Match.objects.get(key=SEED).kickoff
    opens = kickoff - timedelta(minutes=135)  # 15 minutes before the arrival (-120)
    assert before.opens == f"{opens:%a} {opens.day} {opens:%b %Y, %H:%M} UTC"
    pre = _live("officer", -20)
    assert pre is not None and pre.on
    assert (pre.clock.phase, pre.clock.football, pre.log_minute) == ("pre-match", None, "-20")
    assert (pre.clock.next_phase, pre.clock.next_start) == ("first-half", 0)
    stoppage = _live("steward", 46.5)
    assert stoppage is not None
    assert (stoppage.clock.phase, stoppage.clock.football) == ("first-half", "45+2")
    assert stoppage.log_minute == "45+2"  # as the incident form reads it: clock minute 46
    late = _live("officer", 112.9)  # the header's minute is the form's "now": both cut
    assert late is not None and (late.clock.whole, late.log_minute) == (112, "112")
    assert _live("docs", 46.5).log_minute is None  # media users log no incidents
    assert _live("officer", 180 + 16) is None  # the doors closed 15 minutes after the end


def test_who_is_inside_is_named_to_the_home_club_and_the_stewards_counted_to_others(desk):
    _published_the_day_before()
    r25 = _passes(desk["docs"])["r25"]
    body = {"code": r25["code"], "zone": "pitch-side", "phase": "pre-match", "direction": "in"}
    for key in ("a", "b"):
        done = doors.do_check_in(_user("steward"), SEED, body | {"key": key}, _at(-20))
        assert done["result"] == "admitted", done
    docs_name = m.Organisation.objects.get(key="man-city-documentary").name
    for name in ("officer", "steward"):
        seen = _live(name, -19)
        assert seen is not None and seen.names
        side = next(z for z in seen.inside if z.zone == "Pitch-side positions")
        assert (side.people, side.places, side.crews) == (2, 30, [f"{docs_name} (2)"])
    for name in ("bt", "away"):  # another broadcaster, the away club: counts, no names
        seen = _live(name, -19)
        assert seen is not None and not seen.names
        side = next(z for z in seen.inside if z.zone == "Pitch-side positions")
        assert (side.people, side.crews) == (2, [])
    doors.do_check_in(_user("steward"), SEED, body | {"key": "c", "direction": "out"}, _at(-18))
    after = _live("officer", -17)
    assert after is not None
    side = next(z for z in after.inside if z.zone == "Pitch-side positions")
    assert (side.people, side.crews) == (1, [f"{docs_name} (1)"])
    # The last of its crew out: the crew is no longer named, the names add up to the count.
    doors.do_check_in(_user("steward"), SEED, body | {"key": "d", "direction": "out"}, _at(-16))
    gone = _live("officer", -15)
    assert gone is not None
    side = next(z for z in gone.inside if z.zone == "Pitch-side positions")
    assert (side.people, side.crews) == (0, [])


def test_releases_due_next_soonest_first_each_role_its_own(desk) -> None:
    _published_the_day_before()
    _check_in_all_but("r23", "r02")
    everything = _live("officer", 100)
    assert everything is not None
    ahead = [(x.request, x.phase) for x in everything.releases]
    assert ahead == [("r02", "post-match"), ("r23", "post-match")]  # in the order published
    assert all("(minute +107)" in x.at for x in everything.releases)  # 112 - 5
    assert {x.org for x in everything.releases} == {"BT Sport", "Play Sports (Belgium)"}
    bt = _live("bt", 100)
    assert bt is not None and [x.request for x in bt.releases] == ["r02"]  # its own only
    assert _live("docs", 100).releases == []
    # A crew that checks in is no longer due; once the time has passed, none is listed.
    m.Scan.objects.create(
        match=m.Match.objects.get(key=SEED), request="r02", zone="tunnel", phase="post-match",
        direction="in", result="admitted", text="in", scanned=_at(101), received=_at(101),
    )  # fmt: skip
    assert [x.request for x in _live("officer", 102).releases] == ["r23"]
    assert _live("officer", 108).releases == []


def test_open_offers_and_their_deadlines(desk) -> None:
    _check_in_all_but("r23")
    waitlist.do_match_day(SEED, _at(108))  # r23 released, its place offered to r24
    officer = _live("officer", 110)
    assert officer is not None
    assert [(o.request, o.until.endswith("(minute +138)")) for o in officer.offers] == [
        ("r24", True)
    ]
    assert [o.request for o in _live("docs", 110).offers] == ["r24"]  # its own
    assert _live("bt", 110).offers == []  # not another's
    waitlist.answer(_user("docs"), SEED, "r24", True, _at(111))
    assert _live("officer", 112).offers == []


def test_the_board_and_the_door_page_show_the_header_and_it_refreshes(desk) -> None:
    m.Match.objects.filter(key=SEED).update(kickoff=timezone.now() + timedelta(minutes=30))
    officer = _signed_in("officer")
    board = officer.get(f"/matches/{SEED}/").content.decode()
    assert 'id="live"' in board and "Inside now" in board and "Log an incident now" in board
    assert 'name="minute" value="-30"' in board or 'name="minute" value="-31"' in board
    assert f'hx-get="/matches/{SEED}/live/"' in board
    door = _signed_in("steward").get(f"/matches/{SEED}/door/").content.decode()
    assert 'id="live"' in door and "Due for release next" in door
    part = officer.get(f"/matches/{SEED}/live/")
    assert part.status_code == 200 and part.content.decode().lstrip().startswith("<section")
    media: Client = _signed_in("docs")
    shown = media.get(f"/matches/{SEED}/live/").content.decode()
    assert "Inside now" in shown and "Log an incident now" not in shown
    assert officer.get("/matches/no-such-match/live/").status_code == 404
    # Times on the board carry their date and the venue's time zone.
    kickoff = m.Match.objects.get(key=SEED).kickoff
    assert f"kick-off {kickoff:%a} {kickoff.day} {kickoff:%b %Y, %H:%M} UTC" in board


def test_an_incident_logged_from_the_header_carries_the_minute_filled_in(desk: Any) -> None:
    m.Match.objects.filter(key=SEED).update(kickoff=timezone.now() - timedelta(minutes=46.5))
    steward = _signed_in("steward")
    header = live.live_for(_user("steward"), SEED, timezone.now())
    assert header is not None and header.log_minute == "45+2"
    form = {"action": "incident", "once": "x1", "zone": "tunnel", "minute": header.log_minute}
    answer = steward.post(f"/matches/{SEED}/incidents/", form | {"what": "a scuffle"})
    assert answer.status_code in (200, 302), answer.content
    logged = m.Incident.objects.get(match__key=SEED, what="a scuffle")
    assert logged.minute == 46


def test_the_door_says_out_and_the_match_list_marks_the_match_day(desk) -> None:
    m.Match.objects.filter(key=SEED).update(kickoff=timezone.now() + timedelta(minutes=30))
    r25 = _passes(desk["docs"])["r25"]
    steward = _signed_in("steward")
    door = f"/matches/{SEED}/door/"
    form = {"zone": "pitch-side", "phase": "pre-match", "code": r25["typed"]}
    went_in = steward.post(door, form | {"direction": "in", "key": "k1"}).content.decode()
    assert '<p class="big">ADMITTED</p>' in went_in
    went_out = steward.post(door, form | {"direction": "out", "key": "k2"}).content.decode()
    assert '<p class="big">OUT</p>' in went_out and "ADMITTED" not in went_out
    # The page names the match with its day; its scans carry their date and time zone.
    kickoff = m.Match.objects.get(key=SEED).kickoff
    assert f"Manchester City, {kickoff:%a} {kickoff.day} {kickoff:%b %Y}" in went_out
    scanned = m.Scan.objects.filter(match__key=SEED).latest("id").scanned
    assert f"{scanned:%a} {scanned.day} {scanned:%b, %H:%M:%S} UTC" in went_out
    listed = _signed_in("officer").get("/").content.decode()
    assert "match day now" in listed
    # An incident logged ahead (its minute still to come): nobody is known present yet.
    desk["officer"].post(
        f"/api/matches/{SEED}/incidents", {"zone": "pitch-side", "minute": 125}, "application/json"
    )
    board = _signed_in("officer").get(f"/matches/{SEED}/").content.decode()
    assert "present at the doors: not known yet (this moment is still to come)" in board
