"""A revoked API token is refused at once: every call reads its token (one indexed row,
with its user, role and organisation), so nothing a process keeps can outlive a change.
Each test with the rates counted in this process's memory and in Redis."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from pitchpass.web.errors import ServiceError
from pitchpass.web.services.accounts import do_add_user, do_create_token, do_revoke_token, tokens_of
from pitchpass.web.settings import cache as cache_settings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True, params=["memory", "redis"])
def counted_in(request, settings):
    if request.param == "redis":
        import redis

        settings.CACHES = {"default": cache_settings("redis://127.0.0.1:6379/9")}
        redis.Redis(db=9).flushdb()
        yield request.param
        redis.Redis(db=9).flushdb()
    else:
        yield request.param


def _get(token: str) -> int:
    return Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}").status_code


def test_a_revoked_token_is_refused_and_the_others_still_work() -> None:
    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    kept, dropped = do_create_token("ed"), do_create_token("ed")
    assert len(tokens_of("ed")) == 2
    assert _get(kept) == 200 and _get(dropped) == 200  # both kept (with Redis)
    do_revoke_token(tokens_of("ed")[1].pk)
    refused = Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {dropped}")
    assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    assert Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {kept}").status_code == 200
    strict = Client(enforce_csrf_checks=True)  # as a browser's requests are checked
    posted = strict.post("/api/matches/any/decide", HTTP_AUTHORIZATION=f"Bearer {dropped}")
    assert posted.status_code == 401 and posted.json()["code"] == "unauthenticated"
    assert strict.post("/api/matches/any/decide").status_code == 401  # no one at all
    with pytest.raises(ServiceError) as absent:
        do_revoke_token(12345)
    assert absent.value.code == "not-found"
    with pytest.raises(ServiceError):
        tokens_of("nobody")


def test_a_session_post_without_the_csrf_token_is_still_refused() -> None:
    from django.contrib.auth.models import User

    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(username="ed"))
    assert browser.get("/api/matches").status_code == 200
    forged = browser.post("/api/matches/any/incidents", {}, content_type="application/json")
    assert forged.status_code == 403 and "CSRF" in forged.json()["message"]


def test_a_token_expires_and_its_last_use_is_kept() -> None:
    from datetime import timedelta

    from django.utils import timezone

    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    token = do_create_token("ed", days=7)
    (row,) = tokens_of("ed")
    assert row.last_used is None
    assert timedelta(days=6) < row.expires - timezone.now() <= timedelta(days=7)
    assert Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
    (row,) = tokens_of("ed")
    assert row.last_used is not None
    row.expires = timezone.now() - timedelta(seconds=1)
    row.save()
    expired = Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert expired.status_code == 401 and expired.json()["code"] == "unauthenticated"
    for days in (0, 3651):
        with pytest.raises(ServiceError) as wrong:
            do_create_token("ed", days=days)
        assert wrong.value.path == "days"


def test_deactivating_a_user_ends_its_sessions_and_tokens_at_once() -> None:
    from pitchpass.web.services.accounts import do_deactivate

    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    token = do_create_token("ed")
    browser = Client()
    assert browser.login(username="ed", password="pw-for-tests-only-7")
    assert browser.get("/").status_code == 200
    assert _get(token) == 200
    do_deactivate("ed")
    assert browser.get("/").status_code == 302  # its session ended: to the sign-in page
    refused = Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert refused.status_code == 401
    assert tokens_of("ed") == []
    assert not Client().login(username="ed", password="pw-for-tests-only-7")


def test_a_token_costs_one_query_and_any_account_change_is_seen_at_the_next_call(
    django_assert_num_queries,
) -> None:
    """A call reads its token with its user, role and organisation in one query; a
    change to any of them, or to the token itself, is seen by the very next call."""
    from django.contrib.auth.models import User
    from test_workflow_api import MATCH, future_derby

    from pitchpass.web.persistence import models as m
    from pitchpass.web.persistence import store

    store.load(future_derby())
    do_add_user("ann", "media", "bt-sport", "pw-for-tests-only-7")
    token = do_create_token("ann")

    def listed() -> Any:
        path = f"/api/matches/{MATCH}/requests"
        return Client().get(path, HTTP_AUTHORIZATION=f"Bearer {token}")

    assert _get(token) == 200  # its last use written
    with django_assert_num_queries(2):  # the token (with its user and role), the matches
        assert _get(token) == 200
    assert {r["by"] for r in listed().json()["items"]} == {"bt-sport"}
    profile = m.Profile.objects.get(user__username="ann")
    profile.organisation = m.Organisation.objects.get(key="sky-sports")
    profile.save()  # as the admin's form does
    assert {r["by"] for r in listed().json()["items"]} == {"sky-sports"}
    profile.role = "steward"
    profile.organisation = None
    profile.save()
    assert listed().json()["code"] == "forbidden"
    user = User.objects.get(username="ann")
    user.is_active = False
    user.save()
    assert _get(token) == 401
    user.is_active = True
    user.save()
    assert _get(token) == 200
    m.ApiToken.objects.filter(user=user).update(expires=None, digest="changed-by-sql")
    assert _get(token) == 401  # even a change no signal tells of


def test_every_operation_has_the_rates_throttle() -> None:
    """Every API operation counts its call against the user's rates (http/throttles.Limit)."""
    from pitchpass.web.http import throttles
    from pitchpass.web.http.api import api

    operations = [
        operation
        for _, router in api._routers
        for view in router.path_operations.values()
        for operation in view.operations
    ]
    assert len(operations) >= 16
    for operation in operations:
        limits = [t for t in operation.throttle_objects if isinstance(t, throttles.Limit)]
        assert limits, operation.view_func.__name__


