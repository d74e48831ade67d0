"""Passes and check-in at the zone doors through the API (issue 11, section 3), on the
seed match (kicked off long ago, so every door is open): who gets which passes, what a
door answers and why, every scan recorded, a resent scan answered once."""

from __future__ import annotations

import re
import zlib
from datetime import timedelta
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from pitchpass.web.persistence import models as m
from pitchpass.web.services import doors

pytestmark = pytest.mark.django_db

SEED = "mun-mci-2017-12-10"


@pytest.fixture(autouse=True)
def _in_pre_match(desk: Any) -> None:
    """The seed match moved so that the clock is in its pre-match phase (kick-off in 30
    minutes): a door lets a crew in only from 15 minutes before its phase to 15 minutes
    after it ends (core/match_day/doors.py), and these scans are sent now."""
    kickoff = timezone.now() + timedelta(minutes=30)
    m.Match.objects.filter(key=SEED).update(kickoff=kickoff)


def _passes(client: Client) -> Any:
    answer = client.get(f"/api/matches/{SEED}/passes")
    assert answer.status_code == 200, answer.content
    return {p["request"]: p for p in answer.json()["items"]}


def _scan(client: Client, code: str, zone: str, phase: str, direction: str = "in", **more: Any):
    body = {"code": code, "zone": zone, "phase": phase, "direction": direction, **more}
    return client.post(f"/api/matches/{SEED}/check-ins", body, "application/json")


def _verdict(client: Client, *args: Any, **more: Any) -> dict[str, Any]:
    answer = _scan(client, *args, **more)
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_each_organisation_gets_its_own_passes_and_the_host_officer_all(desk) -> None:
    mine = _passes(desk["docs"])
    assert set(mine) == {"r25"}  # r24 was refused: no pass
    r25 = mine["r25"]
    assert r25["zones"] == ["pitch-side"] and r25["phases"] == ["pre-match"] and r25["crew"] == 2
    assert r25["code"].startswith(r25["typed"].replace("-", "") + ":")  # signed
    assert "documentary" not in r25["code"].lower()  # no name in the code
    everything = _passes(desk["officer"])
    granted = set(
        m.Request.objects.filter(match__key=SEED, locked=True).values_list("key", flat=True)
    )
    assert set(everything) == granted and "r02" in everything
    assert set(_passes(desk["bt"])) == {
        k for k in granted if m.Request.objects.get(match__key=SEED, key=k).by.key == "bt-sport"
    }
    # The away club's officer sees its own club's passes only (City asked for none, and the
    # documentary is another organisation); a steward lists none.
    assert _passes(desk["away"]) == {}
    assert desk["steward"].get(f"/api/matches/{SEED}/passes").status_code == 403
    assert _passes(desk["docs"])["r25"]["code"] == r25["code"]  # made once, kept


def test_a_door_admits_the_crew_and_says_why_it_refuses(desk) -> None:
    steward = desk["steward"]
    r25 = _passes(desk["docs"])["r25"]
    code, typed = r25["code"], r25["typed"]
    first = _verdict(steward, code, "pitch-side", "pre-match")
    assert first["result"] == "admitted" and first["request"] == "r25"
    assert "1 of its 2" in first["text"]
    assert _verdict(steward, typed.lower(), "pitch-side", "pre-match")["result"] == "admitted"
    third = _verdict(steward, code, "pitch-side", "pre-match")
    assert (third["result"], third["reason"]) == ("refused", "crew-inside")
    wrong = _verdict(steward, code, "tunnel", "pre-match")
    assert wrong["reason"] == "wrong-zone" and "pitch-side, not tunnel" in wrong["text"]
    assert _verdict(steward, code, "pitch-side", "post-match")["reason"] == "wrong-phase"
    forged = code.rsplit(":", 1)[0] + ":" + "A" * 27
    assert _verdict(steward, forged, "pitch-side", "pre-match")["reason"] == "unknown"
    assert _verdict(steward, "NOPE-NOPE", "pitch-side", "pre-match")["reason"] == "unknown"
    out = _verdict(steward, code, "pitch-side", "pre-match", "out")
    assert out["result"] == "admitted" and "1 of its crew still inside" in out["text"]
    assert _verdict(steward, code, "pitch-side", "pre-match")["result"] == "admitted"
    # Every scan is recorded: who, where, when, with what result.
    scans = m.Scan.objects.filter(match__key=SEED).order_by("id")
    assert [s.result for s in scans] == [
        "admitted", "admitted", "refused", "refused", "refused", "refused", "refused",
        "admitted", "admitted",
    ]  # fmt: skip
    assert {s.username for s in scans} == {"steward"} and scans[2].reason == "crew-inside"
    door = doors.door(
        m.Profile.objects.get(user__username="steward").user, SEED, "pitch-side", "pre-match"
    )
    assert door.crews == {"r25": 2} and door.inside == 2 and door.capacity == 30


