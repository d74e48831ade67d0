"""Django admin for league admins: reference data editable (an edit moves the versions of
the matches it touches, with an audit entry); requests, decisions and the log read-only."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions
from pitchpass.web.services.accounts import do_add_user

ROOT = Path(__file__).resolve().parents[2]
MATCH = "mun-mci-2017-12-10"
pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client() -> Client:
    path = ROOT / "scenarios" / "manchester-derby-2017.yaml"
    store.load(parse_text(path.read_text(), path.name))
    do_add_user("league", "admin", None, "pw-for-tests-only-7")
    client = Client()
    client.force_login(User.objects.get(username="league"))
    return client


def test_requests_and_the_audit_log_are_read_only(admin_client) -> None:
    listing = admin_client.get("/admin/pitchpass/request/").content.decode()
    assert "r24" in listing and "/admin/pitchpass/request/add/" not in listing
    assert admin_client.get("/admin/pitchpass/request/add/").status_code == 403
    assert admin_client.get("/admin/pitchpass/auditentry/").status_code == 200


def test_a_capacity_edited_in_admin_makes_the_proposal_stale(admin_client) -> None:
    league = User.objects.get(username="league")
    decisions.do_decide(league, MATCH)
    zone = m.Zone.objects.get(key="tunnel")
    before = m.Match.objects.get(key=MATCH).version
    form = {
        "venue": zone.venue_id,
        "key": zone.key,
        "name": zone.name,
        "capacity": 48,
        "capacity_by_phase": json.dumps(zone.capacity_by_phase),
        "via": json.dumps(zone.via),
        "occupant": zone.occupant,
        "closed": json.dumps(zone.closed),
        "position": zone.position,
    }
    response = admin_client.post(f"/admin/pitchpass/zone/{zone.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert m.Match.objects.get(key=MATCH).version == before + 1
    entry = m.AuditEntry.objects.filter(action="admin").get()
    assert entry.user == league and (entry.before, entry.after) == (
        {"capacity": 46},
        {"capacity": 48},
    )
    with pytest.raises(decisions.ServiceError, match="decide again"):
        decisions.do_publish(league, MATCH)
    output = decisions.do_decide(league, MATCH)
    assert {d["status"] for d in output["decisions"]} == {"granted"}  # r24 now fits


def test_the_audit_keeps_many_to_many_values_as_sorted_ids(admin_client) -> None:
    from pitchpass.web.http.admin import _plain

    partners = list(m.Organisation.objects.filter(partner_of__isnull=False).distinct())
    assert _plain(partners[::-1]) == sorted(o.pk for o in partners) and len(partners) > 1
    assert _plain(m.Organisation.objects.filter(pk=partners[0].pk)) == [partners[0].pk]


def test_a_role_taken_away_in_admin_takes_the_admin_site_with_it(admin_client) -> None:
    do_add_user("second", "admin", None, "pw-for-tests-only-7")
    second = User.objects.get(username="second")
    profile = m.Profile.objects.get(user=second)
    form = {"user": second.pk, "role": "steward", "organisation": ""}
    response = admin_client.post(f"/admin/pitchpass/profile/{profile.pk}/change/", form)
    assert response.status_code == 302
    second.refresh_from_db()
    assert not second.is_staff and not second.is_superuser
    wrong = {
        "user": second.pk,
        "role": "media",
        "organisation": m.Organisation.objects.get(key="man-united").pk,
    }
    page = admin_client.post(f"/admin/pitchpass/profile/{profile.pk}/change/", wrong)
    assert (
        page.status_code == 200 and "a media user acts for a broadcaster" in page.content.decode()
    )


def test_deletes_in_admin_are_audited_one_by_one_and_in_bulk(admin_client) -> None:
    made = [
        m.Organisation.objects.create(key=f"extra-{n}", name="x" * 200, kind="other")
        for n in range(3)
    ]
    before = m.Match.objects.get(key=MATCH).version
    admin_client.post(f"/admin/pitchpass/organisation/{made[0].pk}/delete/", {"post": "yes"})
    admin_client.post(
        "/admin/pitchpass/organisation/",
        {"action": "delete_selected", "_selected_action": [o.pk for o in made[1:]], "post": "yes"},
    )
    assert not m.Organisation.objects.filter(key__startswith="extra-").exists()
    assert m.Match.objects.get(key=MATCH).version == before  # in no match: none to decide again
    entries = m.AuditEntry.objects.filter(action="admin")
    assert sorted(entries.values_list("target", flat=True)) == [
        "organisation extra-0", "organisation extra-1", "organisation extra-2",
    ]  # fmt: skip
    assert {e.match for e in entries} == {None}


def zone_form(zone: m.Zone, **changes: object) -> dict[str, object]:
    form: dict[str, object] = {
        "venue": zone.venue_id,
        "key": zone.key,
        "name": zone.name,
        "capacity": zone.capacity if zone.capacity is not None else "",
        "capacity_by_phase": json.dumps(zone.capacity_by_phase),
        "via": json.dumps(zone.via),
        "occupant": zone.occupant,
        "closed": json.dumps(zone.closed),
        "position": zone.position,
    }
    return form | changes


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"capacity_by_phase": '{"half-time-show": 3}'}, "half-time-show"),
        ({"closed": '["extra-time"]'}, "extra-time"),
        ({"via": '["home-dressing-room"]'}, "home-dressing-room"),
        ({"capacity_by_phase": '{"post-match": -4}'}, "-4"),
    ],
    ids=["unknown phase in capacities", "unknown closed phase", "via itself", "negative"],
)
def test_admin_refuses_zone_data_the_core_rejects(admin_client, changes, problem) -> None:
    """What was typed stays in the form, with the core's problems; nothing is saved."""
    zone = m.Zone.objects.get(key="home-dressing-room")
    stored = zone_form(zone)
    version = m.Match.objects.get(key=MATCH).version
    page = admin_client.post(f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, **changes))
    text = page.content.decode()
    assert page.status_code == 200 and "a match would no longer be a valid scenario" in text
    assert f"match {MATCH}: venues[old-trafford].zones[home-dressing-room]" in text
    assert problem in text
    zone.refresh_from_db()
    assert zone_form(zone) == stored
    assert m.Match.objects.get(key=MATCH).version == version
    assert not m.AuditEntry.objects.filter(action="admin").exists()
    value = next(iter(changes.values()))
    assert escape(str(value)) in text  # the form shows what was typed


