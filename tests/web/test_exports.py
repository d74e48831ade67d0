"""Calendars and exports (issue 11, section 5) on the seed match, decided and published by
the home officer: the decisions as CSV (only the rows one may see; no cell a spreadsheet
would run) and the stewards' access list as a PDF made by the worker."""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client
from test_workflow_api import ROOT

from pitchpass.core.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import exports
from pitchpass.web.services.accounts import do_add_user, do_create_token

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
        do_add_user(name, role, org, PASSWORD)
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token(name)}")
    for step in ("decide", "publish"):
        answer = clients["officer"].post(f"/api/matches/{SEED}/{step}")
        assert answer.status_code == 200, answer.content
    return clients


def _signed_in(name: str, **options: Any) -> Client:
    client = Client(**options)
    assert client.login(username=name, password=PASSWORD)
    return client


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
    assert "decisions.csv" in media and "access.pdf" not in media
    steward = _signed_in("steward").get(f"/matches/{SEED}/").content.decode()
    assert "access.pdf" in steward and "decisions.csv" not in steward
    officer = _signed_in("officer").get(f"/matches/{SEED}/").content.decode()
    assert "access.pdf" in officer and "decisions.csv" in officer


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
