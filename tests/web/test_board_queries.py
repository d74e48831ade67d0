"""The board's cost does not grow with the match: the same number of SQL queries for a
match of 50 requests and one of 500, for the officer and for a broadcaster, and at most
24: a page exports its match once and decides it once (services.snapshot), whoever asks
for it (coverage, the desk's explanations, the policy, the access list). Issue 9 set 20;
issue 11 added four queries of its own, each one whatever the size: whether a door let
anyone in (for "present at the doors"), the offers, the published run (the waitlist) and
the requests an organisation sees published (the exports' links)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from pitchpass.web.persistence import store
from pitchpass.web.services import decisions
from pitchpass.web.services.accounts import do_add_user

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
from test_scale import MATCH, big_match

pytestmark = pytest.mark.django_db


def _queries(username: str) -> int:
    client = Client()
    client.force_login(User.objects.get(username=username))
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/matches/{MATCH}/").status_code == 200
    return len(queries.captured_queries)


def test_the_board_takes_as_many_queries_for_500_requests_as_for_50() -> None:
    counts = []
    for size in (50, 500):
        store.load(big_match(size), replace=True)
        if not User.objects.filter(username="tv").exists():
            do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
            do_add_user("tv", "media", "tv-01", "pw-for-tests-only-7")
        decisions.do_decide(User.objects.get(username="officer"), MATCH)
        counts.append((_queries("officer"), _queries("tv")))
    assert counts[0] == counts[1], counts
    officer, media = counts[1]
    assert officer <= 24 and media <= 24, counts


def test_the_room_hint_decides_a_match_once_per_version_not_at_every_keystroke() -> None:
    """The hint is asked as the form is filled in. Its places are kept by match version
    (services.snapshot.lasting): asked again, nothing is exported or decided, whatever
    the size of the match; a change to the match (a new version) is seen at once."""
    store.load(big_match(500), replace=True)
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    client = Client()
    client.force_login(User.objects.get(username="officer"))
    asked = {"zone": "tunnel", "phases": ["post-match"], "crew": "1"}

    def hint() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"/matches/{MATCH}/room/", asked)
        assert answer.status_code == 200
        return len(queries.captured_queries), answer.content.decode()

    first, said = hint()
    again, said_again = hint()
    assert said_again == said and again < first, (first, again)
    # Session, user, profile, match, run, the match's requests, the zone's name: no export.
    assert again <= 10, again
    # A request sent (a new version) is counted at once (tested with a rival's request in
    # test_page_actions: test_a_rivals_unpublished_requests_never_move_a_producers_hint).
