"""The price of deciding match by match on the season page (issue 27, section 4): asked
from the page, worked out by the worker (core.hindsight, as `pitchpass season
--hindsight`), shown with what differs; said to be older than the season once the season
changes; league admins only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from test_season_page import EXAMPLE, document

from pitchpass.core import load_document
from pitchpass.core.season.hindsight import compared, hindsight
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.fixtures_store import season_document
from pitchpass.web.services.accounts import do_add_user
from pitchpass.web.task_worker import run

# Committed for real: the worker run here closes its database connection between tasks.
pytestmark = pytest.mark.django_db(transaction=True)
PAGE = "/competitions/mini-league/season/"
ASK = "/competitions/mini-league/hindsight/"


def _page(name: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=name))
    return client


def test_hindsight_is_asked_from_the_page_and_worked_out_by_the_worker() -> None:
    assert EXAMPLE.exists()
    store.load(document())
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    do_add_user("sky", "media", "sky-sports", "pw-for-tests-only-7")
    admin = _page("admin")
    before = admin.get(PAGE).content.decode()
    assert "The price of deciding match by match" in before and ">Work it out</button>" in before
    asked = admin.post(ASK, follow=True).content.decode()
    assert "The worker is working out the price of deciding match by match" in asked
    assert "The worker is at it" in asked and "Work it out</button>" not in asked
    assert "It is being worked out already" in admin.post(ASK, follow=True).content.decode()
    assert _page("sky").post(ASK).status_code == 403  # league admins only, as the page
    run(batch=True)
    done = admin.get(PAGE).content.decode()
    competition = m.Competition.objects.get(key="mini-league")
    scenario = load_document(season_document(competition))
    expected = compared(scenario, hindsight(scenario))  # as `pitchpass season --hindsight`
    assert competition.hindsight.result == expected
    said = (
        f"<strong>{expected['granted']['match_by_match']}</strong> requests granted match by"
        f" match, <strong>{expected['granted']['hindsight']}</strong> with hindsight."
    )
    assert said in done and "The worker is at it" not in done and "Work it out" not in done
    row = m.Hindsight.objects.get()
    assert (row.matches_done, row.matches) == (4, 4)
    # The season changes: the result stands, said to be older, and can be asked again.
    late = document()
    next(r for r in late["requests"] if r["id"] == "p3")["submitted"] = "2026-08-28T10:00:00+01:00"
    store.load(late)
    changed = admin.get(PAGE).content.decode()
    assert said in changed and "before the season's latest changes" in changed
    assert "Work it out again</button>" in changed


def test_the_api_asks_and_reads_hindsight_as_the_page_does() -> None:
    from pitchpass.web.services.accounts import do_create_token

    store.load(document())
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    do_add_user("sky", "media", "sky-sports", "pw-for-tests-only-7")
    admin = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token('admin')}")
    sky = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token('sky')}")
    url = "/api/competitions/mini-league/hindsight"
    assert admin.get(url).json() == {
        "result": None, "current": False, "working": False, "matches_done": 0, "matches": 0,
        "failed": "", "made": "",
    }  # fmt: skip
    assert sky.get(url).status_code == 403 and sky.post(url).status_code == 403
    assert admin.get("/api/competitions/no-such/hindsight").status_code == 404
    first = admin.post(url)
    assert first.status_code == 202 and first.json() == {"asked": True}
    assert admin.post(url).json() == {"asked": False}  # queued once
    assert admin.get(url).json()["working"] is True
    run(batch=True)
    found = admin.get(url).json()
    assert found["current"] and not found["working"] and found["result"]["granted"]
    assert found["result"] == m.Hindsight.objects.get().result
    assert admin.post(url).json() == {"asked": False}  # made for the data as it is
