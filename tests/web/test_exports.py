"""Calendars and exports (issue 11, section 5) on the seed match, decided and published by
the home officer: an organisation's calendar feed and a user's own behind secret
addresses (parsed with icalendar: one event per grant and phase, at the phase's times;
a revoked grant cancelled under the same UID; a new address kills the old one; only a
digest kept), the decisions as CSV (only the rows one may see; no cell a spreadsheet
would run) and the stewards' access list as a PDF made by the worker."""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from icalendar import Calendar
from test_workflow_api import ROOT

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import exports
from pitchpass.web.services.accounts import do_add_user, do_create_token, do_deactivate

pytestmark = pytest.mark.django_db

SEED = "mun-mci-2017-12-10"
KICKOFF = datetime(2017, 12, 10, 16, 30, tzinfo=UTC)
PASSWORD = "pw-for-tests-only-7"


@pytest.fixture
def desk() -> dict[str, Client]:
    """API clients by name, the seed match decided and published."""
    path = ROOT / "scenarios" / "manchester-derby-2017.yaml"
    store.load(parse_text(path.read_text(), str(path)))
    users = {
        "officer": ("officer", "man-united"),
        "away": ("officer", "man-city"),
        "docs": ("media", "man-city-documentary"),
        "bt": ("media", "bt-sport"),
        "bt2": ("media", "bt-sport"),
        "sky": ("media", "sky-sports"),
        "steward": ("steward", None),
    }
    clients = {}
    for name, (role, org) in users.items():
        venues = ["old-trafford"] if role == "steward" else None  # its doors, its lists
        do_add_user(name, role, org, PASSWORD, venues=venues)
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token(name)}")
    for step in ("decide", "publish"):
        answer = clients["officer"].post(f"/api/matches/{SEED}/{step}")
        assert answer.status_code == 200, answer.content
    return clients


def _signed_in(name: str, **options: Any) -> Client:
    client = Client(**options)
    assert client.login(username=name, password=PASSWORD)
    return client


def _new_feed(name: str, which: str) -> str:
    """The path of a feed made anew on the calendar page, as it shows it (this once)."""
    page = _signed_in(name).post("/calendar/", {"feed": which})
    assert page.status_code == 200, page.content
    assert page["Cache-Control"] == "no-store"
    title = "Your own address" if which == exports.MINE else "grants (shared by its users)"
    assert title in page.content.decode().split("shown this once")[0]
    found = re.search(
        r'value="(http://testserver/feeds/[A-Za-z0-9_-]{43}\.ics)"', page.content.decode()
    )
    assert found, page.content.decode()
    return urlsplit(found.group(1)).path


def _calendar(path: str) -> Calendar:
    answer = Client().get(path)  # nobody signed in: the address is the key
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "text/calendar; charset=utf-8"
    return Calendar.from_ical(answer.content)


def _events(path: str) -> dict[str, Any]:
    return {str(e.uid): e for e in _calendar(path).events}


def _granted(org: str) -> set[str]:
    rows = m.Request.objects.filter(match__key=SEED, by__key=org, locked=True)
    return set(rows.values_list("key", flat=True))


def test_an_organisations_feed_has_an_event_per_grant_and_phase_at_its_times(desk) -> None:
    feed = _new_feed("bt", exports.ORGANISATION)
    events = _events(feed)
    assert _granted("bt-sport") == {"r02", "r36"}
    assert set(events) == {f"{SEED}/r02/post-match@pitchpass", f"{SEED}/r36/post-match@pitchpass"}
    tunnel = events[f"{SEED}/r02/post-match@pitchpass"]
    # post-match is minutes 112 to 180 of the default plan: 18:22 to 19:30 UTC.
    assert tunnel.start == datetime(2017, 12, 10, 18, 22, tzinfo=UTC)
    assert tunnel.end == datetime(2017, 12, 10, 19, 30, tzinfo=UTC)
    assert (
        str(tunnel["SUMMARY"]) == "Manchester United v Manchester City: Players' tunnel, post-match"
    )
    assert str(tunnel["LOCATION"]) == "Old Trafford" and str(tunnel["STATUS"]) == "CONFIRMED"
    assert "crew of 2" in str(tunnel["DESCRIPTION"])
    # The same grants, the same UIDs at every fetch; another member reads the same feed.
    assert set(_events(feed)) == set(events)
    assert _signed_in("bt2").get("/calendar/").content.decode().count("Its address was made") == 1


