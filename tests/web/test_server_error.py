"""Django's last resort (middleware.server_error, urls.handler500): a fault outside any
view is answered in the API's error shape under /api/, a plain page elsewhere; the
database away is a 503 that says so. (The PostgreSQL run cuts a real server's database:
tests/web/test_database_away.py.)"""

from __future__ import annotations

import json

from django.db import OperationalError
from django.test import RequestFactory

from pitchpass.web.http.middleware import server_error


def test_an_unforeseen_fault_is_a_500_in_the_shape() -> None:
    try:
        raise RuntimeError("a fault")
    except RuntimeError:
        api = server_error(RequestFactory().get("/api/matches"))
        page = server_error(RequestFactory().get("/"))
    assert api.status_code == 500 and json.loads(api.content)["code"] == "internal"
    assert page.status_code == 500 and b"Something went wrong" in page.content
    assert b"a fault" not in api.content + page.content  # never the fault's own words


def test_the_database_away_is_a_503() -> None:
    try:
        raise OperationalError("connection refused")
    except OperationalError:
        api = server_error(RequestFactory().get("/api/matches"))
        page = server_error(RequestFactory().get("/matches/x/"))
    assert api.status_code == 503 and json.loads(api.content)["code"] == "unavailable"
    assert page.status_code == 503 and b"cannot be reached just now" in page.content
