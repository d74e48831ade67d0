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
