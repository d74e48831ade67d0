"""A scan a door made offline and sent after a no-show release of its crew's place (issue
26, section 3): judged against the pass as it was at its moment, it admits the crew, and
the release it shows was wrong is undone where the place still fits; where the place has
gone since, the scan is a conflict for the officer, and nothing is taken from the crew
holding it now. On the seed match: r23 (Play Sports, 2 in the tunnel after the match) is
released at minute 107, and its places are offered to r24 (the documentary)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from test_doors import SEED

from pitchpass.web.persistence import models as m
from pitchpass.web.services import doors, live, views, waitlist

pytestmark = pytest.mark.django_db


def _at(minute: float) -> Any:
    return m.Match.objects.get(key=SEED).kickoff + timedelta(minutes=minute)


def _user(name: str) -> User:
    return User.objects.get(username=name)


def _released_r23() -> None:
    """Every published crew but r23's went in before the doors opened; the worker at
    minute 108 released r23 (none of its crew in by 107) and offered r24 its place."""
    match = m.Match.objects.get(key=SEED)
    match.requests.filter(locked=True).update(granted_at=_at(-24 * 60))
    for row in match.requests.filter(locked=True).exclude(key="r23").select_related("zone"):
        m.Scan.objects.create(
            match=match, request=row.key, zone=row.zone.key, phase=row.phases[0], direction="in",
            result="admitted", text="in", scanned=_at(-130), received=_at(-130),
        )  # fmt: skip
    doors.offline_list(_user("steward"), SEED, "tunnel")  # the door's list, before it went off
    done = waitlist.do_match_day(SEED, _at(108))
    assert done.released == ["r23"] and done.promoted == ["r24"]


def _offline_scan(minute: float, sent: float) -> dict[str, Any]:
    code = m.Pass.objects.get(request__match__key=SEED, request__key="r23").code
    body = {"code": code, "zone": "tunnel", "phase": "post-match", "direction": "in",
            "scanned": _at(minute).isoformat(), "key": f"offline-{minute}"}  # fmt: skip
    return doors.do_check_in(_user("steward"), SEED, body, _at(sent))


def _r23() -> m.Request:
    return m.Request.objects.get(match__key=SEED, key="r23")


def test_a_scan_made_before_the_release_and_sent_after_gives_the_place_back(desk) -> None:
    _released_r23()
    waitlist.answer(_user("docs"), SEED, "r24", False, _at(108.5))  # the place is free
    answer = _offline_scan(106, sent=109)
    assert answer["result"] == "admitted", answer
    # The steward is told: the crew's place was released, and is its own again.
    assert "post-match place, released as a no-show at" in answer["text"]
    assert answer["text"].endswith("is given back (scanned offline before the release)")
    r23 = _r23()
    assert (r23.locked, r23.revoked, r23.released, r23.no_show) == (True, "", [], None)
    told = m.Notice.objects.filter(match__key=SEED, request="r23", kind="granted").last()
    assert told is not None and "given back" in told.text
    shown = desk["officer"].get(f"/api/matches/{SEED}/decisions").json()["decisions"]
    assert next(d for d in shown if d["request"] == "r23")["state"] == "granted"
    # Not a no-show at all: its organisation's count for the no-show bar is as before.
    assert not m.Request.objects.filter(by__key="play-sports", no_show__isnull=False).exists()


def test_where_the_place_has_gone_since_the_scan_is_a_conflict_for_the_officer(desk) -> None:
    _released_r23()
    waitlist.answer(_user("docs"), SEED, "r24", True, _at(108.5))  # r24 holds it now
    answer = _offline_scan(106, sent=109)
    assert (answer["result"], answer["reason"]) == ("refused", "conflict"), answer
    assert "place has gone since" in answer["text"]
    assert "tunnel, post-match: 46 of 46 places held by" in answer["text"]
    assert "r24" in answer["text"] and "locked" not in answer["text"]
    assert "r23)" not in answer["text"] and "r23," not in answer["text"]  # not its own
    r23 = _r23()
    assert not r23.locked and r23.revoked.startswith("no-show")  # the release stands
    assert m.Request.objects.get(match__key=SEED, key="r24").locked  # nothing taken back
    inside = doors.door(_user("steward"), SEED, "tunnel", "post-match")
    assert "r23" not in inside.crews  # not counted inside
    # The officer's match-day header lists it; BT's does not (not its crew to know of).
    match = m.Match.objects.get(key=SEED)
    seen = live.live_of(_user("officer"), match, _at(109))
    assert seen is not None and len(seen.conflicts) == 1
    assert "tunnel door" in seen.conflicts[0] and "place has gone since" in seen.conflicts[0]
    shown = render_to_string("pitchpass/_live.html", {"live": seen, "live_match": SEED})
    assert "Door conflicts for the officer" in shown and "place has gone since" in shown
    other = live.live_of(_user("bt"), match, _at(109))
    assert other is not None and other.on and other.conflicts == []


def test_a_conflicted_crew_reads_so_everywhere_and_its_organisation_is_told(desk) -> None:
    """The release stands, but the crew was no no-show: its reason says so on every view
    (not "no-show" alone), the bar does not count it, Play Sports is told once (its crew
    of 2 scanned twice), and the officer's board lists it after the doors closed."""
    _released_r23()
    waitlist.answer(_user("docs"), SEED, "r24", True, _at(108.5))
    assert _offline_scan(106, sent=109)["reason"] == "conflict"
    assert _offline_scan(106.2, sent=109.5)["reason"] == "conflict"  # the other of its crew
    r23 = _r23()
    assert not r23.locked and r23.no_show is None
    decided = desk["officer"].get(f"/api/matches/{SEED}/decisions").json()["decisions"]
    shown = next(d for d in decided if d["request"] == "r23")
    assert (shown["status"], shown["state"]) == ("revoked", "released")
    text = shown["reasons"][0]["text"]
    assert text.startswith("no-show: none of its crew had checked in by")
    assert "let in at" in text and "not a no-show, a conflict for the officer" in text
    assert "tunnel, post-match: 46 of 46 places held by" in text and "r24)" in text
    told = m.Notice.objects.filter(match__key=SEED, request="r23", kind="released")
    assert [n.organisation.key for n in told] == ["play-sports"]
    assert "a conflict for the officer" in told[0].text
    assert not m.Request.objects.filter(by__key="play-sports", no_show__isnull=False).exists()
    # The doors closed: the header is gone, the officer's board still lists the conflict.
    match = m.Match.objects.get(key=SEED)
    assert live.live_of(_user("officer"), match, _at(400)) is None
    page = views.board_of(_user("officer"), SEED, {}, _at(400))
    assert len(page.door_conflicts) == 2 and "place has gone since" in page.door_conflicts[0]
    assert views.board_of(_user("bt"), SEED, {}, _at(400)).door_conflicts == []


def test_a_scan_made_after_the_release_is_refused_as_before(desk) -> None:
    _released_r23()
    waitlist.answer(_user("docs"), SEED, "r24", False, _at(108.5))
    answer = _offline_scan(107.5, sent=109)
    assert (answer["result"], answer["reason"]) == ("refused", "revoked"), answer
    assert not _r23().locked
