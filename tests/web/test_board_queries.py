"""The board's cost does not grow with the match: the same number of SQL queries for a
match of 50 requests and one of 500, for the officer and for a broadcaster, and at most
20 (issue 9): a page exports its match once and decides it once (services.snapshot),
whoever asks for it (coverage, the desk's explanations, the policy, the access list)."""

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
    assert officer <= 20 and media <= 20, counts
