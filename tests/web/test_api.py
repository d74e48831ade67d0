"""The REST API: auth, the error shape, and who may read what (one table drives the matrix)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user, do_create_token

ROOT = Path(__file__).resolve().parents[2]
DERBY = "mun-mci-2017-12-10"
FAST = ["django.contrib.auth.hashers.MD5PasswordHasher"]
pytestmark = pytest.mark.django_db

USERS = {
    "admin": ("admin", None),
    "home-officer": ("officer", "man-united"),
    "away-officer": ("officer", "man-city"),
    "other-officer": ("officer", "rheinhafen"),
    "documentary": ("media", "man-city-documentary"),
    "bt": ("media", "bt-sport"),
    "steward": ("steward", None),
}


@pytest.fixture(scope="module")
def tokens(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, str]]:
    """Two scenarios and a user of each kind, made once for these read-only tests."""
    from django.contrib.auth.hashers import make_password
    from django.test import override_settings

    with django_db_blocker.unblock(), override_settings(PASSWORD_HASHERS=FAST):
        for name in ("manchester-derby-2017.yaml", "european-night.yaml"):
            path = ROOT / "scenarios" / name
            store.load(parse_text(path.read_text(), name))
        for username, (role, org) in USERS.items():
            do_add_user(username, role, org, "pw-for-tests-only-7")
        assert make_password("pw-for-tests-only-7").startswith("md5$")
        yield {username: do_create_token(username) for username in USERS}
        call_command("flush", interactive=False, verbosity=0)


def get(tokens: dict[str, str], who: str | None, path: str) -> tuple[int, Any]:
    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens[who]}"} if who else {}
    response = Client().get(f"/api{path}", **headers)
    return response.status_code, response.json()


# who, path, status, what the body must hold (a count of items, or an error code)
MATRIX = [
    (None, "/matches", 401, "unauthenticated"),
    ("admin", "/matches", 200, 4),
    ("bt", "/matches", 200, 4),
    ("steward", "/matches", 200, 4),
    ("home-officer", "/matches", 200, 1),
    ("other-officer", "/matches", 200, 1),
    (None, f"/matches/{DERBY}/requests", 401, "unauthenticated"),
    ("admin", f"/matches/{DERBY}/requests", 200, 37),
    ("home-officer", f"/matches/{DERBY}/requests", 200, 37),
    ("away-officer", f"/matches/{DERBY}/requests", 200, 1),  # r24, in City's dressing room
    ("documentary", f"/matches/{DERBY}/requests", 200, 2),
    ("bt", f"/matches/{DERBY}/requests", 200, 2),
    ("steward", f"/matches/{DERBY}/requests", 403, "forbidden"),
    ("other-officer", f"/matches/{DERBY}/requests", 404, "not-found"),
    ("admin", "/matches/no-such-match/requests", 404, "not-found"),
    # One request: seen exactly where the list shows it, else absent.
    (None, f"/matches/{DERBY}/requests/r24", 401, "unauthenticated"),
    ("admin", f"/matches/{DERBY}/requests/r24", 200, ("by", "man-city-documentary")),
    ("home-officer", f"/matches/{DERBY}/requests/r24", 200, ("id", "r24")),
    ("away-officer", f"/matches/{DERBY}/requests/r24", 200, ("id", "r24")),
    ("away-officer", f"/matches/{DERBY}/requests/r01", 404, "not-found"),
    ("documentary", f"/matches/{DERBY}/requests/r24", 200, ("zone", "away-dressing-room")),
    ("bt", f"/matches/{DERBY}/requests/r24", 404, "not-found"),
    ("steward", f"/matches/{DERBY}/requests/r24", 403, "forbidden"),
    ("other-officer", f"/matches/{DERBY}/requests/r24", 404, "not-found"),
]


@pytest.mark.parametrize(("who", "path", "status", "expected"), MATRIX)
def test_permission_matrix(tokens, who, path, status, expected) -> None:
    code, body = get(tokens, who, path)
    assert code == status
    if isinstance(expected, int):  # a page of a list, holding them all
        assert body["count"] == len(body["items"]) == expected
    elif isinstance(expected, tuple):  # one object: a field and its value
        assert body[expected[0]] == expected[1]
    else:
        assert body["code"] == expected and set(body) == {"code", "message", "path"}


def test_media_see_only_their_own_organisations_requests(tokens) -> None:
    _, page = get(tokens, "documentary", f"/matches/{DERBY}/requests")
    body = page["items"]
    assert {r["by"] for r in body} == {"man-city-documentary"}
    assert [r["id"] for r in body] == ["r24", "r25"]
    assert list(body[0])[:8] == [
        "id", "match", "by", "zone", "phases", "crew", "cameras", "submitted",
    ]  # fmt: skip


def test_the_away_officer_sees_the_requests_in_its_dressing_room(tokens) -> None:
    _, page = get(tokens, "away-officer", f"/matches/{DERBY}/requests")
    assert [(r["id"], r["zone"]) for r in page["items"]] == [("r24", "away-dressing-room")]


def test_a_hidden_match_and_an_absent_one_look_the_same(tokens) -> None:
    hidden = get(tokens, "other-officer", f"/matches/{DERBY}/requests")
    absent = get(tokens, "other-officer", "/matches/zzz/requests")
    assert hidden[0] == absent[0] == 404
    assert hidden[1]["code"] == absent[1]["code"]


def test_a_wrong_token_is_401(tokens) -> None:
    response = Client().get("/api/matches", HTTP_AUTHORIZATION="Bearer nope")
    assert response.status_code == 401 and response.json()["code"] == "unauthenticated"


def test_a_session_signs_in_too(tokens) -> None:
    client = Client()
    assert client.login(username="bt", password="pw-for-tests-only-7")
    assert len(client.get("/api/matches").json()["items"]) == 4


def test_openapi_schema_lists_the_paths() -> None:
    schema = Client().get("/api/openapi.json").json()
    assert "/api/matches/{match}/requests" in schema["paths"]


def test_lists_come_in_pages(tokens) -> None:
    """Every list of the API is paged (issue 28, section 9): ?limit= and ?offset=,
    answered as the page's items and the count of them all; a limit past 1,000, or not
    a number, is refused in the error shape."""
    _, whole = get(tokens, "admin", f"/matches/{DERBY}/requests")
    assert whole["count"] == 37 and len(whole["items"]) == 37
    _, page = get(tokens, "admin", f"/matches/{DERBY}/requests?limit=10&offset=30")
    assert page["count"] == 37
    assert [r["id"] for r in page["items"]] == [r["id"] for r in whole["items"][30:]]
    for bad in ("limit=1001", "limit=0", "limit=ten", "offset=-1"):
        status, body = get(tokens, "admin", f"/matches/{DERBY}/requests?{bad}")
        assert status == 400 and body["code"] == "invalid", (bad, body)
        assert body["path"] == bad.split("=")[0]
