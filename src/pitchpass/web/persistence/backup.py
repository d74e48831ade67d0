"""Backups: everything the app keeps (matches and their requests, runs, the audit, users,
roles, the digests of tokens and calendar feeds, sign-in lockouts, notices, webhooks and
their deliveries), written as one JSON document read in a single snapshot, and restored
into an empty database, SQLite or PostgreSQL alike (one can move to the other this way).
Safe while the server serves: the snapshot is one transaction (REPEATABLE READ on
PostgreSQL; on SQLite, writers wait for it)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core import serializers
from django.core.management import call_command
from django.db import connection, transaction

from pitchpass.web.persistence import models as m

# What a backup holds, in an order a restore can insert (what is referred to first).
KEPT = (
    "auth.user",
    "pitchpass.organisation",
    "pitchpass.competition",
    "pitchpass.tier",
    "pitchpass.phase",
    "pitchpass.venue",
    "pitchpass.zone",
    "pitchpass.camera",
    "pitchpass.match",
    "pitchpass.request",
    "pitchpass.incident",
    "pitchpass.profile",
    "pitchpass.apitoken",
    "pitchpass.calendarfeed",
    "pitchpass.decisionrun",
    "pitchpass.decision",
    "pitchpass.auditentry",
    "pitchpass.audithead",
    "pitchpass.notice",
    "pitchpass.noticemail",
    "pitchpass.webhookendpoint",
    "pitchpass.webhookdelivery",
    "pitchpass.pass",
    "pitchpass.scan",
    "pitchpass.offer",
    "axes.accessattempt",
)


class NotEmpty(Exception):
    """A restore goes into an empty database only (nothing is ever overwritten)."""


def backup(path: Path) -> int:
    """Write everything kept to `path` (JSON); how many rows."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        out = StringIO()
        call_command("dumpdata", *KEPT, format="json", indent=None, stdout=out)
    rows: list[Any] = json.loads(out.getvalue())
    document = {"pitchpass-backup": 1, "rows": rows}
    # It holds password hashes and the audit: readable by its owner alone.
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(json.dumps(document, ensure_ascii=False))
    return len(rows)


def restore(path: Path) -> int:
    """Put a backup back into an empty database, in one transaction; how many rows."""
    document = json.loads(path.read_text())
    if not isinstance(document, dict) or document.get("pitchpass-backup") != 1:
        raise ValueError(f"{path}: not a pitchpass backup")
    in_use = (m.Match, m.AuditEntry, m.Profile, m.Organisation, User)
    if any(model.objects.exists() for model in in_use):
        raise NotEmpty("the database is not empty: restore into a new one")
    rows = document["rows"]
    with transaction.atomic():
        for obj in serializers.deserialize("json", json.dumps(rows)):
            obj.save()  # as written: no signals, no save() of the app (append-only audit)
        _reset_sequences()
    return len(rows)


def _reset_sequences() -> None:
    """On PostgreSQL, the id sequences continue after the ids restored."""
    if connection.vendor != "postgresql":
        return
    from django.apps import apps
    from django.core.management.color import no_style

    models = [apps.get_model(label) for label in KEPT]
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)
