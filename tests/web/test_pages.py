"""The pages, through Django's test client (a real browser comes with the next step)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions
from pitchpass.web.services.accounts import do_add_user

ROOT = Path(__file__).resolve().parents[2]
MATCH = "mun-mci-2017-12-10"
pytestmark = pytest.mark.django_db


@pytest.fixture
def clients() -> dict[str, Client]:
    path = ROOT / "scenarios" / "manchester-derby-2017.yaml"
    store.load(parse_text(path.read_text(), path.name))
    made = {}
    for name, role, org in [
        ("officer", "officer", "man-united"),
        ("docs", "media", "man-city-documentary"),
        ("steward", "steward", None),
        ("other", "officer", "man-city"),
    ]:
        do_add_user(name, role, org, "pw-for-tests-only-7")
        client = Client()
        assert client.login(username=name, password="pw-for-tests-only-7")
        made[name] = client
    return made


def test_pages_need_a_sign_in() -> None:
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert "Sign in" in Client().get("/login/").content.decode()


def test_wrong_password_keeps_the_username(clients) -> None:
    page = Client().post("/login/", {"username": "docs", "password": "nope"}).content.decode()
    assert "Wrong username or password" in page and 'value="docs"' in page


def test_match_list_shows_fullness_and_waiting(clients) -> None:
    before = clients["officer"].get("/").content.decode()
    assert "Manchester United v Manchester City" in before and "not decided yet" in before
    decisions.do_decide(_user("officer"), MATCH)
    after = clients["officer"].get("/").content.decode()
    assert "tunnel, post-match: 46 of 46" in after


def test_board_shows_grid_refusal_and_the_uncaught_incident(clients) -> None:
    decisions.do_decide(_user("officer"), MATCH)
    page = clients["officer"].get(f"/matches/{MATCH}/").content.decode()
    assert "46/46" in page and 'class="bar full"' in page
    assert "tunnel, post-match: 46 of 46 places taken by 1 host crew and 22 partner crews" in page
    assert "not caught on camera" in page and "caught by r27" in page


def test_media_see_their_own_requests_only(clients) -> None:
    decisions.do_decide(_user("officer"), MATCH)
    page = clients["docs"].get(f"/matches/{MATCH}/").content.decode()
    rows = set(re.findall(r'<tr id="request-([^"]+)"', page))
    assert rows == {"r24", "r25"} and "Play Sports" not in page
    assert "a crew of Sky Sports" not in page  # proposed, not published: not theirs to know
    decisions.do_publish(_user("officer"), MATCH)
    page = clients["docs"].get(f"/matches/{MATCH}/").content.decode()
    assert "a crew of Sky Sports" in page and "None" not in page
    steward = clients["steward"].get(f"/matches/{MATCH}/").content.decode()
    assert "<h2>Requests</h2>" not in steward and "request-r" not in steward  # none at all
    assert "not caught on camera" in steward


def test_an_unknown_match_is_404(clients) -> None:
    assert clients["docs"].get("/matches/no-such-match/").status_code == 404


def _user(name: str):
    from django.contrib.auth.models import User

    return User.objects.get(username=name)


def test_page_titles_name_the_match_not_its_id(clients) -> None:
    """Issue 26, section 6: a tab or a bookmark reads the clubs' names."""
    board = clients["officer"].get("/matches/mun-mci-2017-12-10/").content.decode()
    assert "<title>Manchester United v Manchester City · pitchpass</title>" in board
    what_if = clients["officer"].get("/matches/mun-mci-2017-12-10/what-if/").content.decode()
    assert "<title>What if · Manchester United v Manchester City · pitchpass</title>" in what_if