def competition_form(competition: m.Competition, drop_phase: str = "") -> dict[str, object]:
    form: dict[str, object] = {
        "key": competition.key,
        "name": competition.name,
        "partners": [p.pk for p in competition.partners.all()],
        "deadline": competition.deadline,
        "within_tier": competition.within_tier,
        "release_before": competition.release_before,
        "accept_within": competition.accept_within,
        "no_show_limit": competition.no_show_limit,
        "release_grace": competition.release_grace,
        "release_warning": competition.release_warning,
        "release_exempt": "null",
    }
    for prefix, rows, fields in (
        ("tiers", list(competition.tiers.all()), ("name", "rule", "position")),
        ("phases", list(competition.phases.all()), ("key", "start", "end", "position")),
    ):
        form |= {f"{prefix}-TOTAL_FORMS": len(rows), f"{prefix}-INITIAL_FORMS": len(rows)}
        for n, row in enumerate(rows):
            form |= {f"{prefix}-{n}-{f}": getattr(row, f) for f in fields}
            form |= {f"{prefix}-{n}-id": row.pk, f"{prefix}-{n}-competition": competition.pk}
            if drop_phase and getattr(row, "key", None) == drop_phase:
                form[f"{prefix}-{n}-DELETE"] = "on"
    return form


def test_a_deadline_that_closes_requests_at_once_is_saved_with_a_warning(admin_client) -> None:
    from datetime import timedelta

    from django.utils import timezone

    m.Match.objects.update(kickoff=timezone.now() + timedelta(days=6))
    competition = m.Competition.objects.get()
    url = f"/admin/pitchpass/competition/{competition.pk}/change/"
    page = admin_client.post(url, competition_form(competition) | {"deadline": "8d"}, follow=True)
    assert f"Requests for {MATCH} are now closed: the deadline fell at" in page.content.decode()
    longer = admin_client.post(url, competition_form(competition) | {"deadline": "9d"}, follow=True)
    assert "are now closed" not in longer.content.decode()  # closed already before this edit
    calm = admin_client.post(url, competition_form(competition) | {"deadline": "5d"}, follow=True)
    assert "are now closed" not in calm.content.decode()
    m.Competition.objects.update(deadline="")  # none: the core's default, 5 days
    m.Match.objects.update(kickoff=timezone.now() + timedelta(days=3))  # closed already
    again = admin_client.post(url, competition_form(competition) | {"deadline": "6d"}, follow=True)
    assert "are now closed" not in again.content.decode()


