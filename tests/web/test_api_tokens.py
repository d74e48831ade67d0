"""A revoked API token is refused at once."""

from __future__ import annotations

import pytest
from django.test import Client

from pitchpass.web.errors import ServiceError
from pitchpass.web.services.accounts import do_add_user, do_create_token, do_revoke_token, tokens_of

pytestmark = pytest.mark.django_db


def test_a_revoked_token_is_refused_and_the_others_still_work() -> None:
    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    kept, dropped = do_create_token("ed"), do_create_token("ed")
    assert len(tokens_of("ed")) == 2
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

    from pitchpass.web.persistence import models as m

    do_add_user("ed", "steward", None, "pw-for-tests-only-7")
    token = do_create_token("ed", days=7)
    (row,) = tokens_of("ed")
    assert row.last_used is None
    assert timedelta(days=6) < row.expires - timezone.now() <= timedelta(days=7)
    assert Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
    (row,) = tokens_of("ed")
    assert row.last_used is not None
    m.ApiToken.objects.filter(pk=row.pk).update(expires=timezone.now() - timedelta(seconds=1))
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
    do_deactivate("ed")
    assert browser.get("/").status_code == 302  # its session ended: to the sign-in page
    refused = Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert refused.status_code == 401
    assert tokens_of("ed") == []
    assert not Client().login(username="ed", password="pw-for-tests-only-7")
