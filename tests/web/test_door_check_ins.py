"""The door page's own JSON address for its script (static/pitchpass/door.js): the API's
check-in body, for a signed-in session with the page's CSRF token, answered with
services.doors.do_check_in's verdict and the door's count; a queued scan (its `key`, its
`scanned` time) sent twice counts once; the QR's signed code and the typed one both pass."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from test_doors import SEED, _in_pre_match, _passes

from pitchpass.web.persistence import models as m

pytestmark = pytest.mark.django_db
URL = f"/matches/{SEED}/door/check-ins"
_in_pre_match = pytest.fixture(autouse=True)(_in_pre_match.__wrapped__)  # the clock: pre-match


def _session(name: str, csrf: bool = False) -> Client:
    client = Client(enforce_csrf_checks=csrf)
    assert client.login(username=name, password="pw-for-tests-only-7")
    return client


def _send(client: Client, body: Any, **headers: str) -> Any:
    return client.post(URL, json.dumps(body), "application/json", headers=headers)


def _body(code: str, zone: str = "pitch-side", **more: Any) -> dict[str, Any]:
    return {"code": code, "zone": zone, "phase": "pre-match", "direction": "in", **more}


def test_the_door_script_gets_the_verdict_and_the_count(desk) -> None:
    r25 = _passes(desk["docs"])["r25"]
    steward = _session("steward")
    first = _send(steward, _body(r25["code"], key="k-1"))  # the QR's signed code
    assert first.status_code == 200
    assert first.json() | {"text": ""} == {
        "result": "admitted", "reason": None, "text": "", "request": "r25",
        "inside": 1, "capacity": 30,
    }  # fmt: skip
    typed = _send(steward, _body(r25["typed"].lower(), key="k-2")).json()  # typed
    assert (typed["result"], typed["inside"]) == ("admitted", 2)
    wrong = _send(steward, _body(r25["typed"], "tunnel")).json()
    assert wrong["reason"] == "wrong-zone" and "pitch-side, not tunnel" in wrong["text"]
    assert wrong["inside"] == 0  # the tunnel's count


def test_a_queued_scan_sent_twice_counts_once_at_its_time(desk) -> None:
    code = _passes(desk["docs"])["r25"]["typed"]
    when = (timezone.now() - timedelta(minutes=4)).isoformat()
    steward = _session("steward")
    sent = [_send(steward, _body(code, key="door-q1", scanned=when)).json() for _ in "ab"]
    assert sent[0] == sent[1] and sent[0]["result"] == "admitted"
    stored = m.Scan.objects.get(key="door-q1")
    assert m.Scan.objects.count() == 1 and stored.scanned < stored.received


def test_the_session_and_its_csrf_token_are_needed(desk) -> None:
    code = _passes(desk["docs"])["r25"]["typed"]
    signed_out = _send(Client(), _body(code))
    assert signed_out.status_code == 401 and signed_out.json()["code"] == "unauthenticated"
    no_token = _send(_session("steward", csrf=True), _body(code))
    assert no_token.status_code == 403  # Django's CSRF check, as for the page's form
    steward = _session("steward", csrf=True)
    page = steward.get(f"/matches/{SEED}/door/", {"zone": "pitch-side"})
    token = page.context["csrf_token"]
    assert _send(steward, _body(code), X_CSRFToken=str(token)).status_code == 200
    media = _send(_session("docs"), _body(code))
    assert media.status_code == 403 and media.json()["code"] == "forbidden"
    assert _session("steward").get(URL).status_code == 405
    assert m.Scan.objects.count() == 1


def test_a_bad_body_is_refused_in_the_error_shape(desk) -> None:
    code = _passes(desk["docs"])["r25"]["typed"]
    steward = _session("steward")
    cases: list[tuple[Any, str]] = [
        ([1, 2], ""),
        ({"zone": "pitch-side", "phase": "pre-match", "direction": "in"}, "code"),
        (_body(7), "code"),
        (_body(code, key=5), "key"),
        (_body(code, scanned="yesterday"), "scanned"),
        (_body(code, direction="up"), "direction"),
        (_body(code, "car-park"), "zone"),
    ]
    for body, path in cases:
        answer = _send(steward, body)
        assert answer.status_code == 400, (body, answer.content)
        assert answer.json()["path"] == path, (body, answer.json())
    not_json = steward.post(URL, "{", "application/json")
    assert not_json.status_code == 400 and not_json.json()["code"] == "invalid"
    assert m.Scan.objects.count() == 0


def test_a_scan_sends_the_same_few_statements_at_an_empty_door_and_a_busy_one(desk) -> None:
    # As the API has the steward (its profile read with its token): the match with the
    # steward's assignment to its venue, the zone locked, the phases, the pass with its
    # crew inside and the door's newest scan, the insert. Not one more after many scans.
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pitchpass.web.services import doors

    code = _passes(desk["docs"])["r25"]["typed"]
    steward = User.objects.select_related("profile__organisation").get(username="steward")
    own = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")

    def statements(direction: str) -> int:
        body = _body(code, direction=direction)
        with CaptureQueriesContext(connection) as seen:
            answer = doors.do_check_in(steward, SEED, body, timezone.now())
        assert answer["result"] == "admitted", answer
        return sum(not q["sql"].startswith(own) for q in seen.captured_queries)

    empty = statements("in")
    for _ in range(20):
        statements("out")
        statements("in")
    assert empty == statements("out") == 5