def test_admin_refuses_a_release_time_the_core_refuses(admin_client) -> None:
    """The match-day fields are checked by the core's own rule (docs/scenario-extensions.md):
    a crew released before its door opens is refused with the core's message."""
    competition = m.Competition.objects.get()
    url = f"/admin/pitchpass/competition/{competition.pk}/change/"
    page = admin_client.post(url, competition_form(competition) | {"release_before": 20})
    assert "must be less than 15" in page.content.decode()
    assert m.Competition.objects.get().release_before == 5


def test_admin_refuses_removing_a_phase_that_zones_name(admin_client) -> None:
    competition = m.Competition.objects.get()
    form = competition_form(competition, drop_phase="first-half")
    response = admin_client.post(f"/admin/pitchpass/competition/{competition.pk}/change/", form)
    text = response.content.decode()
    assert "a match would no longer be a valid scenario" in text and "first-half" in text
    assert competition.phases.filter(key="first-half").exists()
    assert m.Match.objects.get(key=MATCH).version == 1  # as loaded
    assert not m.AuditEntry.objects.filter(action="admin").exists()


def test_admin_refuses_deleting_a_zone_that_another_is_reached_via(admin_client) -> None:
    tunnel = m.Zone.objects.get(key="tunnel")
    m.Request.objects.filter(zone=tunnel).delete()
    m.Camera.objects.filter(zone=tunnel).delete()
    m.Incident.objects.filter(zone=tunnel).delete()
    url = f"/admin/pitchpass/zone/{tunnel.pk}/delete/"
    page = admin_client.post(url, {"post": "yes"}, follow=True)
    assert "Not deleted: a match would no longer be a valid scenario" in page.content.decode()
    assert m.Zone.objects.filter(key="tunnel").exists()
    assert not m.AuditEntry.objects.filter(action="admin").exists()
    bulk = admin_client.post(
        "/admin/pitchpass/zone/",
        {"action": "delete_selected", "_selected_action": [tunnel.pk], "post": "yes"},
        follow=True,
    )
    assert "a match would no longer be a valid scenario" in bulk.content.decode()
    assert "Successfully deleted" not in bulk.content.decode()
    assert m.Zone.objects.filter(key="tunnel").exists()
    assert not LogEntry.objects.exists()  # Django's own admin log: nothing deleted


def test_a_problem_already_stored_does_not_block_an_unrelated_edit(admin_client) -> None:
    m.Zone.objects.filter(key="away-dressing-room").update(closed=["extra-time"])
    zone = m.Zone.objects.get(key="pitch-side")
    page = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, name="Touchline")
    )
    assert page.status_code == 302
    assert m.Zone.objects.get(key="pitch-side").name == "Touchline"
    assert m.AuditEntry.objects.filter(action="admin").count() == 1  # saved once, not twice
    spare = m.Zone.objects.create(venue=zone.venue, key="spare", name="Spare", position=99)
    gone = admin_client.post(f"/admin/pitchpass/zone/{spare.pk}/delete/", {"post": "yes"})
    assert gone.status_code == 302 and not m.Zone.objects.filter(key="spare").exists()


def test_a_clean_edit_validates_each_touched_match_once(admin_client, monkeypatch) -> None:
    from pitchpass.web.services import admin_checks

    seen: list[str] = []
    real = admin_checks.store.export

    def counted(key: str, **more: Any):  # the real function, counted
        seen.append(key)
        return real(key, **more)

    monkeypatch.setattr(admin_checks.store, "export", counted)
    zone = m.Zone.objects.get(key="pitch-side")
    page = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, name="Touchline")
    )
    assert page.status_code == 302 and seen == [MATCH]
    sky = m.Organisation.objects.get(key="sky-sports")  # a partner: in every match
    form = {"key": sky.key, "name": "Sky", "kind": sky.kind, "position": sky.position}
    renamed = admin_client.post(f"/admin/pitchpass/organisation/{sky.pk}/change/", form)
    assert renamed.status_code == 302 and seen == [MATCH]  # a name alone: nothing to check


