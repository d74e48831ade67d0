"""Submitting, withdrawing and deciding through the API, with the audit trail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client

from pitchpass.core import decide_document
from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user, do_create_token

ROOT = Path(__file__).resolve().parents[2]
MATCH = "mun-mci-2099-12-10"
pytestmark = pytest.mark.django_db


def future_derby() -> dict[str, Any]:
    """The seed story, moved to a kick-off still to come so that requests are open."""
    path = ROOT / "scenarios" / "manchester-derby-2017.yaml"
    text = path.read_text().replace("mun-mci-2017-12-10", MATCH)
    text = text.replace("kickoff: 2017-12-10T16:30:00+00:00", "kickoff: 2099-12-10T16:30:00+00:00")
    return parse_text(text, "future.yaml")


@pytest.fixture
def api() -> dict[str, Client]:
    store.load(future_derby())
    users = {
        "admin": ("admin", None),
        "officer": ("officer", "man-united"),
        "away": ("officer", "man-city"),
        "bt": ("media", "bt-sport"),
        "docs": ("media", "man-city-documentary"),
        "steward": ("steward", None),
    }
    clients = {}
    for name, (role, org) in users.items():
        do_add_user(name, role, org, "pw-for-tests-only-7")
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token(name)}")
    return clients


def test_submit_then_see_it_and_withdraw_it(api) -> None:
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 2}
    created = api["bt"].post(
        f"/api/matches/{MATCH}/requests", body, content_type="application/json"
    )
    assert created.status_code == 201
    new_id = created.json()["id"]
    mine = api["bt"].get(f"/api/matches/{MATCH}/requests").json()["items"]
    assert new_id in [r["id"] for r in mine] and {r["by"] for r in mine} == {"bt-sport"}
    assert m.AuditEntry.objects.filter(action="submit", target=new_id).count() == 1
    # Another organisation cannot withdraw it, and cannot tell that it exists.
    other = api["docs"].delete(f"/api/matches/{MATCH}/requests/{new_id}")
    assert other.status_code == 404
    # The home club's officer sees it (its venue), and is told it is not its to withdraw.
    seen = api["officer"].delete(f"/api/matches/{MATCH}/requests/{new_id}")
    assert seen.status_code == 403 and seen.json()["code"] == "forbidden"
    changed = api["officer"].patch(
        f"/api/matches/{MATCH}/requests/{new_id}", {"crew": 1}, content_type="application/json"
    )
    assert changed.status_code == 403
    gone = api["bt"].delete(f"/api/matches/{MATCH}/requests/{new_id}")
    assert gone.status_code == 204
    assert m.AuditEntry.objects.filter(action="withdraw", target=new_id).count() == 1


@pytest.mark.parametrize(
    ("body", "status", "path"),
    [
        ({"zone": "tunel", "phases": ["post-match"], "crew": 2}, 400, "zone"),
        ({"zone": "tunnel", "phases": ["post-match"], "crew": 0}, 400, "crew"),
        ({"zone": "tunnel", "phases": ["postmatch"], "crew": 1}, 400, "phases[0]"),
        ({"zone": "tunnel", "phases": ["post-match"]}, 400, "crew"),
        ({"zone": "tunnel", "phases": ["post-match"], "crew": 1, "by": "sky-sports"}, 403, ""),
        (
            {
                "zone": "away-dressing-room",
                "phases": ["post-match"],
                "crew": 1,
                "consent": ["man-city"],
            },
            403,
            "consent",
        ),
    ],
)
def test_bad_submissions(api, body, status, path) -> None:
    response = api["bt"].post(
        f"/api/matches/{MATCH}/requests", body, content_type="application/json"
    )
    assert response.status_code == status
    assert response.json()["path"] == path


def test_after_the_deadline_requests_are_closed(api) -> None:
    store.load(parse_text((ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text(), "x"))
    response = api["bt"].post(
        "/api/matches/mun-mci-2017-12-10/requests",
        {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1},
        content_type="application/json",
    )
    assert response.status_code == 409 and "deadline" in response.json()["message"]


def test_decide_gives_the_cli_answer_and_media_see_their_own(api) -> None:
    assert api["bt"].post(f"/api/matches/{MATCH}/decide").status_code == 403
    assert api["away"].post(f"/api/matches/{MATCH}/decide").status_code == 403
    decided = api["officer"].post(f"/api/matches/{MATCH}/decide")
    assert decided.status_code == 200
    expected = decide_document(store.export(MATCH))["matches"][0]
    assert decided.json() == expected
    docs = api["docs"].get(f"/api/matches/{MATCH}/decisions").json()
    assert [d["request"] for d in docs["decisions"]] == ["r24", "r25"]
    assert docs["decisions"][0]["reasons"][0]["code"] == "capacity"
    assert api["steward"].get(f"/api/matches/{MATCH}/decisions").status_code == 403
    assert m.DecisionRun.objects.filter(match__key=MATCH).count() == 1
    assert m.Decision.objects.filter(run__match__key=MATCH, status="refused").count() == 1


def test_decisions_before_any_decide_are_404(api) -> None:
    response = api["admin"].get(f"/api/matches/{MATCH}/decisions")
    assert response.status_code == 404 and response.json()["code"] == "not-found"


def post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(f"/api/matches/{MATCH}{path}", body or {}, content_type="application/json")


def test_published_grants_hold_and_a_later_request_gets_the_places_left(api) -> None:
    assert post(api["officer"], "/publish").status_code == 409  # nothing decided yet
    post(api["officer"], "/decide")
    assert post(api["bt"], "/publish").status_code == 403
    published = post(api["officer"], "/publish").json()["published"]
    assert "r01" in published and "r24" not in published
    assert m.Request.objects.get(match__key=MATCH, key="r01").locked
    late = post(api["admin"], "/requests", {"by": "sky-sports", "zone": "tunnel",
                                            "phases": ["post-match"], "crew": 2})  # fmt: skip
    assert late.status_code == 201
    decided = post(api["officer"], "/decide").json()
    status = {d["request"]: d["status"] for d in decided["decisions"]}
    assert status[late.json()["id"]] == "refused"
    assert all(status[r] == "granted" for r in published)
    tunnel = next(
        u for u in decided["usage"] if (u["zone"], u["phase"]) == ("tunnel", "post-match")
    )
    assert tunnel["used"] <= tunnel["capacity"]


def test_revoke_needs_a_reason_and_a_published_grant(api) -> None:
    post(api["officer"], "/decide")
    post(api["officer"], "/publish")
    assert post(api["officer"], "/requests/r01/revoke", {"reason": " "}).status_code == 400
    assert post(api["officer"], "/requests/r24/revoke", {"reason": "x"}).status_code == 409
    assert post(api["away"], "/requests/r01/revoke", {"reason": "x"}).status_code == 403
    done = post(api["officer"], "/requests/r01/revoke", {"reason": "crew replaced"})
    assert done.status_code == 200
    assert not m.Request.objects.get(match__key=MATCH, key="r01").locked
    entry = m.AuditEntry.objects.get(action="revoke", target="r01")
    assert entry.after == {"locked": False, "reason": "crew replaced"} and entry.user is not None


def test_only_the_occupant_club_consents_to_its_dressing_room(api) -> None:
    assert post(api["officer"], "/requests/r24/consent", {"given": False}).status_code == 403
    assert post(api["away"], "/requests/r24/consent", {"given": False}).status_code == 200
    assert not m.Request.objects.get(match__key=MATCH, key="r24").consent.exists()
    decided = post(api["officer"], "/decide").json()
    r24 = next(d for d in decided["decisions"] if d["request"] == "r24")
    assert "no-consent" in {r["code"] for r in r24["reasons"]}
    assert post(api["away"], "/requests/r24/consent", {"given": True}).status_code == 200
    assert post(api["admin"], "/requests/r01/consent", {"given": True}).status_code == 409
    assert post(api["bt"], "/requests/r24/consent", {"given": True}).status_code == 404


def test_consent_taken_back_from_a_published_grant_is_listed_at_once(api) -> None:
    """The grant stands (the run stays current: nothing to decide again), and every list,
    kept across calls by the match's version, shows the consent as it is now."""
    post(api["admin"], "/decide")
    assert post(api["admin"], "/publish").status_code == 200
    assert m.Request.objects.get(match__key=MATCH, key="r26").locked

    def r26() -> dict[str, Any]:
        listed = api["officer"].get(f"/api/matches/{MATCH}/requests").json()["items"]
        return next(r for r in listed if r["id"] == "r26")

    assert r26()["consent"] == ["man-united"]
    assert post(api["officer"], "/requests/r26/consent", {"given": False}).status_code == 200
    assert "consent" not in r26() and r26()["locked"]
    assert api["admin"].get(f"/api/matches/{MATCH}/decisions").status_code == 200
    assert post(api["admin"], "/publish").status_code == 200  # the run is still current