def test_a_request_of_several_phases_is_an_event_for_each(
    desk, django_assert_max_num_queries
) -> None:
    feed = _new_feed("sky", exports.MINE)
    with django_assert_max_num_queries(3):  # the feed, its grants, each competition's phases
        events = _events(feed)
    r01 = {k: e for k, e in events.items() if "/r01/" in k}
    assert set(r01) == {f"{SEED}/r01/arrival@pitchpass", f"{SEED}/r01/post-match@pitchpass"}
    arrival = r01[f"{SEED}/r01/arrival@pitchpass"]  # minutes -120 to -60
    assert (arrival.start, arrival.end) == (
        datetime(2017, 12, 10, 14, 30, tzinfo=UTC),
        datetime(2017, 12, 10, 15, 30, tzinfo=UTC),
    )
    keys = {k.split("/")[1] for k in events}
    assert keys == _granted("sky-sports")


def test_no_feed_shows_another_organisations_grants(desk) -> None:
    mine = _events(_new_feed("docs", exports.MINE))
    assert {k.split("/")[1] for k in mine} == {"r25"}  # r24 was refused: not in it
    text = Client().get(_new_feed("docs", exports.ORGANISATION)).content.decode()
    others = m.Request.objects.filter(match__key=SEED).exclude(by__key="man-city-documentary")
    assert all(f"/{r.key}/" not in text for r in others)
    assert "BT Sport" not in text and "Sky Sports" not in text


def test_a_revoked_grant_is_cancelled_under_the_same_uid(desk) -> None:
    feed = _new_feed("bt", exports.ORGANISATION)
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "no accreditation shown"},
        "application/json",
    )  # fmt: skip
    assert revoked.status_code == 200
    events = _events(feed)
    r02, r36 = (events[f"{SEED}/{k}/post-match@pitchpass"] for k in ("r02", "r36"))
    assert str(r02["STATUS"]) == "CANCELLED" and r02["SEQUENCE"] == 1
    assert "no accreditation shown" in str(r02["DESCRIPTION"])
    assert str(r36["STATUS"]) == "CONFIRMED" and r36["SEQUENCE"] == 0


def test_a_new_address_kills_the_old_and_only_a_digest_is_kept(desk) -> None:
    old = _new_feed("bt", exports.ORGANISATION)
    own = _new_feed("bt", exports.MINE)
    new = _new_feed("bt2", exports.ORGANISATION)  # any member may make it anew
    assert new != old
    gone = Client().get(old)
    assert gone.status_code == 404 and gone.json()["code"] == "not-found"
    assert set(gone.json()) == {"code", "message", "path"}
    assert _events(new) and _events(own)  # the user's own address is another: it stays
    # A copy of the database opens no feed: neither the secrets nor the paths are in it.
    secrets = [p.rsplit("/", 1)[1].removesuffix(".ics") for p in (old, own, new)]
    kept = str(list(m.CalendarFeed.objects.values())) + str(
        list(m.AuditEntry.objects.values("target", "before", "after"))
    )
    assert all(s not in kept for s in secrets)
    assert m.AuditEntry.objects.filter(action="feed-rotate").count() == 3
    # A user's own feed ends with the account.
    do_deactivate("bt")
    assert Client().get(own).status_code == 404
    assert Client().get(new).status_code == 200


@pytest.mark.parametrize(
    "secret",
    ["x", "A" * 43, "A" * 44, "A" * 5000, "..", "A" * 42 + "%21", "%E2%80%AE" + "A" * 40],
)
def test_a_bad_or_unknown_secret_is_the_same_404(desk, secret: str) -> None:
    answer = Client().get(f"/feeds/{secret}.ics")
    assert answer.status_code == 404
    assert answer.json()["code"] == "not-found"


def test_a_feed_is_only_read(desk) -> None:
    feed = _new_feed("bt", exports.ORGANISATION)
    answer = Client(enforce_csrf_checks=True).post(feed)
    assert answer.status_code == 405 and answer["Allow"] == "GET, HEAD"
    assert answer.json()["code"] == "method-not-allowed"


def test_only_media_users_make_feeds_and_only_with_csrf(desk) -> None:
    for name in ("officer", "steward"):
        assert _signed_in(name).get("/calendar/").status_code == 403
        assert _signed_in(name).post("/calendar/", {"feed": "mine"}).status_code == 403
    assert Client().get("/calendar/").status_code == 302  # to sign in
    bad = _signed_in("bt").post("/calendar/", {"feed": "everyone's"})
    assert bad.status_code == 400
    strict = _signed_in("bt", enforce_csrf_checks=True)
    assert strict.post("/calendar/", {"feed": "mine"}).status_code == 403
    assert not m.CalendarFeed.objects.exists()
    page = _signed_in("bt").get("/calendar/").content.decode()
    assert "No address yet" in page and "/feeds/" not in page


