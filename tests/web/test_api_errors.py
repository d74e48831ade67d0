"""Every failure is an error in the one shape, never a bare 500 from deep inside."""

from __future__ import annotations

import logging

import pytest
from test_workflow_api import MATCH, api, post

from pitchpass.web.persistence import models as m

__all__ = ["api"]  # the fixture, shared with the workflow tests
pytestmark = pytest.mark.django_db
SHAPE = {"code", "message", "path"}


@pytest.mark.parametrize("at", ["0001-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00"])
def test_an_incident_time_outside_the_calendar_is_bad_input(api, at) -> None:
    response = post(api["steward"], "/incidents", {"zone": "tunnel", "at": at})
    assert response.status_code == 400
    assert response.json() == {**response.json(), "code": "invalid", "path": "at"}
    assert not m.Incident.objects.filter(match__key=MATCH, at__isnull=False).exists()


@pytest.mark.parametrize(
    ("who", "path", "body"),
    [
        ("admin", "/requests", {"by": "bt-sport", "id": "r" * 101}),
        ("bt", "/requests", {"id": "r" * 95}),  # 104 with the organisation's prefix
        ("bt", "/requests", {"id": "a/b"}),
        ("steward", "/incidents", {"id": "i" * 101, "minute": 3}),
        ("steward", "/incidents", {"id": "i/1", "minute": 3}),
    ],
)
def test_ids_too_long_or_with_a_slash_are_bad_input(api, who, path, body) -> None:
    fields = {"zone": "tunnel", "phases": ["post-match"], "crew": 1} if path == "/requests" else {}
    response = post(api[who], path, {"zone": "tunnel", **fields, **body})
    assert response.status_code == 400
    assert response.json()["path"] == "id" and set(response.json()) == SHAPE
    assert not m.AuditEntry.objects.exclude(action="load").filter(match__isnull=False).exists()


def test_a_solver_out_of_time_still_decides_and_says_so(api, monkeypatch) -> None:
    """Never "nothing decided" (issue 27, section 3): the run keeps the best choice found
    (here the first-come one, with no time to search), says it is not proven the best, and
    the officer's board says so beside the Publish button."""
    from django.contrib.auth.models import User
    from django.test import Client

    from pitchpass.core.deciding import solver

    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 0.0)
    response = post(api["officer"], "/decide")
    assert response.status_code == 200, response.json()
    (said,) = response.json()["unproven"]
    assert said["message"].startswith(f"not proven the best choice for match {MATCH}: the time")
    assert said["most"] is None and said["message"].endswith("the best choice found is kept")
    run = m.DecisionRun.objects.get()
    assert run.output["unproven"] == [said]
    page = Client()
    page.force_login(User.objects.get(username="officer"))
    board = page.get(f"/matches/{MATCH}/").content.decode()
    assert 'id="unproven"' in board and said["message"] in board
    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 60.0)
    assert "unproven" not in post(api["officer"], "/decide").json()
    assert 'id="unproven"' not in page.get(f"/matches/{MATCH}/").content.decode()


def _conflict(response) -> None:
    assert response.status_code == 409, response.json()
    message = response.json()["message"]
    assert response.json()["code"] == "conflict" and "as stored" in message
    assert "a league admin has to correct it" in message and "load" not in message


def test_a_stored_match_the_core_rejects_is_a_conflict(api) -> None:
    """Its frame (a zone edited into nonsense behind the app's back): every change and
    read is a conflict."""
    m.Zone.objects.filter(key="tunnel").update(closed=["no-such-phase"])
    for response in (
        api["admin"].patch(
            f"/api/matches/{MATCH}/requests/r04", {"crew": 1}, content_type="application/json"
        ),
        post(api["officer"], "/decide"),
        api["bt"].get(f"/api/matches/{MATCH}/coverage"),
        post(api["bt"], "/requests", {"zone": "pitch-side", "phases": ["post-match"], "crew": 1}),
        post(api["steward"], "/incidents", {"zone": "pitch-side", "minute": 3}),
    ):
        _conflict(response)


