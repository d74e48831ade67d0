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


def test_the_room_hint_takes_as_many_queries_for_500_requests_as_for_50() -> None:
    """The hint is asked as the form is filled in: it reads its match once and decides
    it once, whatever its size (benchmarks/room_hint.py measures its time)."""
    asked = {"zone": "tunnel", "phases": ["post-match"], "crew": "1"}
    counts, said = [], []
    for size in (50, 500):
        store.load(big_match(size), replace=True)
        if not User.objects.filter(username="officer").exists():
            do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
        client = Client()
        client.force_login(User.objects.get(username="officer"))
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"/matches/{MATCH}/room/", asked)
        assert answer.status_code == 200
        counts.append(len(queries.captured_queries))
        said.append(answer.content.decode())
    assert counts[0] == counts[1], counts
    assert all("tunnel" in text.lower() for text in said)


def test_the_room_hint_asked_again_is_read_back_from_the_cache_until_the_match_changes(
    monkeypatch,
) -> None:
    """Asked again for the same version of the match, the hint's places are read back
    from Django's cache (decisions._kept_places), not decided again; a request sent moves
    the version on, and the next ask works them out afresh."""
    from datetime import UTC, datetime

    from pitchpass.web.services import entries

    store.load(big_match(50), replace=True)
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("tv", "media", "tv-01", "pw-for-tests-only-7")
    client = Client()
    client.force_login(User.objects.get(username="officer"))
    asked = {"zone": "tunnel", "phases": ["post-match"], "crew": "1"}
    worked: list[int] = []
    real = decisions._places
    monkeypatch.setattr(decisions, "_places", lambda *a: worked.append(1) or real(*a))
    first = client.get(f"/matches/{MATCH}/room/", asked).content
    again = client.get(f"/matches/{MATCH}/room/", asked).content
    assert again == first and len(worked) == 1
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    now = datetime(2099, 1, 1, tzinfo=UTC)
    entries.do_submit_request(User.objects.get(username="tv"), MATCH, body, now)
    client.get(f"/matches/{MATCH}/room/", asked)
    assert len(worked) == 2