def test_a_revoked_grant_is_refused_at_the_door(desk) -> None:
    code = _passes(desk["bt"])["r02"]["code"]
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "no accreditation shown"},
        "application/json",
    )  # fmt: skip
    assert revoked.status_code == 200
    assert _passes(desk["bt"])["r02"]["revoked"] == "no accreditation shown"
    verdict = _verdict(desk["steward"], code, "tunnel", "post-match")
    assert verdict["reason"] == "revoked" and "no accreditation shown" in verdict["text"]


def test_a_resent_scan_is_answered_as_the_first_and_counted_once(desk) -> None:
    code = _passes(desk["docs"])["r25"]["code"]
    when = (timezone.now() - timedelta(minutes=3)).isoformat()
    first = _verdict(
        desk["steward"], code, "pitch-side", "pre-match", key="door-1-0001", scanned=when
    )
    again = _verdict(
        desk["steward"], code, "pitch-side", "pre-match", key="door-1-0001", scanned=when
    )
    assert first == again and first["result"] == "admitted"
    assert m.Scan.objects.filter(match__key=SEED).count() == 1
    stored = m.Scan.objects.get(key="door-1-0001")
    assert stored.scanned < stored.received  # made offline, sent later


def test_bad_scans_are_refused_in_the_error_shape(desk) -> None:
    code = _passes(desk["docs"])["r25"]["code"]
    cases = [
        ({"code": "X" * 101}, "code"),
        ({"direction": "sideways"}, "direction"),
        ({"zone": "car-park"}, "zone"),
        ({"phase": "extra-time"}, "phase"),
        ({"key": "k" * 65}, "key"),
        ({"scanned": "yesterday"}, "scanned"),
        ({"scanned": "2017-12-10T18:00:00"}, "scanned"),  # no timezone
        ({"scanned": (timezone.now() + timedelta(hours=1)).isoformat()}, "scanned"),
        ({"code": "a\x00b"}, "code"),
    ]
    for change, path in cases:
        body = {"code": code, "zone": "pitch-side", "phase": "pre-match", "direction": "in"}
        answer = desk["steward"].post(
            f"/api/matches/{SEED}/check-ins", body | change, "application/json"
        )
        assert answer.status_code == 400, (change, answer.content)
        assert answer.json()["path"].endswith(path), (change, answer.json())
    typed_wrong = desk["steward"].post(
        f"/api/matches/{SEED}/check-ins",
        {"code": 7, "zone": "pitch-side", "phase": "pre-match", "direction": "in"},
        "application/json",
    )
    assert typed_wrong.status_code == 400
    assert m.Scan.objects.count() == 0  # nothing recorded of a bad call
    # Media do not check passes; an unknown match is a 404 for everyone.
    assert _scan(desk["docs"], code, "pitch-side", "pre-match").status_code == 403
    assert (
        desk["steward"]
        .post(
            "/api/matches/no-such-match/check-ins",
            {"code": code, "zone": "pitch-side", "phase": "pre-match", "direction": "in"},
            "application/json",
        )
        .status_code
        == 404
    )


def _user(name: str) -> Any:
    from django.contrib.auth.models import User

    return User.objects.get(username=name)


def _signed_in(name: str) -> Client:
    client = Client()
    assert client.login(username=name, password="pw-for-tests-only-7")
    return client