def test_a_broken_request_stops_decisions_not_other_requests(api) -> None:
    """Another request edited into nonsense: deciding and coverage are a conflict; a new
    request, a change or an incident is checked on its own against the match's frame
    (issue 10: a submission does not export and check the whole match) and is taken."""
    broken = m.Request.objects.get(match__key=MATCH, key="r31")
    assert broken.position == 30  # requests[30]: not a problem of requests[3]
    m.Request.objects.filter(pk=broken.pk).update(phases=["no-such-phase"])
    _conflict(post(api["officer"], "/decide"))
    _conflict(api["bt"].get(f"/api/matches/{MATCH}/coverage"))
    changed = api["admin"].patch(
        f"/api/matches/{MATCH}/requests/r04", {"crew": 1}, content_type="application/json"
    )
    assert changed.status_code == 200, changed.json()
    sent = post(api["bt"], "/requests", {"zone": "tunnel", "phases": ["post-match"], "crew": 1})
    assert sent.status_code == 201, sent.json()
    logged = post(api["steward"], "/incidents", {"zone": "tunnel", "minute": 3})
    assert logged.status_code == 201, logged.json()


def test_anything_unforeseen_is_a_logged_500_in_the_same_shape(api, monkeypatch, caplog) -> None:
    from pitchpass.web.services import decisions

    def broken(*args: object) -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(decisions, "coverage", broken)
    with caplog.at_level(logging.ERROR, logger="pitchpass.web.http.api"):
        response = api["bt"].get(f"/api/matches/{MATCH}/coverage")
    assert response.status_code == 500
    assert response.json()["code"] == "internal" and set(response.json()) == SHAPE
    assert "secret detail" not in response.content.decode()
    assert "secret detail" in caplog.text and "Traceback" in caplog.text


def test_a_generated_incident_id_goes_past_every_one_the_match_has_had(api) -> None:
    """incident-n, n past the highest such id logged (or loaded) so far: one made up is
    never one used before, even once deleted (match.incident_serial, not the log)."""
    body = {"zone": "tunnel", "minute": 3}
    assert post(api["steward"], "/incidents", {**body, "id": "incident-2"}).status_code == 201
    first = post(api["steward"], "/incidents", body)
    assert (first.status_code, first.json()["id"]) == (201, "incident-3")
    second = post(api["steward"], "/incidents", body)
    assert (second.status_code, second.json()["id"]) == (201, "incident-4")


@pytest.mark.parametrize(
    ("path", "body", "where"),
    [
        ("/requests", {"zone": "tunnel", "phases": ["post-match"], "crew": True}, "crew"),
        ("/requests", {"zone": "tunnel", "phases": ["post-match"], "crew": "2"}, "crew"),
        ("/requests", {"zone": "tunnel", "phases": ["post-match"], "crew": 1, "cameras": False},
         "cameras"),
        ("/requests/r24/consent", {"given": 1}, "given"),
        ("/incidents", {"zone": "tunnel", "minute": True}, "minute"),
        ("/what-if", {"capacity": {"tunnel": True}}, "capacity.tunnel"),
    ],
)  # fmt: skip
def test_booleans_and_text_are_not_numbers(api, path, body, where) -> None:
    who = {"/requests": "bt", "/incidents": "steward"}.get(path, "admin")
    response = post(api[who], path, body)
    assert response.status_code == 400, response.json()
    assert response.json()["path"] == where


def test_a_minute_may_be_a_fraction_and_a_change_of_crew_must_be_a_count(api) -> None:
    assert post(api["steward"], "/incidents", {"zone": "tunnel", "minute": 12.5}).status_code == 201
    changed = api["docs"].patch(
        f"/api/matches/{MATCH}/requests/r24", {"crew": True}, content_type="application/json"
    )
    assert changed.status_code == 400 and changed.json()["path"] == "crew"


def code_of(response: object) -> tuple[int, str]:
    return response.status_code, response.json()["code"]  # type: ignore[attr-defined]


