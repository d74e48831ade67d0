"""A revoked API token is refused at once."""

from __future__ import annotations

import pytest
from django.test import Client

from pitchpass.web.accounts import do_add_user, do_create_token, do_revoke_token, tokens_of
from pitchpass.web.errors import ServiceError

pytestmark = pytest.mark.django_db


def test_a_revoked_token_is_refused_and_the_others_still_work() -> None:
    do_add_user("ed", "steward", None, "pw")
    kept, dropped = do_create_token("ed"), do_create_token("ed")
    assert len(tokens_of("ed")) == 2
    do_revoke_token(tokens_of("ed")[1].pk)
    refused = Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {dropped}")
    assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"
    assert Client().get("/api/matches", HTTP_AUTHORIZATION=f"Bearer {kept}").status_code == 200
    with pytest.raises(ServiceError) as absent:
        do_revoke_token(12345)
    assert absent.value.code == "not-found"
    with pytest.raises(ServiceError):
        tokens_of("nobody")
