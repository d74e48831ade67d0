"""Safe retries (issue 10): a POST sent again with the same Idempotency-Key gets the first
answer back instead of acting twice; the same key with another call is refused."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from test_workflow_api import MATCH
from test_workflow_api import api as api  # the fixture

from pitchpass.web.persistence import models as m

pytestmark = pytest.mark.django_db
BODY = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1, "id": "retry"}


def _send(client: Client, path: str, body: dict[str, Any], key: str | None) -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post(
        f"/api/matches/{MATCH}{path}", body, content_type="application/json", **headers
    )


def test_a_retried_submission_makes_one_request(api) -> None:
    first = _send(api["bt"], "/requests", BODY, "k-1")
    again = _send(api["bt"], "/requests", BODY, "k-1")
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json() == {"id": "bt-sport.retry"}
    assert again["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first
    assert m.Request.objects.filter(key="bt-sport.retry").count() == 1
    without = _send(api["bt"], "/requests", BODY, None)  # no key: acted on, a duplicate
    assert without.status_code == 409 and without.json()["code"] == "duplicate"


def test_the_same_key_for_another_call_is_refused(api) -> None:
    assert _send(api["bt"], "/requests", BODY, "k-2").status_code == 201
    other = _send(api["bt"], "/requests", {**BODY, "id": "other"}, "k-2")
    assert other.status_code == 409 and other.json()["path"] == "Idempotency-Key"
    assert "used for another call" in other.json()["message"]
    mine = _send(api["docs"], "/requests", {**BODY, "id": "docs"}, "k-2")  # its own keys
    assert mine.status_code == 201


def test_a_failed_call_lets_its_key_go(api) -> None:
    wrong = _send(api["bt"], "/requests", {**BODY, "zone": "nowhere"}, "k-3")
    assert wrong.status_code == 400
    fixed = _send(api["bt"], "/requests", BODY, "k-3")
    assert fixed.status_code == 201 and "Idempotent-Replayed" not in fixed


def test_a_retried_incident_is_logged_once(api) -> None:
    body = {"zone": "tunnel", "minute": 30, "what": "a push"}
    first = _send(api["steward"], "/incidents", body, "i-1")
    again = _send(api["steward"], "/incidents", body, "i-1")
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert m.Incident.objects.filter(match__key=MATCH, what="a push").count() == 1


@pytest.mark.parametrize("key", ["", "has space", "k" * 101, "é"])
def test_a_malformed_key_is_refused(api, key: str) -> None:
    refused = _send(api["bt"], "/requests", BODY, key)
    assert refused.status_code == 400 and refused.json()["path"] == "Idempotency-Key"