def test_the_passes_page_shows_each_pass_with_its_qr_code(desk) -> None:
    page = _signed_in("docs").get(f"/matches/{SEED}/passes/").content.decode()
    r25 = _passes(desk["docs"])["r25"]
    assert r25["typed"] in page and page.count("<svg") == 1 and "crew of <strong>2" in page
    # What a printed pass says: the match, its kick-off, the zones by name, each phase's
    # times, each time with its date and the venue's time zone.
    kickoff = m.Match.objects.get(key=SEED).kickoff
    day = f"{kickoff:%a} {kickoff.day} {kickoff:%b %Y}"
    assert f"kick-off <strong>{day}, {kickoff:%H:%M} UTC</strong>" in page
    assert "Manchester United v Manchester City, Old Trafford" in unescape(page)
    assert r25["zone_names"] == ["Pitch-side positions"] and "Pitch-side positions" in page
    start = kickoff - timedelta(minutes=60)  # pre-match: -60 to 0
    begins = f"{start:%a} {start.day} {start:%b %Y}, {start:%H:%M} UTC"
    ends = (
        f"{day}, {kickoff:%H:%M} UTC" if start.date() != kickoff.date() else f"{kickoff:%H:%M} UTC"
    )
    assert r25["phase_times"] == [f"pre-match: {begins} to {ends}"]  # another day: its date
    assert r25["phase_times"][0] in page
    assert "r02" not in page and "BT Sport" not in page  # never another's pass
    board = _signed_in("docs").get(f"/matches/{SEED}/").content.decode()
    assert f"/matches/{SEED}/passes/" in board and "/door/" not in board  # media: no door
    steward = _signed_in("steward")
    assert "/passes/" not in steward.get(f"/matches/{SEED}/").content.decode()
    assert steward.get(f"/matches/{SEED}/passes/").status_code == 403
    assert _signed_in("docs").get("/matches/no-such-match/passes/").status_code == 404


def test_the_door_page_admits_refuses_and_counts(desk) -> None:
    r25 = _passes(desk["docs"])["r25"]
    steward = _signed_in("steward")
    door = f"/matches/{SEED}/door/"
    chooser = steward.get(door).content.decode()
    assert "Pitch-side positions" in chooser and "pre-match (now)" in chooser  # the clock
    opened = steward.get(door, {"zone": "pitch-side", "phase": "pre-match"}).content.decode()
    assert "0 of 30 inside" in opened
    form = {"zone": "pitch-side", "phase": "pre-match", "direction": "in", "key": "k1"}
    first = steward.post(door, form | {"code": r25["typed"]}).content.decode()
    assert "ADMITTED" in first and "1 of 30 inside" in first
    again = steward.post(door, form | {"code": r25["typed"]}).content.decode()  # a reload
    assert "ADMITTED" in again and "1 of 30 inside" in again  # counted once
    wrong = steward.post(door, form | {"key": "k2", "code": r25["typed"], "zone": "tunnel"})
    text = wrong.content.decode()
    assert "REFUSED" in text and "its pass is for pitch-side, not tunnel" in text
    bad = steward.post(door, form | {"key": "k3", "code": "x", "direction": "up"})
    # Checked by the API's own schema (http/schemas.CheckInIn), in its words.
    assert bad.status_code == 200 and "direction: Input should be 'in' or 'out'" in unescape(
        bad.content.decode()
    )
    assert not m.Scan.objects.filter(key="k3").exists()
    lost = steward.get(door, {"zone": "car-park"})
    assert lost.status_code == 400 and "no zone" in lost.content.decode()
    media = _signed_in("docs").get(door)
    assert media.status_code == 403


def test_the_door_keeps_a_list_for_offline_without_the_codes(desk) -> None:
    steward = _signed_in("steward")
    kept = steward.get(f"/matches/{SEED}/door/passes.json", {"zone": "pitch-side"}).json()
    passes = _passes(desk["officer"])
    pitch = {k for k, p in passes.items() if "pitch-side" in p["zones"]}
    assert {p["request"] for p in kept["passes"]} == pitch
    text = str(kept)
    assert all(p["typed"].replace("-", "") not in text for p in passes.values())
    code = passes["r25"]["typed"].replace("-", "")
    assert doors.digest(code, kept["key"]) in text
    again = steward.get(f"/matches/{SEED}/door/passes.json", {"zone": "pitch-side"}).json()
    assert again["key"] != kept["key"]  # a key per list: no two lists name a pass alike
    assert doors.digest(code, again["key"]) in str(again) and doors.digest(
        code, kept["key"]
    ) not in str(again)
    refused = _signed_in("docs").get(f"/matches/{SEED}/door/passes.json", {"zone": "tunnel"})
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"


