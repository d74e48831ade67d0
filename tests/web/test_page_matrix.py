"""The pages' permission matrix (issue 10, access control): every page, HTMX fragment
and page action, for every role, through Django's test client on the demo site (the seed
match next week, requests open). Two properties: each role gets the status the table
says; and a page never names another organisation's request to a broadcaster, nor tells
one that it exists (an action on it answers as on an id that does not exist)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone
from test_page_actions import BOARD, SEED

from pitchpass.web import demo_site
from pitchpass.web.persistence import models as m
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db
HINT = "zone=tunnel&phases=post-match&crew=2"

# Who may open what: role -> status of each GET, then of each POST with an empty form.
PAGES = ["", f"room/?{HINT}", "what-if/", "requests/new/", "decisions.csv", "access.pdf"]
ACTIONS = ["decide/", "publish/", "incidents/", "requests/new/"]
# 400: allowed, but an empty form is not a request or an incident (it says what is
# missing). The room hint answers everyone who sees the board, each with what they may
# know (published grants and their own requests, unless they manage the match).
# The decisions' CSV: the rows the board shows (stewards see no requests); the access
# list's PDF: 202 while the worker makes it, for stewards and those who manage the match.
STATUS = {
    "officer": ([200, 200, 200, 403, 200, 202], [302, 302, 400, 403]),
    "away-officer": ([200, 200, 403, 403, 200, 403], [403, 403, 400, 403]),
    "documentary": ([200, 200, 403, 200, 200, 403], [403, 403, 403, 400]),
    "bt": ([200, 200, 403, 200, 200, 403], [403, 403, 403, 400]),
    "steward": ([200, 200, 403, 403, 403, 202], [403, 403, 400, 403]),
}
ONE = ["override/", "revoke/", "consent/", "withdraw/", "change/"]


@pytest.fixture
def site() -> demo_site.DemoSite:
    prepared = demo_site.prepare(SEED, timezone.now())
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    return prepared


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def _others(username: str) -> list[str]:
    """The requests of the match this user must not learn of: for a broadcaster, every
    request but its organisation's."""
    own = User.objects.get(username=username).profile.organisation
    return sorted(m.Request.objects.exclude(by=own).values_list("key", flat=True))


@pytest.mark.parametrize("username", sorted(STATUS))
def test_each_role_gets_what_the_table_says(site, username) -> None:
    client = signed_in(username)
    gets, posts = STATUS[username]
    got = [client.get(f"{BOARD}{page}").status_code for page in PAGES]
    sent = [client.post(f"{BOARD}{action}").status_code for action in ACTIONS]
    assert (got, sent) == (gets, posts)


@pytest.mark.parametrize("username", ["bt", "documentary"])
def test_no_page_names_another_organisations_request(site, username) -> None:
    client = signed_in(username)
    hidden = _others(username)
    pages = [client.get(f"{BOARD}{page}") for page in PAGES]
    pages += [client.post(f"{BOARD}{action}") for action in ACTIONS]
    pages += [client.get(f"{BOARD}?status=refused"), client.get("/matches/")]
    for page in pages:
        text = page.content.decode()
        named = [key for key in hidden if re.search(rf"\b{re.escape(key)}\b", text)]
        assert named == [], (page.request["PATH_INFO"], named)


@pytest.mark.parametrize("username", ["bt", "documentary", "away-officer", "steward"])
def test_an_action_on_anothers_request_answers_as_on_none(site, username) -> None:
    client = signed_in(username)
    own = User.objects.get(username=username).profile.organisation
    visible = set()
    if username == "away-officer":  # its dressing room's requests it sees
        room = m.Request.objects.filter(zone__key="away-dressing-room")
        visible = set(room.values_list("key", flat=True))
    target = next(
        key
        for key in m.Request.objects.exclude(by=own).values_list("key", flat=True)
        if key not in visible
    )
    for action in ONE:
        for method in ("get", "post"):
            there = getattr(client, method)(f"{BOARD}requests/{target}/{action}")
            absent = getattr(client, method)(f"{BOARD}requests/zz-none/{action}")
            assert there.status_code == absent.status_code, (action, method)
            # Tokens first: a random token may hold the target's id (r01, say).
            same = _untokened(there.content.decode()).replace(target, "zz-none")
            assert same == _untokened(absent.content.decode()), (action, method)


def _untokened(page: str) -> str:
    """The page but for its CSRF tokens (each answer carries new ones)."""
    page = re.sub(r'name="once" value="[^"]*"', "", page)  # a form's mark (sent_forms)
    return re.sub(r"\b[A-Za-z0-9]{64}\b", "~", page)