def test_renaming_an_organisation_a_tier_rule_names_is_refused(admin_client) -> None:
    competition = m.Competition.objects.get()
    fa = m.Organisation.objects.create(key="fa-media", name="FA", kind="other", position=99)
    m.Tier.objects.create(competition=competition, name="fa", rule="org:fa-media", position=9)
    form = {"key": "fa", "name": fa.name, "kind": fa.kind, "position": fa.position}
    page = admin_client.post(f"/admin/pitchpass/organisation/{fa.pk}/change/", form)
    assert page.status_code == 200 and "fa-media" in page.content.decode()
    assert m.Organisation.objects.filter(key="fa-media").exists()


def test_moving_a_zone_with_an_old_problem_does_not_make_it_new(admin_client) -> None:
    m.Zone.objects.filter(key="away-dressing-room").update(closed=["extra-time"])
    zone = m.Zone.objects.get(key="mixed-zone")
    moved = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, position=0)
    )
    assert moved.status_code == 302
    assert m.Zone.objects.get(key="mixed-zone").position == 0


@pytest.mark.parametrize(
    ("field", "typed"),
    [
        ("capacity_by_phase", "[6]"),
        ("capacity_by_phase", "null"),
        ("capacity_by_phase", "5"),
        ("capacity_by_phase", '"x"'),
        ("capacity_by_phase", '{"post-match": "x"}'),
        ("via", "null"),
        ("via", '"tunnel"'),
        ("closed", "5"),
        ("closed", '[{"a": 1}]'),
        ("key", "a/b"),
    ],
)
def test_zone_fields_of_the_wrong_shape_are_form_errors(admin_client, field, typed) -> None:
    zone = m.Zone.objects.get(key="home-dressing-room")
    stored = zone_form(zone)
    page = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, **{field: typed})
    )
    assert page.status_code == 200 and escape(typed) in page.content.decode()
    assert "errorlist" in page.content.decode()
    zone.refresh_from_db()
    assert zone_form(zone) == stored


def test_a_zone_needs_a_capacity_and_the_json_fields_say_how_to_write_them(admin_client) -> None:
    zone = m.Zone.objects.get(key="tunnel")
    page = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, capacity="")
    ).content.decode()
    assert "Give the capacity (places at once; 0 lets no one in)" in page
    zone.refresh_from_db()
    assert zone.capacity == 46
    form = admin_client.get(f"/admin/pitchpass/zone/{zone.pk}/change/").content.decode()
    assert 'as JSON: {"post-match": 46}' in form  # help texts are not escaped by the admin
    # A zone stored with no capacity at all (not through this form) is named as broken,
    # not read as a zone of 0 places.
    m.Zone.objects.filter(pk=zone.pk).update(capacity=None)
    assert "capacity" not in next(
        z for z in store.export(MATCH)["venues"][0]["zones"] if z["id"] == "tunnel"
    )


def match_form(match: m.Match, **changes: object) -> dict[str, object]:
    form: dict[str, object] = {
        "key": match.key,
        "competition": match.competition_id,
        "venue": match.venue_id,
        "home": match.home_id,
        "away": match.away_id,
        "kickoff_0": match.kickoff.strftime("%Y-%m-%d"),
        "kickoff_1": match.kickoff.strftime("%H:%M:%S"),
        "kickoff_offset": match.kickoff_offset,
        "host": match.host_id or "",
        "position": match.position,
    }
    return form | changes