def _pdf_text(pdf: bytes) -> bytes:
    """The PDF's page streams, inflated (fpdf2 compresses them)."""
    found = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            found.append(zlib.decompress(stream))
        except zlib.error:
            found.append(stream)
    return b"\n".join(found)


@pytest.mark.django_db(transaction=True)  # the worker closes its connection between tasks
def test_the_passes_pdf_is_made_by_the_worker_and_made_again_when_they_change(desk) -> None:
    from pitchpass.web.task_worker import run

    page = _signed_in("bt")
    first = page.get(f"/matches/{SEED}/passes.pdf")
    assert first.status_code == 202 and "being made" in first.content.decode()
    assert page.get(f"/matches/{SEED}/passes.pdf").status_code == 202  # queued once
    from django_tasks_db.models import DBTaskResult

    assert DBTaskResult.objects.filter(task_path__endswith="make_sheet").count() == 1
    run(batch=True)
    made = page.get(f"/matches/{SEED}/passes.pdf")
    assert made.status_code == 200 and made["Content-Type"] == "application/pdf"
    assert made.content.startswith(b"%PDF-")
    text = _pdf_text(made.content)
    codes = [p["typed"] for p in _passes(desk["bt"]).values()]
    assert codes and all(code.encode() in text for code in codes) and b"BT Sport" in text
    # A revoke changes the passes: the old sheet is not served, a new one is made.
    desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "gone"}, "application/json"
    )
    assert page.get(f"/matches/{SEED}/passes.pdf").status_code == 202
    run(batch=True)
    again = page.get(f"/matches/{SEED}/passes.pdf")
    assert again.status_code == 200 and again.content != made.content
    assert _signed_in("steward").get(f"/matches/{SEED}/passes.pdf").status_code == 403


def test_the_away_clubs_officer_works_none_of_the_home_clubs_doors(desk) -> None:
    """Issue 26, section 3: the check-in API, the door page and its offline list answer
    403 to the away club's officer; the home club's officer works them."""
    code = _passes(desk["docs"])["r25"]["code"]
    refused = _scan(desk["away"], code, "pitch-side", "pre-match")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    assert m.Scan.objects.count() == 0  # nothing recorded
    away = _signed_in("away")
    assert away.get(f"/matches/{SEED}/door/").status_code == 403
    listed = away.get(f"/matches/{SEED}/door/passes.json", {"zone": "pitch-side"})
    assert listed.status_code == 403 and "home club" in listed.json()["message"]
    assert _scan(desk["officer"], code, "pitch-side", "pre-match").status_code == 200


def test_backdated_scans_never_admit_more_of_a_crew_than_the_crew(desk) -> None:
    """A crew of 2 scanned in its crew plus three times, the later ones sent with ever
    earlier `scanned` times (a door that was offline): at most 2 are ever admitted, and
    the zone never counts more of it than 2 at any moment."""
    code = _passes(desk["docs"])["r25"]["code"]
    now = timezone.now()
    admitted = 0
    for n in range(5):  # 2 + 3: each one scanned a minute before the one before
        when = (now - timedelta(minutes=n + 1)).isoformat()
        verdict = _verdict(desk["steward"], code, "pitch-side", "pre-match", scanned=when)
        admitted += verdict["result"] == "admitted"
    assert admitted == 2
    stored = m.Scan.objects.filter(request="r25", result="admitted")
    scans = [
        doors.core.Scan("r25", "pitch-side", s.direction, (s.scanned - now).total_seconds() / 60)
        for s in stored
    ]
    counts = [doors.core.inside(scans, "pitch-side", x.minute).get("r25", 0) for x in scans]
    assert max(counts) <= 2