def test_consent_to_a_request_one_may_not_see_is_not_found_like_an_absent_one(api) -> None:
    for who, request_id in [("away", "r01"), ("away", "r26"), ("bt", "r24"), ("away", "r99")]:
        response = post(api[who], f"/requests/{request_id}/consent", {"given": True})
        assert (response.status_code, response.json()["code"]) == (404, "not-found"), request_id
    assert post(api["docs"], "/requests/r24/consent", {"given": False}).status_code == 403
    assert not m.AuditEntry.objects.filter(action="consent").exists()
    seen = api["away"].get(f"/api/matches/{MATCH}/requests").json()["items"]
    assert [r["id"] for r in seen] == ["r24"]


def test_stewards_log_incidents_and_everyone_sees_who_caught_them(api) -> None:
    body = {"zone": "tunnel", "minute": 130, "what": "a row in the tunnel"}
    assert post(api["bt"], "/incidents", body).status_code == 403
    assert post(api["steward"], "/incidents", {"zone": "tunel", "minute": 1}).status_code == 400
    both = post(
        api["steward"], "/incidents", {"zone": "tunnel", "minute": 1, "at": "2099-12-10T16:31:00Z"}
    )
    assert both.status_code == 400
    created = post(api["steward"], "/incidents", body)
    assert created.status_code == 201

    def caught(who: str) -> dict[str, list[dict[str, object]]]:
        seen = api[who].get(f"/api/matches/{MATCH}/coverage").json()
        return {i["incident"]: i["covered_by"] for i in seen["incidents"]}

    assert caught("bt")["dressing-room-altercation"] == []
    assert {s["source"] for s in caught("bt")[created.json()["id"]]} == {"camera"}  # not decided
    assert {s["source"] for s in caught("officer")[created.json()["id"]]} >= {"request"}
    post(api["officer"], "/decide")
    bt_crew = {s["org"] for s in caught("bt")[created.json()["id"]] if s["source"] == "request"}
    assert bt_crew == {"bt-sport"}  # its own grant, as decided; the others once published
    post(api["officer"], "/publish")
    assert len({s["org"] for s in caught("bt")[created.json()["id"]]}) > 2


