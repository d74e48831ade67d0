"""The API's rates (issue 10): past them a user, or an address sending wrong tokens, is
answered 429 `too-many-requests` with Retry-After, in the error shape; others are not
slowed by it."""

from __future__ import annotations

import pytest
from django.test import Client
from test_workflow_api import MATCH, post
from test_workflow_api import api as api  # the fixture

from pitchpass.web.settings import cache as cache_settings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True, params=["memory", "redis"])
def counted_in(request, settings):
    """Each test with the rates counted in this process's memory and in Redis (the local
    server, its database 9 emptied)."""
    if request.param == "redis":
        import redis

        settings.CACHES = {"default": cache_settings("redis://127.0.0.1:6379/9")}
        redis.Redis(db=9).flushdb()
        yield request.param
        counted = redis.Redis(db=9).keys("*pitchpass-*")  # rates, wrong tokens
        redis.Redis(db=9).flushdb()
        assert counted, "not counted in Redis"
    else:
        yield request.param


def test_calls_past_the_rate_are_429_for_that_user_only(api, settings) -> None:
    settings.PITCHPASS_API_RATE = "5/m"
    for _ in range(5):
        assert api["bt"].get("/api/matches").status_code == 200
    refused = api["bt"].get("/api/matches")
    assert refused.status_code == 429 and refused.json()["code"] == "too-many-requests"
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert api["docs"].get("/api/matches").status_code == 200  # another user's own count


def test_changes_have_a_lower_rate_of_their_own(api, settings) -> None:
    settings.PITCHPASS_API_WRITE_RATE = "2/m"
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    assert post(api["bt"], "/requests", body).status_code == 201
    assert post(api["bt"], "/requests", body).status_code == 201
    third = post(api["bt"], "/requests", body)
    assert third.status_code == 429 and "wait" in third.json()["message"]
    assert api["bt"].get(f"/api/matches/{MATCH}/requests").status_code == 200  # reads go on


def test_wrong_tokens_from_one_address_are_refused_after_the_rate(
    api, settings, monkeypatch
) -> None:
    from pitchpass.web.http import throttles

    settings.PITCHPASS_API_BAD_TOKEN_RATE = "3/m"
    monkeypatch.setattr(throttles, "clock", lambda: 1_000_000.0)  # time stands still
    guesser = Client(HTTP_AUTHORIZATION="Bearer not-a-token", REMOTE_ADDR="10.1.1.1")
    for _ in range(3):
        assert guesser.get("/api/matches").status_code == 401
    refused = guesser.get("/api/matches")
    assert refused.status_code == 429 and "too many wrong tokens" in refused.json()["message"]
    right = api["bt"].get("/api/matches", REMOTE_ADDR="10.1.1.2")
    assert right.status_code == 200  # another address with its right token
    guessed = api["bt"].get("/api/matches", REMOTE_ADDR="10.1.1.1")
    assert guessed.status_code == 429  # a right token from the guessing address, too,
    assert guessed.content == refused.content  # answered exactly as a wrong one:
    assert guessed["Retry-After"] == refused["Retry-After"] == "60"  # nothing tells them apart


def test_behind_a_proxy_each_client_counts_apart(api, settings) -> None:
    """With a trusted proxy in front (PITCHPASS_PROXIES=1, production's default), wrong
    tokens are counted per client as the proxy saw it, not for everyone at the proxy's
    address; what a client writes into X-Forwarded-For itself is not believed."""
    settings.PITCHPASS_PROXIES = 1
    settings.PITCHPASS_API_BAD_TOKEN_RATE = "2/m"

    def guess(forwarded: str) -> int:
        return (
            Client(
                HTTP_AUTHORIZATION="Bearer not-a-token",
                REMOTE_ADDR="10.9.9.9",  # the proxy
                HTTP_X_FORWARDED_FOR=forwarded,
            )
            .get("/api/matches")
            .status_code
        )

    assert [guess("203.0.113.5") for _ in range(3)] == [401, 401, 429]
    assert guess("198.51.100.7") == 401  # another client behind the same proxy
    assert guess("1.1.1.1, 203.0.113.5") == 429  # a forged first hop changes nothing


def test_page_forms_count_against_the_same_write_rate_as_the_api(api, settings) -> None:
    """Issue 26, section 7: a user's page posts (a request sent on the form, here) and
    API changes share one write rate: past it a page is a 429 with Retry-After, and so is
    the API."""
    from django.contrib.auth.models import User

    settings.PITCHPASS_API_WRITE_RATE = "3/m"
    page = Client()
    page.force_login(User.objects.get(username="bt"))
    form = {"zone": "mixed-zone", "phases": "post-match", "crew": "1", "cameras": "1"}
    url = f"/matches/{MATCH}/requests/new/"
    for _ in range(2):
        assert page.post(url, form).status_code in (200, 302)
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    assert post(api["bt"], "/requests", body).status_code == 201  # the third change
    refused = page.post(url, form)
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    assert "too many changes" in refused.content.decode()
    assert post(api["bt"], "/requests", body).status_code == 429
    other = Client()
    other.force_login(User.objects.get(username="docs"))
    assert other.post(url, form).status_code in (200, 302)  # another user's own count