def test_a_match_is_between_clubs_and_its_offset_within_a_day(admin_client) -> None:
    match = m.Match.objects.get(key=MATCH)
    url = f"/admin/pitchpass/match/{match.pk}/change/"
    sky = m.Organisation.objects.get(key="sky-sports")
    page = admin_client.post(url, match_form(match, home=sky.pk)).content.decode()
    assert "Sky Sports is a broadcaster, not a club" in page
    page = admin_client.post(url, match_form(match, kickoff_offset=2000)).content.decode()
    assert "minutes east of UTC, between -1439 and 1439" in page
    edge = match_form(match, kickoff_0="9999-12-31", kickoff_1="23:00:00", kickoff_offset=60)
    page = admin_client.post(url, edge).content.decode()
    assert "too near the end of the calendar for that offset" in page
    match.refresh_from_db()
    assert (match.home.key, match.kickoff_offset) == ("man-united", 0)
    saved = admin_client.post(url, match_form(match, kickoff_offset=60))
    assert saved.status_code == 302
    assert store.export(MATCH)["matches"][0]["kickoff"].endswith("+01:00")


def test_closing_a_zone_over_published_grants_is_refused(admin_client) -> None:
    officer = do_add_user("ed", "officer", "man-united", "pw-for-tests-only-7")
    decisions.do_decide(officer, MATCH)
    decisions.do_publish(officer, MATCH)
    zone = m.Zone.objects.get(key="tunnel")
    page = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, closed='["post-match"]')
    ).content.decode()
    assert "a match would no longer be a valid scenario" in page
    assert (
        "requests[r01]: r01 is a published grant there: Players&#x27; tunnel (tunnel) is closed"
        " at post-match;" in page
    )
    zone.refresh_from_db()
    assert zone.closed == []
    done = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, closed='["half-time"]')
    )
    assert done.status_code == 302  # no published grant in the tunnel at half-time


def test_an_incident_logged_by_mistake_is_deleted_in_the_admin_and_audited(admin_client) -> None:
    incident = m.Incident.objects.get(key="dressing-room-altercation")
    version = incident.match.version
    assert admin_client.get(f"/admin/pitchpass/incident/{incident.pk}/change/").status_code == 200
    assert admin_client.get("/admin/pitchpass/incident/add/").status_code == 403
    done = admin_client.post(f"/admin/pitchpass/incident/{incident.pk}/delete/", {"post": "yes"})
    assert done.status_code == 302 and not m.Incident.objects.filter(pk=incident.pk).exists()
    entry = m.AuditEntry.objects.get(action="admin", target="incident dressing-room-altercation")
    assert entry.match.key == MATCH and entry.after is None
    assert m.Match.objects.get(key=MATCH).version == version  # it decides nothing: no re-decide
    assert m.AuditEntry.objects.filter(action="admin").count() == 1  # that match only


def test_an_incident_id_made_up_is_never_one_deleted(admin_client) -> None:
    from pitchpass.web.services import entries

    steward = do_add_user("st", "steward", None, "pw-for-tests-only-7")
    body = {"zone": "tunnel", "minute": 3}
    assert entries.do_log_incident(steward, MATCH, body) == "incident-1"
    gone = m.Incident.objects.get(key="incident-1")
    admin_client.post(f"/admin/pitchpass/incident/{gone.pk}/delete/", {"post": "yes"})
    assert entries.do_log_incident(steward, MATCH, body) == "incident-2"
    # One that came with a file (named as the app would name one), deleted: the same.
    match = m.Match.objects.get(key=MATCH)
    loaded = store.add_incident(match, {"id": "incident-3", "zone": "tunnel", "minute": 5})
    admin_client.post(f"/admin/pitchpass/incident/{loaded.pk}/delete/", {"post": "yes"})
    assert entries.do_log_incident(steward, MATCH, body) == "incident-4"


def test_renaming_or_adding_an_organisation_leaves_the_runs_current(admin_client) -> None:
    officer = do_add_user("ed", "officer", "man-united", "pw-for-tests-only-7")
    decisions.do_decide(officer, MATCH)
    version = m.Match.objects.get(key=MATCH).version
    bbc = m.Organisation.objects.get(key="bbc-sport")
    form = {"key": bbc.key, "name": "BBC", "kind": bbc.kind, "position": bbc.position}
    renamed = admin_client.post(f"/admin/pitchpass/organisation/{bbc.pk}/change/", form)
    added = admin_client.post(
        "/admin/pitchpass/organisation/add/",
        {"key": "newco", "name": "Newco", "kind": "producer", "position": 99},
    )
    assert renamed.status_code == added.status_code == 302
    assert m.Organisation.objects.get(key="bbc-sport").name == "BBC"
    assert m.Match.objects.get(key=MATCH).version == version  # publish needs no new decide
    assert m.AuditEntry.objects.filter(action="admin", target="organisation bbc-sport").exists()