def test_what_if_over_the_api_equals_the_cli(api) -> None:
    from pitchpass.core import what_if_document

    body = {"grant": ["r24"], "capacity": {"tunnel@post-match": 48}}
    assert post(api["bt"], "/what-if", body).status_code == 403
    answer = post(api["officer"], "/what-if", body)
    assert answer.status_code == 200
    expected = what_if_document(
        store.export(MATCH), grant=["r24"], capacity={"tunnel@post-match": 48}
    )
    got = answer.json()
    assert got.pop("only_if") == []  # the API's own: grants that set something aside
    assert got == expected
    bad = post(api["officer"], "/what-if", {"grant": ["r99"]})
    assert bad.status_code == 400 and bad.json()["path"] == "grant"
    post(api["officer"], "/decide")
    post(api["officer"], "/publish")
    full = post(api["officer"], "/what-if", {"grant": ["r24"], "capacity": {"tunnel@arrival": 9}})
    assert full.status_code == 409 and full.json()["code"] == "no-room"
    assert full.json()["path"] == "grant"  # the body's field, not a --flag
    assert full.json()["message"].startswith("r24: tunnel, post-match: 46 of 46 places")
    too_small = post(api["officer"], "/what-if", {"capacity": {"tunnel@post-match": 9}})
    assert too_small.status_code == 400 and too_small.json()["path"] == "capacity"
    assert "published grants and grants by hand alone need 46 places" in too_small.json()["message"]


