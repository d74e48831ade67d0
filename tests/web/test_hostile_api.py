"""Hostile API input gets a 4xx in the error shape, never a 500 or a guess (issue 10's
security probe): bodies that are not JSON, keys given twice, bodies too large, text that
is not Unicode, absurd minutes, NUL characters in a path."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from test_workflow_api import MATCH, post
from test_workflow_api import api as api  # the fixture

pytestmark = pytest.mark.django_db
REQUESTS = f"/api/matches/{MATCH}/requests"
BODY = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}


def _raw(client: Client, path: str, data: str | bytes, kind: str = "application/json"):
    return client.post(path, data, content_type=kind)


def test_a_body_that_is_not_said_to_be_json_is_refused(api) -> None:
    sent = _raw(api["bt"], REQUESTS, json.dumps(BODY), "text/plain")
    assert sent.status_code == 415 and sent.json()["code"] == "unsupported-media-type"
    assert "Content-Type: application/json" in sent.json()["message"]


def test_a_key_given_twice_is_refused_not_taken_last(api) -> None:
    text = '{"zone": "mixed-zone", "phases": ["post-match"], "crew": 1, "crew": 40}'
    sent = _raw(api["bt"], REQUESTS, text)
    assert sent.status_code == 400 and 'the key "crew" is given twice' in sent.json()["message"]


def test_a_body_too_large_is_413(api) -> None:
    sent = _raw(api["bt"], REQUESTS, json.dumps({**BODY, "id": "x" * 1_100_000}))
    assert sent.status_code == 413 and sent.json()["code"] == "too-large"


def test_text_that_is_not_unicode_is_refused(api) -> None:
    post(api["officer"], "/decide")
    text = json.dumps({"status": "refused", "reason": "bad \ud800 text"})  # a lone surrogate
    sent = _raw(api["officer"], f"/api/matches/{MATCH}/requests/r24/override", text)
    assert sent.status_code == 400 and sent.json()["path"] == "reason"
    assert sent.json()["message"] == "text must be valid Unicode (UTF-8)"


@pytest.mark.parametrize("minute", [1e308, -5000, 1441])
def test_an_absurd_minute_is_refused(api, minute: float) -> None:
    sent = post(api["steward"], "/incidents", {"zone": "tunnel", "minute": minute})
    assert sent.status_code == 400 and sent.json()["path"] == "minute"
    assert "within a day of kick-off" in sent.json()["message"]


def test_a_nul_in_a_path_is_not_found(api) -> None:
    for path in ("/api/matches/a%00b", f"/api/matches/{MATCH}/requests/r%0024"):
        got = api["officer"].get(path)
        assert got.status_code == 404 and got.json()["code"] == "not-found", path
    page = api["officer"].get("/matches/a%00b/")
    assert page.status_code == 404 and "NUL" in page.content.decode()


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/requests", {**BODY, "id": "r" * 101}, "id"),
        ("/requests", {**BODY, "zone": "z" * 101}, "zone"),
        ("/requests", {**BODY, "phases": ["post-match"] * 101}, "phases"),
        ("/requests", {**BODY, "phases": ["p" * 101]}, "phases[0]"),
        ("/requests", {**BODY, "consent": ["c"] * 101}, "consent"),
        ("/incidents", {"zone": "tunnel", "minute": 3, "what": "w" * 2001}, "what"),
        ("/incidents", {"zone": "tunnel", "at": "9" * 65}, "at"),
        ("/what-if", {"capacity": {f"z{n}": 1 for n in range(101)}}, "capacity"),
        ("/what-if", {"grant": ["r01"] * 10_001}, "grant"),
        ("/requests/r24/override", {"status": "refused", "reason": "x" * 2001}, "reason"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_every_body_is_bounded_by_its_schema(api, path: str, body: dict, where: str) -> None:
    """Issue 28, section 6: each body's sizes are its schema's (web/limits.py); past one,
    a 400 `invalid` names the field, before any service reads it."""
    who = "bt" if path == "/requests" else "officer"
    sent = post(api[who], path, body)
    assert sent.status_code == 400, sent.content
    assert (sent.json()["code"], sent.json()["path"]) == ("invalid", where)


def test_a_notice_kind_is_one_of_the_kinds(api) -> None:
    sent = api["bt"].get("/api/notices?kind=everything")
    assert sent.status_code == 400 and sent.json()["path"] == "kind"
    assert "'granted'" in sent.json()["message"]  # the kinds it could be are named