def test_a_submission_is_checked_against_the_match_as_an_admin_left_it(admin_client) -> None:
    """What a request is checked against is kept between submissions (issue 10: no
    export per submission) and moves on with an admin's edit: a zone renamed here is
    unknown under its old id to the very next submission."""
    from datetime import UTC, datetime

    from pitchpass.web.errors import ServiceError
    from pitchpass.web.services import entries

    league = User.objects.get(username="league")
    before_deadline = datetime(2017, 11, 1, tzinfo=UTC)

    def submit(zone: str) -> str:
        body = {"by": "bt-sport", "zone": zone, "phases": ["post-match"], "crew": 1}
        return entries.do_submit_request(league, MATCH, body, before_deadline)

    submit("mixed-zone")  # the match's frame is kept now
    zone = m.Zone.objects.get(key="mixed-zone")
    edited = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, key="mixed")
    )
    assert edited.status_code == 302
    with pytest.raises(ServiceError, match=r'unknown zone of the match.s venue "mixed-zone"'):
        submit("mixed-zone")
    assert m.Request.objects.get(key=submit("mixed")).zone.key == "mixed"


def test_an_edit_or_a_load_moves_every_matchs_frame(admin_client) -> None:
    """Venues, zones and competitions are shared by matches an edit or a file does not
    name (a zone moved to another venue leaves its old venue's matches too): every
    match's kept frame moves on with any of them (independent review of issue 10)."""
    night = ROOT / "scenarios" / "european-night.yaml"
    store.load(parse_text(night.read_text(), night.name))
    frames = dict(m.Match.objects.values_list("key", "frame"))
    assert len(frames) > 1
    zone = m.Zone.objects.get(key="pitch-side", venue__matches__key=MATCH)
    edited = admin_client.post(
        f"/admin/pitchpass/zone/{zone.pk}/change/", zone_form(zone, name="Touchline")
    )
    assert edited.status_code == 302
    after_edit = dict(m.Match.objects.values_list("key", "frame"))
    assert all(after_edit[key] > frame for key, frame in frames.items())
    seed = ROOT / "scenarios" / "manchester-derby-2017.yaml"
    store.load(parse_text(seed.read_text(), seed.name))  # names one match of them
    after_load = dict(m.Match.objects.values_list("key", "frame"))
    assert all(after_load[key] > frame for key, frame in after_edit.items())


def test_the_admins_index_names_its_lists_in_plain_english(admin_client) -> None:
    page = admin_client.get("/admin/").content.decode()
    assert "Passes" in page and "Webhook deliveries" in page
    assert "Passs" not in page and "deliverys" not in page


def test_the_broadcasters_televising_a_match_are_edited_in_the_admin_and_checked(
    admin_client,
) -> None:
    """`televised_by` (docs/section-k.md) is the desk's to change: a list of broadcasters
    by id; one that is nobody, no broadcaster or not a list is refused with the core's
    reason, and nothing is saved."""
    match = m.Match.objects.get(key=MATCH)
    url = f"/admin/pitchpass/match/{match.pk}/change/"
    for wrong, said in (
        ('["nobody"]', "nobody"),
        ('["man-city"]', "not a broadcaster"),
        ('{"bt-sport": 1}', "a list"),
    ):
        answer = admin_client.post(url, match_form(match, televised_by=wrong))
        assert answer.status_code == 200, wrong
        assert said in answer.content.decode(), wrong
        match.refresh_from_db()
        assert match.televised_by is None
    version = match.version
    saved = admin_client.post(url, match_form(match, televised_by='["bt-sport", "sky-sports"]'))
    assert saved.status_code == 302
    match.refresh_from_db()
    assert match.version > version  # runs made before are stale: the objective changed
    assert store.export(MATCH)["matches"][0]["televised_by"] == ["bt-sport", "sky-sports"]
    cleared = admin_client.post(url, match_form(match, televised_by="null"))
    assert cleared.status_code == 302
    assert "televised_by" not in store.export(MATCH)["matches"][0]  # the host televises