def test_export_over_the_api_is_the_scenario(api) -> None:
    assert api["bt"].get(f"/api/matches/{MATCH}/export").status_code == 403
    response = api["officer"].get(f"/api/matches/{MATCH}/export")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/yaml")
    assert parse_text(response.content.decode(), "x.yaml") == store.export(MATCH)


def statuses_of(output: dict[str, Any]) -> dict[str, str]:
    return {d["request"]: d["status"] for d in output["decisions"]}


def test_overrides_with_a_reason_change_the_proposal(api) -> None:
    assert post(api["officer"], "/requests/r24/override",
                {"status": "granted", "reason": "x"}).status_code == 409  # fmt: skip
    post(api["officer"], "/decide")
    no_reason = post(api["officer"], "/requests/r24/override", {"status": "granted", "reason": ""})
    assert no_reason.status_code == 400 and no_reason.json()["path"] == "reason"
    assert post(api["bt"], "/requests/r24/override",
                {"status": "granted", "reason": "x"}).status_code == 403  # fmt: skip
    assert post(api["officer"], "/requests/r99/override",
                {"status": "granted", "reason": "x"}).status_code == 404  # fmt: skip
    why = "the documentary is part of the story"
    granted = post(api["officer"], "/requests/r24/override", {"status": "granted", "reason": why})
    assert granted.status_code == 200
    assert statuses_of(granted.json())["r24"] == "granted"
    assert statuses_of(granted.json())["r23"] == "refused"  # bumped, as what-if --grant says
    refused = post(api["officer"], "/requests/r01/override",
                   {"status": "refused", "reason": "crew not accredited"}).json()  # fmt: skip
    after = statuses_of(refused)
    assert after["r01"] == "refused" and after["r24"] == "granted" and after["r23"] == "granted"
    r01 = next(d for d in refused["decisions"] if d["request"] == "r01")
    assert r01["reasons"] == [{"code": "override", "text": "crew not accredited"}]
    assert [d["request"] for d in refused["decisions"]] == [
        r["id"] for r in api["admin"].get(f"/api/matches/{MATCH}/requests").json()["items"]
    ]
    shown = api["officer"].get(f"/api/matches/{MATCH}/decisions").json()
    assert {d["state"] for d in shown["decisions"]} == {"proposed"}  # nothing published yet
    stripped = [{k: v for k, v in d.items() if k != "state"} for d in shown["decisions"]]
    assert shown | {"decisions": stripped} == refused | {"waiting": []}
    assert m.AuditEntry.objects.filter(action="override").count() == 2


def test_an_override_cannot_push_past_published_grants(api) -> None:
    post(api["officer"], "/decide")
    post(api["officer"], "/publish")
    response = post(api["officer"], "/requests/r24/override", {"status": "granted", "reason": "x"})
    assert response.status_code == 409 and response.json()["code"] == "no-room"
    message = response.json()["message"]
    assert message.startswith("r24: tunnel, post-match: 46 of 46 places taken by 23 published")
    assert "capacity tunnel@post-match=48" in message  # the way forward, in numbers
    # What-if's grant is the same grant by hand: the same code, word for word.
    what_if = post(api["officer"], "/what-if", {"grant": ["r24"]})
    assert what_if.status_code == 409 and what_if.json() == response.json() | {"path": "grant"}
    # Taking out a published crew in the same what-if frees its places: r24 fits then.
    freed = post(api["officer"], "/what-if", {"grant": ["r24"], "refuse": ["r23"]})
    assert freed.status_code == 200
    assert {"request": "r24", "before": "refused", "after": "granted"} in freed.json()["changes"]
    both = post(api["officer"], "/what-if", {"grant": ["r24"], "refuse": ["r24"]})
    assert both.status_code == 400 and both.json()["path"] == "refuse"
    # With the places the message names, both work.
    more = post(
        api["officer"], "/what-if", {"grant": ["r24"], "capacity": {"tunnel@post-match": 48}}
    )
    assert more.status_code == 200 and more.json()["changes"][0]["after"] == "granted"


