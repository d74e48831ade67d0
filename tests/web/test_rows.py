"""rows.insert writes a row as the ORM's own INSERT would: read back, every field is the
same as a twin saved by the ORM (JSON, times with their zone, booleans, keys)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.forms.models import model_to_dict
from test_store import SCENARIOS, document

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import rows, store

pytestmark = pytest.mark.django_db


def test_a_request_and_an_audit_entry_read_back_as_the_orm_writes_them() -> None:
    store.load(document(SCENARIOS[0]))
    match = m.Match.objects.first()
    zone = m.Zone.objects.filter(venue=match.venue).first()
    by = m.Organisation.objects.first()
    when = datetime(2099, 5, 1, 12, 30, 15, 123456, tzinfo=timezone(timedelta(hours=2)))
    made = {}
    for how in ("orm", "rows"):
        request = m.Request(
            match=match, key=f"twin-{how}", by=by, zone=zone, phases=["pre-match", "ht"],
            crew=3, cameras=2, submitted=when, submitted_offset=120, locked=True,
            revoked="", position=9000, changed_in=7, consent_refused=True,
        )  # fmt: skip
        entry = m.AuditEntry(
            when=when, user=None, username="(command line)", action="submit", match=match,
            target=f"twin-{how}", before=None, after={"a": [1, 2.5, "é"], "b": None},
            digest="d" * 64,
        )  # fmt: skip
        if how == "orm":
            request.save()
            entry.save()
        else:
            rows.insert(request)
            rows.insert(entry)
        made[how] = (request.pk, entry.pk)
    for model, n in ((m.Request, 0), (m.AuditEntry, 1)):
        orm, fast = (model_to_dict(model.objects.get(pk=made[how][n])) for how in ("orm", "rows"))
        for differs in ("id", "key", "target"):
            orm.pop(differs, None), fast.pop(differs, None)
        assert fast == orm
    assert m.AuditEntry.objects.get(pk=made["rows"][1]).when == when.astimezone(UTC)


def test_a_computed_field_is_read_in_the_statement() -> None:
    """The request's place is the match's last plus one, read by the INSERT itself."""
    store.load(document(SCENARIOS[0]))
    match = m.Match.objects.first()
    last = max(match.requests.values_list("position", flat=True))
    source = match.requests.first()
    row = m.Request(
        match=match, key="placed", by=source.by, zone=source.zone, phases=list(source.phases),
        crew=1, submitted=source.submitted,
    )  # fmt: skip
    store.add_request(row)
    assert m.Request.objects.get(pk=row.pk).position == last + 1


def test_a_match_read_by_lookups_is_the_row_the_orm_reads() -> None:
    """Every field, its competition's too (JSON, times, keys), for every match of every
    scenario; an unknown key is None."""
    from pitchpass.web.persistence import lookups

    for name in SCENARIOS:
        store.load(document(name))
    assert m.Match.objects.count() > 1
    for match in m.Match.objects.select_related("competition"):
        m.Match.objects.filter(pk=match.pk).update(web_changes=["submit", "é"])
        match.refresh_from_db()
        for joined in (False, True):
            read = lookups.match_by_key(match.key, joined)
            assert read is not None and model_to_dict(read) == model_to_dict(match)
            assert read.kickoff == match.kickoff and read.web_changes == ["submit", "é"]
            if joined:
                assert model_to_dict(read.competition) == model_to_dict(match.competition)
    assert lookups.match_by_key("no-such-match") is None


def test_one_match_is_seen_as_the_list_of_matches_has_it() -> None:
    """access.sees (a match read by its key) and access.visible_matches (the list) hold
    the same matches for every role and organisation."""
    from django.contrib.auth.models import User

    from pitchpass.web.services import access

    for name in SCENARIOS:
        store.load(document(name))
    clubs = list(m.Organisation.objects.filter(kind="club"))
    users = [("admin", None), ("media", m.Organisation.objects.exclude(kind="club").first()),
             ("steward", None), *(("officer", club) for club in clubs)]  # fmt: skip
    assert len(clubs) >= 2
    for n, (role, organisation) in enumerate(users):
        user = User.objects.create(username=f"u{n}")
        m.Profile.objects.create(user=user, role=role, organisation=organisation)
        listed = {match.key for match in access.visible_matches(user)}
        one = {
            match.key for match in m.Match.objects.all() if access.sees(access.profile(user), match)
        }
        assert listed == one
        if role == "officer":
            assert 0 < len(listed) < m.Match.objects.count()
