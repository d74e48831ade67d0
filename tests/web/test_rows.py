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