def test_a_grant_without_the_clubs_consent_is_only_if_in_what_if_and_refused_by_hand(
    api,
) -> None:
    """What-if answers as if Manchester City had consented and says "only if"; the
    override refuses the grant, with the same reason (docs/scenario-extensions.md)."""
    post(api["away"], "/requests/r24/consent", {"given": False})
    post(api["officer"], "/decide")
    what_if = post(api["officer"], "/what-if", {"grant": ["r24"]}).json()
    assert [c["request"] for c in what_if["changes"] if c["after"] == "granted"] == ["r24"]
    [only] = what_if["only_if"]
    assert only["request"] == "r24" and [r["code"] for r in only["reasons"]] == ["no-consent"]
    override = post(api["officer"], "/requests/r24/override", {"status": "granted", "reason": "x"})
    assert override.status_code == 409 and override.json()["code"] == "cannot-override"
    assert only["reasons"][0]["text"] in override.json()["message"]


def test_ids_of_media_are_their_own_so_a_clash_tells_of_nobody_else(api) -> None:
    body = {"id": "r01", "zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    first = post(api["bt"], "/requests", body)
    assert first.status_code == 201 and first.json()["id"] == "bt-sport.r01"  # r01 is Sky's
    again = post(api["bt"], "/requests", body)
    assert again.status_code == 409 and again.json()["path"] == "id"
    generated = post(api["bt"], "/requests", {**body, "id": None}).json()["id"]
    assert generated.startswith("bt-sport.")


def test_a_run_made_before_a_change_cannot_be_published(api) -> None:
    post(api["officer"], "/decide")
    api["docs"].delete(f"/api/matches/{MATCH}/requests/r25")
    again = post(api["docs"], "/requests",
                 {"id": "r25", "zone": "tunnel", "phases": ["post-match"], "crew": 2})  # fmt: skip
    assert again.status_code == 201
    stale = post(api["officer"], "/publish")
    assert stale.status_code == 409 and stale.json()["code"] == "stale-run"
    assert not m.Request.objects.filter(match__key=MATCH, locked=True).exists()
    post(api["officer"], "/decide")
    assert post(api["officer"], "/publish").status_code == 200
    tunnel = next(
        u for u in post(api["officer"], "/decide").json()["usage"]
        if (u["zone"], u["phase"]) == ("tunnel", "post-match")
    )  # fmt: skip
    assert tunnel["used"] <= tunnel["capacity"]


def test_a_revoke_is_match_day_record_not_a_reason_to_decide_again(api) -> None:
    """A revoke is written in the match day's record (core/match_day/record.py): the run stays
    current, a publish after it publishes nothing more, and the revoked grant stays
    revoked (issue 26: match-day events never ask for "decide again")."""
    post(api["officer"], "/decide")
    post(api["officer"], "/publish")
    post(api["officer"], "/requests/r02/revoke", {"reason": "crew swapped"})
    again = post(api["officer"], "/publish")
    assert again.status_code == 200 and again.json()["published"] == []
    assert not m.Request.objects.get(match__key=MATCH, key="r02").locked
    shown = api["officer"].get(f"/api/matches/{MATCH}/decisions").json()
    r02 = next(d for d in shown["decisions"] if d["request"] == "r02")
    assert (r02["status"], r02["state"]) == ("revoked", "revoked")


def test_a_published_grant_is_revoked_not_overridden(api) -> None:
    post(api["officer"], "/decide")
    post(api["officer"], "/publish")
    response = post(api["officer"], "/requests/r01/override", {"status": "refused", "reason": "x"})
    assert response.status_code == 409
    assert m.Request.objects.get(match__key=MATCH, key="r01").locked


def test_an_incident_needs_no_description(api) -> None:
    assert (
        post(api["steward"], "/incidents", {"zone": "pitch-side", "minute": 3}).status_code == 201
    )


def test_loading_a_file_that_drops_a_zone_and_its_requests() -> None:
    document = future_derby()
    store.load(document)
    document["venues"][0]["zones"] = [
        z for z in document["venues"][0]["zones"] if z["id"] != "flash-interview"
    ]
    document["requests"] = [r for r in document["requests"] if r["zone"] != "flash-interview"]
    store.load(document)
    assert not m.Zone.objects.filter(key="flash-interview").exists()


def test_coverage_agrees_with_overrides_and_hides_others_request_ids(api) -> None:
    post(api["officer"], "/decide")
    post(api["officer"], "/requests/r24/override", {"status": "granted", "reason": "film it"})
    seen = {
        i["incident"]: i["covered_by"]
        for i in api["officer"].get(f"/api/matches/{MATCH}/coverage").json()["incidents"]
    }
    assert [s["id"] for s in seen["dressing-room-altercation"]] == ["r24"]

    def as_bt() -> list[dict[str, object]]:
        shown = api["bt"].get(f"/api/matches/{MATCH}/coverage").json()["incidents"]
        return next(i for i in shown if i["incident"] == "dressing-room-altercation")["covered_by"]

    assert as_bt() == []  # another's proposal is not BT's to learn of
    post(api["officer"], "/publish")
    assert as_bt() == [{"source": "request", "id": None, "org": "man-city-documentary"}]
    as_docs = api["docs"].get(f"/api/matches/{MATCH}/decisions").json()["incidents"]
    mine = next(i for i in as_docs if i["incident"] == "dressing-room-altercation")
    assert mine["covered_by"][0]["id"] == "r24"


def test_coverage_says_when_it_is_as_if_decided_now(api) -> None:
    def now() -> bool:
        return api["bt"].get(f"/api/matches/{MATCH}/coverage").json()["if_decided_now"]

    def officer_now() -> bool:
        return api["officer"].get(f"/api/matches/{MATCH}/coverage").json()["if_decided_now"]

    assert now() is True and officer_now() is True  # no run yet
    post(api["officer"], "/decide")
    assert now() is False and officer_now() is False  # the run's own decisions
    post(api["steward"], "/incidents", {"zone": "tunnel", "minute": 3})
    assert officer_now() is False  # an incident logged since changes no decision
    post(api["docs"], "/requests", {"zone": "pitch-side", "phases": ["half-time"], "crew": 1})
    assert officer_now() is True  # a request waiting: the crews if decided now
    assert now() is False  # BT sees what was decided: another's request is not its to know


def test_the_api_takes_stoppage_time_as_the_referee_shows_it(api) -> None:
    """As the board's form takes them (the core's football minutes, tests/core/test_minutes):
    "45+2" is the clock's 46 in the default phases, "90+3" the clock's 109, "87'" (as the
    match-day header shows it) the clock's 103. A plain minute stays a number: the string
    "3" is refused, as true is."""
    for typed, clock in (("45+2", 46), ("90+3", 109), ("87'", 103)):
        logged = post(api["steward"], "/incidents", {"zone": "tunnel", "minute": typed})
        assert logged.status_code == 201, logged.json()
        exported = yaml.safe_load(api["admin"].get(f"/api/matches/{MATCH}/export").content)
        found = {i["id"]: i for i in exported["incidents"]}
        assert found[logged.json()["id"]]["minute"] == clock
    for wrong in ("3", "45+", "+2", True, "45+2; drop", "87''", "'87"):
        refused = post(api["steward"], "/incidents", {"zone": "tunnel", "minute": wrong})
        assert refused.status_code == 400 and refused.json()["path"].startswith("minute")


def test_a_submission_checked_before_a_load_moved_the_match_is_checked_again(
    api, monkeypatch
) -> None:
    """A submission is checked against the match's frame before it takes the lock; a
    load or an admin's edit that lands in between (here: kick-off moved to the past) is
    seen under the lock, and the request is judged by the match as it is then."""
    from datetime import UTC, datetime

    from pitchpass.web.services import entries

    taken = entries.lock_match

    def edited_in_between(match: m.Match) -> m.Match:
        m.Match.objects.filter(key=MATCH).update(kickoff=datetime(2000, 1, 1, tzinfo=UTC))
        store.frames_changed()
        return taken(match)

    monkeypatch.setattr(entries, "lock_match", edited_in_between)
    before = m.Match.objects.values_list("version", flat=True).get(key=MATCH)
    requests = m.Request.objects.count()
    sent = post(api["bt"], "/requests", {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1})
    assert sent.status_code == 409 and sent.json()["code"] == "deadline-passed"
    assert m.Request.objects.count() == requests
    assert m.Match.objects.values_list("version", flat=True).get(key=MATCH) == before


def test_a_list_read_again_is_read_back_until_the_match_changes(api) -> None:
    """A broadcaster's list, asked again, is read back from Django's cache: the token and
    the match's own row are read (its version, its frame), not the requests; anything
    that changes a request it shows (a submission, a consent, a publish, a withdrawal)
    or the match's frame (an admin's edit of a zone) is in the very next answer."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def listed(client: Client) -> tuple[list[dict[str, Any]], int]:
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"/api/matches/{MATCH}/requests")
        assert answer.status_code == 200
        return answer.json()["items"], len(queries.captured_queries)

    from django.core.cache import cache

    listed(api["docs"])  # the token's first use is written down (its last use)
    cache.clear()
    first, cold = listed(api["docs"])
    again, warm = listed(api["docs"])
    assert again == first and warm == 2 < cold, (cold, warm)  # the token; the match's row
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    sent = post(api["docs"], "/requests", body)
    new_id = sent.json()["id"]
    assert [r["id"] for r in listed(api["docs"])[0]] == [r["id"] for r in first] + [new_id]
    api["bt"].get(f"/api/matches/{MATCH}/requests")  # another view, kept apart
    assert all(r["by"] == "man-city-documentary" for r in listed(api["docs"])[0])
    post(api["admin"], "/decide")
    post(api["admin"], "/publish")
    published = {r["id"]: r.get("locked", False) for r in listed(api["docs"])[0]}
    stored = store.export(MATCH)["requests"]
    theirs = [r for r in stored if r["by"] == "man-city-documentary"]
    assert published == {r["id"]: r.get("locked", False) for r in theirs}
    assert any(published.values())
    from test_admin import zone_form

    zone = m.Zone.objects.get(key="mixed-zone")
    admin = Client()
    admin.force_login(m.Profile.objects.get(role="admin").user)
    renamed = zone_form(zone, key="interview-zone")
    assert admin.post(f"/admin/pitchpass/zone/{zone.pk}/change/", renamed).status_code == 302
    assert "interview-zone" in {r["zone"] for r in listed(api["docs"])[0]}


def test_a_load_after_a_submission_is_seen_by_the_next_one(api) -> None:
    """A load or an admin's edit since the last submission (kick-off moved to the past)
    is seen by the very next one."""
    from datetime import UTC, datetime

    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    assert post(api["bt"], "/requests", {**body, "id": "before"}).status_code == 201
    m.Match.objects.filter(key=MATCH).update(kickoff=datetime(2000, 1, 1, tzinfo=UTC))
    store.frames_changed()
    requests = m.Request.objects.count()
    for wanted in ({"id": "after"}, {}):  # its id given, or not
        sent = post(api["bt"], "/requests", {**body, **wanted})
        assert sent.status_code == 409 and sent.json()["code"] == "deadline-passed"
    assert m.Request.objects.count() == requests


def test_a_zone_renamed_between_the_check_and_the_write_is_a_409(api, monkeypatch) -> None:
    """An admin's edit that lands after the request was checked against the match's
    frame, before its zone's row is read, is told as a conflict to send again (never a
    500), and nothing is written."""
    from pitchpass.web.services import entries

    real = entries.frame_of

    def then_renamed(match: m.Match) -> Any:
        frame = real(match)
        m.Zone.objects.filter(key="mixed-zone").update(key="interview-zone")
        return frame

    monkeypatch.setattr(entries, "frame_of", then_renamed)
    requests = m.Request.objects.count()
    sent = post(api["bt"], "/requests", {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1})
    assert sent.status_code == 409 and sent.json()["code"] == "conflict"
    assert m.Request.objects.count() == requests