def test_each_conflict_says_why_in_its_code(api) -> None:
    body = {"id": "x", "zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    assert post(api["bt"], "/requests", body).status_code == 201
    assert code_of(post(api["bt"], "/requests", body)) == (409, "duplicate")
    said = post(api["bt"], "/requests", body).json()["message"]
    assert said == 'your reference "x" is taken: request "bt-sport.x" exists already'
    prefixed = post(api["bt"], "/requests", body | {"id": "bt-sport.y"})
    assert prefixed.json()["id"] == "bt-sport.y"  # typed with the prefix: kept once
    long = post(api["bt"], "/requests", body | {"id": "r" * 95}).json()["message"]
    assert 'with "bt-sport." in front, an id has at most 100 characters' in long
    incident = {"id": "i", "zone": "tunnel", "minute": 1}
    post(api["steward"], "/incidents", incident)
    assert code_of(post(api["steward"], "/incidents", incident)) == (409, "duplicate")
    assert code_of(post(api["officer"], "/publish")) == (409, "not-decided")
    override = {"status": "granted", "reason": "x"}
    assert code_of(post(api["officer"], "/requests/r24/override", override)) == (
        409, "not-decided",
    )  # fmt: skip
    post(api["officer"], "/decide")
    api["bt"].delete(f"/api/matches/{MATCH}/requests/bt-sport.x")
    assert code_of(post(api["officer"], "/publish")) == (409, "stale-run")
    post(api["officer"], "/decide")
    post(api["officer"], "/publish")
    refuse = {"status": "refused", "reason": "x"}
    assert code_of(post(api["officer"], "/requests/r01/override", refuse)) == (409, "published")
    assert code_of(api["admin"].delete(f"/api/matches/{MATCH}/requests/r01")) == (409, "published")
    assert code_of(post(api["officer"], "/requests/r24/revoke", {"reason": "x"})) == (
        409, "conflict",
    )  # fmt: skip


def test_after_the_deadline_the_code_says_so(api) -> None:
    from test_workflow_api import future_derby

    from pitchpass.web.persistence import store

    document = future_derby()
    document["matches"][0]["kickoff"] = "2020-01-01T15:00:00+00:00"
    store.load(document)
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    assert code_of(post(api["bt"], "/requests", body)) == (409, "deadline-passed")
    assert code_of(api["bt"].delete(f"/api/matches/{MATCH}/requests/r02")) == (
        409, "deadline-passed",
    )  # fmt: skip


def test_a_long_id_in_a_url_is_simply_not_found(api) -> None:
    long_id = "r" * 150
    for response in (
        api["admin"].delete(f"/api/matches/{MATCH}/requests/{long_id}"),
        api["admin"].patch(
            f"/api/matches/{MATCH}/requests/{long_id}", {"crew": 1}, content_type="application/json"
        ),
        post(api["admin"], f"/requests/{long_id}/consent", {"given": True}),
        api["admin"].get(f"/api/matches/{'m' * 150}/requests"),
    ):
        assert code_of(response) == (404, "not-found")


def test_paths_and_methods_the_api_lacks_answer_in_its_shape(api) -> None:
    one = api["bt"].get(f"/api/matches/{MATCH}/requests/r02")
    assert one.status_code == 200 and one.json()["by"] == "bt-sport"
    assert api["bt"].get(f"/api/matches/{MATCH}/requests/r01").status_code == 404  # Sky's
    put = api["bt"].put(f"/api/matches/{MATCH}/requests/r02")
    assert put.status_code == 405 and put.json()["code"] == "method-not-allowed"
    assert "PATCH" in put.json()["message"] and "PATCH" in put["Allow"]
    slash = api["bt"].get("/api/matches/")
    assert slash.status_code == 404 and slash.json() == {
        "code": "not-found",
        "message": "no API path /api/matches/ (API paths end without a slash: /api/matches)",
        "path": "",
    }
    assert api["bt"].get("/api/nothing").json()["message"] == (
        "no API path /api/nothing (see /api/docs)"
    )