def test_a_revoked_token_is_answered_as_a_wrong_one(counted_in, settings) -> None:
    """A revoked token gets the very answer a wrong token gets (401, the same body and
    headers) and is counted against its address: past the wrong tokens' rate, 429 as for
    any token from there."""
    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    token = do_create_token("ed")
    assert _get(token) == 200
    do_revoke_token(tokens_of("ed")[0].pk)

    def answer(sent: str) -> tuple[int, bytes, dict[str, str]]:
        got = Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {sent}")
        each = ("Date", "Content-Length", "X-Request-ID")  # the request id: each its own
        heads = {k: v for k, v in got.headers.items() if k not in each}
        return got.status_code, got.content, heads

    revoked, wrong = answer(token), answer("no-such-token")
    assert revoked == wrong and revoked[0] == 401
    settings.PITCHPASS_API_BAD_TOKEN_RATE = "2/m"  # two wrong tokens counted so far
    assert _get("no-such-token") == 429
    assert _get(token) == 429


def test_a_token_taken_from_a_user_does_not_use_up_the_users_rate(counted_in, settings) -> None:
    """From an independent review: a revoked token kept somewhere, sent again and again,
    is refused each time without counting against its user's rate; the user's other
    token still works."""
    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    kept, taken = do_create_token("ed"), do_create_token("ed")
    assert _get(kept) == 200 and _get(taken) == 200
    do_revoke_token(tokens_of("ed")[1].pk)
    settings.PITCHPASS_API_RATE = "4/m"  # two calls counted so far
    assert [_get(taken) for _ in range(8)] == [401] * 8
    assert _get(kept) == 200 and _get(kept) == 200
    assert _get(kept) == 429


def test_the_database_away_while_a_token_is_read_is_a_503(counted_in, monkeypatch) -> None:
    """The database away as a token is read is answered as anywhere else (503 with
    Retry-After), not as an unhandled fault."""
    from django.db import OperationalError

    from pitchpass.web.persistence import models as m

    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    token = do_create_token("ed")
    assert _get(token) == 200

    def away(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("connection refused")

    monkeypatch.setattr(m.ApiToken.objects, "select_related", away)
    got = Client(raise_request_exception=False).get(
        "/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert got.status_code == 503 and got.json()["code"] == "unavailable"
    assert got["Retry-After"] == "5"