def test_a_steward_works_only_the_doors_of_the_venues_assigned(desk) -> None:
    """A steward no league admin assigned to Old Trafford gets 403 at its doors (the
    check-in API, the door page, its offline list); assigned, it works them."""
    from pitchpass.web.errors import ServiceError
    from pitchpass.web.services.accounts import do_add_user

    code = _passes(desk["docs"])["r25"]["code"]
    do_add_user("elsewhere", "steward", None, "pw-for-tests-only-7")
    other = _signed_in("elsewhere")
    refused = other.post(
        f"/api/matches/{SEED}/check-ins",
        {"code": code, "zone": "pitch-side", "phase": "pre-match", "direction": "in"},
        "application/json",
    )
    assert refused.status_code == 403 and "assigned" in refused.json()["message"]
    assert other.get(f"/matches/{SEED}/door/").status_code == 403
    assert other.get(f"/matches/{SEED}/door/passes.json", {"zone": "tunnel"}).status_code == 403
    with pytest.raises(ServiceError) as wrong:
        do_add_user("nowhere", "steward", None, "pw-for-tests-only-7", venues=["wembley"])
    assert wrong.value.code == "not-found"
    with pytest.raises(ServiceError) as not_a_steward:
        do_add_user("bt2", "media", "bt-sport", "pw-for-tests-only-7", venues=["old-trafford"])
    assert not_a_steward.value.code == "invalid"
    m.Profile.objects.get(user__username="elsewhere").venues.set(m.Venue.objects.all())
    assert other.get(f"/matches/{SEED}/door/").status_code == 200


def test_a_door_checks_the_phase_against_the_clock(desk) -> None:
    """Pre-match is -60 to 0: its door opens at -75 and lets crews in until +15; a scan
    sent with an earlier or a later `scanned` time is refused, with its reason."""
    code = _passes(desk["docs"])["r25"]["code"]
    kickoff = m.Match.objects.get(key=SEED).kickoff
    steward = desk["steward"]

    def at(minute: float) -> dict[str, Any]:
        when = (kickoff + timedelta(minutes=minute)).isoformat()
        return _verdict(steward, code, "pitch-side", "pre-match", scanned=when)

    assert at(-80)["reason"] == "not-yet-open"
    late = _verdict(steward, code, "pitch-side", "pre-match", "in")  # now: minute -30
    assert late["result"] == "admitted"
    m.Match.objects.filter(key=SEED).update(kickoff=timezone.now() - timedelta(minutes=16))
    over = _verdict(steward, code, "pitch-side", "pre-match")
    assert over["reason"] == "phase-over" and "closed at minute 15" in over["text"]


def test_a_scan_key_names_one_scan(desk) -> None:
    passes = _passes(desk["officer"])
    first = _verdict(desk["steward"], passes["r25"]["code"], "pitch-side", "pre-match", key="d-1")
    assert first["result"] == "admitted"
    other = _scan(desk["steward"], passes["r27"]["code"], "pitch-side", "pre-match", key="d-1")
    assert other.status_code == 409 and other.json()["path"] == "key"
    assert "r25" not in other.content.decode()  # the first scan's answer is not told
    same = _verdict(desk["steward"], passes["r25"]["code"], "pitch-side", "pre-match", key="d-1")
    assert same == first