def _csv(client: Client, match: str = SEED) -> list[dict[str, str]]:
    answer = client.get(f"/matches/{match}/decisions.csv")
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="decisions-{match}.csv"'
    return list(csv.DictReader(io.StringIO(answer.content.decode())))


def test_the_csv_holds_the_rows_the_board_shows_and_no_others(desk) -> None:
    everything = _csv(_signed_in("officer"))
    assert len(everything) == 37 and everything[0]["request"] == "r01"
    r24 = next(r for r in everything if r["request"] == "r24")
    assert r24["status"] == "refused" and "46 of 46 places taken" in r24["reasons"]
    assert r24["phases"] == "pre-match post-match" and r24["published"] == "no"
    docs = _csv(_signed_in("docs"))
    assert {r["request"] for r in docs} == {"r24", "r25"}
    assert {r["organisation"] for r in docs} == {
        "Manchester City documentary crew (for Amazon Prime Video)"
    }
    bt = _csv(_signed_in("bt"))
    assert {r["request"] for r in bt} == {
        r.key for r in m.Request.objects.filter(by__key="bt-sport")
    }
    assert all(r["status"] == "granted" and r["published"] == "yes" for r in bt)
    # The away club's officer: those in its club's dressing room (the board's rule).
    away = {r["request"] for r in _csv(_signed_in("away"))}
    assert away == {"r24"}
    assert _signed_in("steward").get(f"/matches/{SEED}/decisions.csv").status_code == 403
    assert _signed_in("bt").get("/matches/no-such-match/decisions.csv").status_code == 404
    assert Client().get(f"/matches/{SEED}/decisions.csv").status_code == 302


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("BT Sport", "BT Sport"),
        ("a=b", "a=b"),
        (2, "2"),
    ],
)
def test_a_cell_a_spreadsheet_would_run_gets_an_apostrophe(value: object, cell: str) -> None:
    assert exports.csv_cell(value) == cell


def test_the_csv_runs_no_formula_typed_into_a_name_or_a_reason(desk) -> None:
    m.Organisation.objects.filter(key="bt-sport").update(name='=HYPERLINK("http://evil")')
    revoked = desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "@SUM(1+1)"}, "application/json"
    )
    assert revoked.status_code == 200
    rows = {r["request"]: r for r in _csv(_signed_in("officer"))}
    assert rows["r02"]["organisation"] == '\'=HYPERLINK("http://evil")'
    assert rows["r02"]["status"] == "revoked" and rows["r02"]["reasons"] == "'@SUM(1+1)"


def test_the_board_links_each_role_to_what_it_may_use(desk) -> None:
    media = _signed_in("bt").get(f"/matches/{SEED}/").content.decode()
    assert "/calendar/" in media and "decisions.csv" in media and "access.pdf" not in media
    steward = _signed_in("steward").get(f"/matches/{SEED}/").content.decode()
    assert (
        "access.pdf" in steward and "decisions.csv" not in steward and "/calendar/" not in steward
    )
    officer = _signed_in("officer").get(f"/matches/{SEED}/").content.decode()
    assert "access.pdf" in officer and "decisions.csv" in officer and "/calendar/" not in officer
    do_add_user("elsewhere", "steward", None, PASSWORD)  # assigned to no venue: no list
    other = _signed_in("elsewhere").get(f"/matches/{SEED}/").content.decode()
    assert "access.pdf" not in other
    assert _signed_in("elsewhere").get(f"/matches/{SEED}/access.pdf").status_code == 403
    assert "/calendar/" in _signed_in("bt").get(f"/matches/{SEED}/passes/").content.decode()


def _pdf_text(pdf: bytes, tmp_path: Any) -> str:
    path = tmp_path / "access.pdf"
    path.write_bytes(pdf)
    done = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
