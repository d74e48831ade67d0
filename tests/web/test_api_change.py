"""Changing a submitted request: PATCH /api/matches/{match}/requests/{id}."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from django.test import Client
from test_workflow_api import MATCH, api, future_derby, post

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store

__all__ = ["api"]  # the fixture, shared with the workflow tests
pytestmark = pytest.mark.django_db


def patch(client: Client, request_id: str, body: dict[str, Any], match: str = MATCH) -> Any:
    return client.patch(
        f"/api/matches/{match}/requests/{request_id}", body, content_type="application/json"
    )


def requests_of(client: Client) -> list[dict[str, Any]]:
    return client.get(f"/api/matches/{MATCH}/requests").json()["items"]


def test_media_change_their_request_and_it_counts_as_submitted_now(api) -> None:
    before = next(r for r in requests_of(api["docs"]) if r["id"] == "r25")
    changed = patch(api["docs"], "r25", {"crew": 3, "phases": ["pre-match"]})
    assert changed.status_code == 200
    after = changed.json()
    assert after == {**before, "crew": 3, "phases": ["pre-match"], "submitted": after["submitted"]}
    assert datetime.fromisoformat(after["submitted"]) > datetime.fromisoformat(before["submitted"])
    mine = requests_of(api["docs"])
    assert [r["id"] for r in mine] == ["r24", "r25"]  # replaced in its place, not added
    assert mine[1] == after
    entry = m.AuditEntry.objects.get(action="change", target="r25")
    assert entry.before == before and entry.after == after and entry.user is not None


def test_another_organisations_request_is_not_found_like_an_absent_one(api) -> None:
    other = patch(api["bt"], "r24", {"crew": 1})
    absent = patch(api["bt"], "no-such-request", {"crew": 1})
    assert other.status_code == absent.status_code == 404
    assert other.json()["code"] == absent.json()["code"] == "not-found"
    assert m.Request.objects.get(match__key=MATCH, key="r24").crew == 2
    assert patch(api["steward"], "r24", {"crew": 1}).status_code == 403


@pytest.mark.parametrize(
    ("body", "status", "path"),
    [
        ({"zone": "tunel"}, 400, "zone"),
        ({"crew": 0}, 400, "crew"),
        ({"phases": ["postmatch"]}, 400, "phases[0]"),
        ({}, 400, ""),
        ({"consent": ["man-city"]}, 403, "consent"),
    ],
)
def test_a_change_is_checked_like_a_submission(api, body, status, path) -> None:
    response = patch(api["docs"], "r24", body)
    assert response.status_code == status
    assert response.json()["path"] == path
    assert m.Request.objects.get(match__key=MATCH, key="r24").crew == 2


def test_a_new_zone_drops_the_consent_given_for_the_old_one(api) -> None:
    moved = patch(api["docs"], "r24", {"zone": "tunnel"}).json()
    assert moved["zone"] == "tunnel" and "consent" not in moved
    given = patch(api["admin"], "r24", {"zone": "away-dressing-room", "consent": ["man-city"]})
    assert given.status_code == 200 and given.json()["consent"] == ["man-city"]


def test_a_published_grant_is_not_changed_and_a_run_before_a_change_is_stale(api) -> None:
    post(api["officer"], "/decide")
    changed = patch(api["docs"], "r25", {"crew": 1})
    assert changed.status_code == 200
    assert post(api["officer"], "/publish").status_code == 409
    post(api["officer"], "/decide")
    assert post(api["officer"], "/publish").status_code == 200
    locked = patch(api["docs"], "r25", {"crew": 2})
    assert locked.status_code == 409
    assert m.Request.objects.get(match__key=MATCH, key="r25").crew == 1


def test_after_the_deadline_only_an_admin_changes(api) -> None:
    document = future_derby()
    document["matches"][0]["kickoff"] = "2020-01-01T15:00:00+00:00"
    store.load(document)
    late = patch(api["docs"], "r25", {"crew": 1})
    assert late.status_code == 409 and "deadline" in late.json()["message"]
    done = patch(api["admin"], "r25", {"crew": 1})
    assert done.status_code == 200 and done.json()["crew"] == 1