def test_two_doors_that_let_a_crew_in_offline_are_a_conflict_not_extra_people(desk) -> None:
    """A crew of 2 let in at the pitch-side door online, twice; a third door without its
    connection let one more in earlier and sends it now: recorded as a conflict (the
    officer reads it), and the zone still counts 2 of the crew."""
    code = _passes(desk["docs"])["r25"]["code"]
    for _ in range(2):
        assert _verdict(desk["steward"], code, "pitch-side", "pre-match")["result"] == "admitted"
    earlier = (timezone.now() - timedelta(minutes=1)).isoformat()
    late = _verdict(desk["steward"], code, "pitch-side", "pre-match", scanned=earlier)
    assert late["reason"] == "conflict" and "conflict for the officer" in late["text"]
    assert doors.door(_user("steward"), SEED, "pitch-side", "pre-match").crews == {"r25": 2}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_counts_kept_with_the_scans_are_the_cores_count(desk, seed: int) -> None:
    """Who is inside is kept with each scan (a scan reads the newest, not the history):
    after random scans in and out of three crews, some sent later with earlier times (an
    offline door), every scan's counts are what the core counts replaying them all, and
    no moment has more of a crew inside than its crew."""
    import random

    chance = random.Random(seed)
    passes = _passes(desk["officer"])
    crews = {k: passes[k] for k in ("r25", "r27", "r28")}  # pitch-side
    now = timezone.now()
    for _ in range(30):
        key = chance.choice(sorted(crews))
        body: dict[str, Any] = {"direction": chance.choice(["in", "in", "out"])}
        if chance.random() < 0.3:
            body["scanned"] = (now - timedelta(minutes=chance.randint(1, 20))).isoformat()
        answer = _scan(desk["steward"], crews[key]["code"], "pitch-side", "pre-match", **body)
        assert answer.status_code == 200, answer.content
    rows = list(m.Scan.objects.filter(zone="pitch-side").order_by("scanned", "id"))
    replay = [
        doors.core.Scan(r.request, "pitch-side", r.direction, 0.0, r.result == "admitted")
        for r in rows
    ]
    assert [(r.crew_inside, r.zone_inside) for r in rows] == doors.core.counted(replay, {})
    for r in rows:
        assert r.crew_inside <= crews[r.request]["crew"], (r.request, r.scanned)


@pytest.mark.parametrize("bad", ["\x00", "\ud800"])
def test_a_nul_or_a_lone_surrogate_at_the_door_or_in_a_what_if_is_a_400(desk, bad: str) -> None:
    """Issue 26, section 8 (a 500 on PostgreSQL before): in a what-if body, and in the
    door's and its list's query strings, answered in the error shape."""
    officer = desk["officer"]
    for body in ({"grant": [f"r0{bad}"]}, {"capacity": {f"tunnel{bad}@post-match": 3}}):
        answer = officer.post(f"/api/matches/{SEED}/what-if", body, "application/json")
        assert answer.status_code == 400, answer.content
        assert answer.json()["code"] == "invalid"
    steward = _signed_in("steward")
    sent = {"\x00": "%00", "\ud800": "%ED%A0%80"}[bad]  # as a browser sends it, encoded
    listed = steward.get(f"/matches/{SEED}/door/passes.json?zone=tunnel{sent}")
    assert listed.status_code == 400 and listed.json()["code"] == "invalid"
    page = steward.get(f"/matches/{SEED}/door/?zone=tunnel{sent}&phase=pre-match")
    assert page.status_code == 400


def test_a_grant_taken_back_before_its_pass_was_listed_has_a_pass_that_says_so(desk) -> None:
    """r02 revoked before anyone listed the passes: its pass is there all the same (made at
    the publish), taken back, as for a grant whose pass was listed first (and a
    no-show's)."""
    assert m.Pass.objects.filter(request__match__key=SEED, request__key="r02").exists()
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "no accreditation shown"},
        "application/json",
    )  # fmt: skip
    assert revoked.status_code == 200
    assert _passes(desk["bt"])["r02"]["revoked"] == "no accreditation shown"
    assert _passes(desk["officer"])["r02"]["revoked"] == "no accreditation shown"


def test_a_stale_form_is_told_on_the_apps_own_page(desk) -> None:
    """A door form (or its script's JSON) sent without a valid CSRF token, as from a tab
    left open across a sign-in, gets the app's page or the error shape, not Django's."""
    steward = Client(enforce_csrf_checks=True)
    assert steward.login(username="steward", password="pw-for-tests-only-7")
    form = {"zone": "pitch-side", "phase": "pre-match", "direction": "in", "code": "x"}
    page = steward.post(f"/matches/{SEED}/door/", form)
    assert page.status_code == 403 and "reload the page and send it again" in page.content.decode()
    assert "CSRF verification failed" not in page.content.decode()
    sent = steward.post(f"/matches/{SEED}/door/check-ins", form, "application/json")
    assert sent.status_code == 403 and sent.json()["code"] == "forbidden"
    assert not m.Scan.objects.exists()


def test_the_door_link_is_shown_only_to_those_who_work_the_doors(desk) -> None:
    away = _signed_in("away").get(f"/matches/{SEED}/").content.decode()
    home = _signed_in("officer").get(f"/matches/{SEED}/").content.decode()
    assert "Door check-in" not in away and "Door check-in" in home