@pytest.mark.django_db(transaction=True)  # the worker closes its connection between tasks
def test_the_access_list_pdf_is_made_by_the_worker_per_zone_and_phase(desk, tmp_path) -> None:
    from django_tasks_db.models import DBTaskResult

    from pitchpass.web.task_worker import run

    steward = _signed_in("steward")
    address = f"/matches/{SEED}/access.pdf"
    first = steward.get(address)
    assert first.status_code == 202 and "being made" in first.content.decode()
    assert steward.get(address).status_code == 202  # queued once
    assert DBTaskResult.objects.filter(task_path__endswith="make_sheet").count() == 1
    run(batch=True)
    made = steward.get(address)
    assert made.status_code == 200 and made["Content-Type"] == "application/pdf"
    text = _pdf_text(made.content, tmp_path)
    assert "Players' tunnel (tunnel), post-match" in text
    assert "Pitch-side positions (pitch-side), pre-match" in text
    tunnel = text.split("Players' tunnel (tunnel), post-match")[1].split("Home dressing room")[0]
    passes = {p.request.key: p.code for p in m.Pass.objects.filter(request__match__key=SEED)}
    assert "r02" in tunnel and "BT Sport" in tunnel and passes["r02"][-4:] in tunnel
    assert "r25" not in tunnel and "r26" not in tunnel  # pitch-side; the tunnel pre-match
    assert "r26" in text.split("Players' tunnel (tunnel), pre-match")[1].split("post-match")[0]
    assert "passing through to home-dressing-room" in text
    assert all(code not in text for code in passes.values())  # never a whole code
    assert all(f"{code[:5]}-{code[5:]}" not in text for code in passes.values())
    # The officer and admins may print it; media and the away club may not.
    assert _signed_in("officer").get(address).status_code == 200  # the same sheet
    assert _signed_in("bt").get(address).status_code == 403
    assert _signed_in("away").get(address).status_code == 403
    assert _signed_in("steward").get("/matches/no-such-match/access.pdf").status_code == 404
    # A revoke changes the list: made again, the pass listed as one to refuse.
    desk["officer"].post(
        f"/api/matches/{SEED}/requests/r02/revoke", {"reason": "gone"}, "application/json"
    )
    assert steward.get(address).status_code == 202
    run(batch=True)
    again = _pdf_text(steward.get(address).content, tmp_path)
    refuse = again.split("Taken back: refuse these passes")[1]
    assert "r02" in refuse and "gone" in refuse
    assert (
        "r02" not in again.split("Players' tunnel (tunnel), post-match")[1].split("Taken back")[0]
    )
    # The passes' own sheet is another: a steward's list never stands in for it.
    assert _signed_in("bt").get(f"/matches/{SEED}/passes.pdf").status_code == 202


def test_a_user_of_no_role_gets_no_feed(desk) -> None:
    User.objects.create_user("nobody", password=PASSWORD)
    assert _signed_in("nobody").get("/calendar/").status_code == 403


def test_an_admin_lists_feeds_without_secrets_and_closes_one(desk) -> None:
    feed = _new_feed("bt", exports.ORGANISATION)
    do_add_user("league", "admin", None, PASSWORD)
    admin = _signed_in("league")
    listed = admin.get("/admin/pitchpass/calendarfeed/")
    assert listed.status_code == 200 and "BT Sport" in listed.content.decode()
    row = m.CalendarFeed.objects.get()
    one = admin.get(f"/admin/pitchpass/calendarfeed/{row.pk}/change/").content.decode()
    assert row.digest not in one
    assert (
        admin.post(f"/admin/pitchpass/calendarfeed/{row.pk}/delete/", {"post": "yes"}).status_code
        == 302
    )
    assert Client().get(feed).status_code == 404


def test_a_phase_released_as_a_no_show_is_cancelled_in_the_feed(desk) -> None:
    """Issue 26, section 2: a grant that lost one phase keeps the others in the calendar,
    and the released one reads CANCELLED (its crew sees the place is gone)."""
    feed = _new_feed("sky", exports.MINE)
    m.Request.objects.filter(match__key=SEED, key="r01").update(released=["arrival"])
    r01 = {k.split("/")[2]: e for k, e in _events(feed).items() if "/r01/" in k}
    assert str(r01["arrival@pitchpass"]["STATUS"]) == "CANCELLED"
    assert str(r01["post-match@pitchpass"]["STATUS"]) == "CONFIRMED"


def test_a_feeds_secret_is_never_logged(desk) -> None:
    """A feed's address is its secret: the record of each call says `[secret]` (the
    address of a feed that opens nothing, an old or a wrong one, may stay in Django's
    record of its 404)."""
    import json
    import logging

    from pitchpass.web.logs import formatter

    path = _new_feed("bt", exports.ORGANISATION)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter())
    logging.getLogger().addHandler(handler)
    try:
        assert Client().get(path).status_code == 200
    finally:
        logging.getLogger().removeHandler(handler)
    secret = path.removeprefix("/feeds/").removesuffix(".ics")
    assert secret not in out.getvalue()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["path"] for r in records if r["event"] == "answered"] == ["/feeds/[secret].ics"]
