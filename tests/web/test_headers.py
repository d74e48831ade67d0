"""Every answer refuses to be framed by another page (a framed board's Decide and Publish
buttons would work for whoever frames it: issue 10's security probe) and says how its
referrer and content type are to be read."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from test_workflow_api import MATCH, future_derby

from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path", ["/login/", "/", f"/matches/{MATCH}/", "/api/matches", "/api/docs", "/nowhere/"]
)
def test_no_page_can_be_framed(path: str) -> None:
    store.load(future_derby())
    do_add_user("officer", "officer", "man-united", "pw-long-enough-1")
    client = Client()
    client.force_login(User.objects.get(username="officer"))
    answer = client.get(path)
    assert answer["X-Frame-Options"] == "DENY", path
    assert "frame-ancestors 'none'" in answer["Content-Security-Policy"], path
    assert answer["Referrer-Policy"] == "same-origin"
    assert answer["X-Content-Type-Options"] == "nosniff"
