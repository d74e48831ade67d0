"""Passes are made as grants are published, and reading them writes nothing (issue 28,
section 5): `GET /passes` and the door's offline list used to make the pass rows of a
match on its first read, though a GET writes nothing (http/middleware.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from test_doors import SEED

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db
WRITES = ("INSERT", "UPDATE", "DELETE")


def _published() -> set[str]:
    return set(m.Request.objects.filter(match__key=SEED, locked=True).values_list("key", flat=True))


def _with_pass() -> set[str]:
    return set(
        m.Pass.objects.filter(request__match__key=SEED).values_list("request__key", flat=True)
    )


def test_a_publish_makes_the_passes_of_its_grants(desk: dict[str, Client]) -> None:
    # The desk fixture decided and published the seed match; nobody has read a pass yet.
    assert _published() and _with_pass() == _published()


def test_reading_passes_writes_no_pass_and_no_request(desk: dict[str, Client]) -> None:
    do_add_user("door", "steward", None, "pw-for-tests-only-7", venues=["old-trafford"])
    steward = Client()
    steward.force_login(m.Profile.objects.get(user__username="door").user)
    made = m.Pass.objects.count()
    reads: list[tuple[Client, str, dict[str, Any]]] = [
        (desk["officer"], f"/api/matches/{SEED}/passes", {}),
        (desk["docs"], f"/api/matches/{SEED}/passes", {}),
        (steward, f"/matches/{SEED}/door/passes.json", {"zone": "pitch-side"}),
        (steward, f"/matches/{SEED}/door/passes.json", {"zone": "tunnel"}),
    ]
    for client, path, query in reads:
        with CaptureQueriesContext(connection) as seen:
            assert client.get(path, query).status_code == 200
        written = [q["sql"] for q in seen.captured_queries if q["sql"].lstrip().startswith(WRITES)]
        touched = [sql for sql in written if "pitchpass_pass" in sql or "pitchpass_request" in sql]
        assert touched == [], (path, touched)
    assert m.Pass.objects.count() == made


def test_a_load_of_published_grants_makes_their_passes() -> None:
    from test_workflow_api import future_derby

    document = future_derby()
    for r in document["requests"][:3]:
        r["locked"] = True  # published already, as the file says
    store.load(document)
    locked = set(m.Request.objects.filter(locked=True).values_list("pk", flat=True))
    assert len(locked) == 3
    assert set(m.Pass.objects.values_list("request_id", flat=True)) == locked
    store.load(document)  # loaded again: the same passes, none twice
    assert m.Pass.objects.count() == 3


def test_the_migration_makes_the_passes_nobody_had_read_yet(desk: dict[str, Client]) -> None:
    """Grants published before passes were made at publish have none until a read made
    it: migration 0036 makes them, each with a code of its own."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module(
        "pitchpass.web.persistence.migrations.0036_passes_made_at_publish"
    )
    kept = dict(m.Pass.objects.values_list("request_id", "code"))
    m.Pass.objects.filter(request__key__in=["r02", "r25"]).delete()  # as before this change
    migration.make_missing(apps, None)
    again = dict(m.Pass.objects.values_list("request_id", "code"))
    assert set(again) == set(kept)
    assert len(set(again.values())) == len(again)  # no code twice
