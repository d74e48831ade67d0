"""Backups: everything the app keeps (matches and their requests, runs, the audit, users,
roles, the digests of tokens and calendar feeds, sign-in lockouts, notices, webhooks and
their deliveries), written as one JSON document read in a single snapshot, and restored
into an empty database, SQLite or PostgreSQL alike (one can move to the other this way).
Safe while the server serves: the snapshot is one transaction (REPEATABLE READ on
PostgreSQL; on SQLite, writers wait for it).

A backup is sealed with the site's secret key (an HMAC-SHA256 of its rows): the audit's
own chain is a plain hash anyone can compute again, so a backup edited by hand (a media
user made an admin, a token's digest swapped) would restore, and verify, as intact. A
restore checks the seal with the secret key of the site restoring it, and refuses a
backup edited or sealed with another key unless told to take it unsealed."""

from __future__ import annotations

import hmac
import json
from io import StringIO
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core import serializers
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, connection, transaction
from django.utils.crypto import salted_hmac

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.audit import one_snapshot

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


FORMAT = 2  # 1: unsealed (before seals), 2: sealed
_SALT = "pitchpass.backup"


class NotEmpty(Exception):
    """A restore goes into an empty database only (nothing is ever overwritten)."""


class BadBackup(ValueError):
    """A backup that cannot be restored as it is: not one, edited, sealed with another
    key, or rows the database refuses. Says why; nothing is restored."""


def seal_of(rows: list[Any]) -> str:
    """The backup's seal: an HMAC-SHA256, keyed by the site's secret key, of its rows as
    canonical JSON (keys sorted), so that a backup read and written again keeps it."""
    text = json.dumps(rows, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return salted_hmac(_SALT, text, algorithm="sha256").hexdigest()


def backup(path: Path) -> int:
    """Write everything kept to `path` (JSON); how many rows."""
    with one_snapshot():
        out = StringIO()
        call_command("dumpdata", *KEPT, format="json", indent=None, stdout=out)
    rows: list[Any] = json.loads(out.getvalue())
    document = {"pitchpass-backup": FORMAT, "seal": seal_of(rows), "rows": rows}
    # It holds password hashes and the audit: readable by its owner alone.
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_text(json.dumps(document, ensure_ascii=False))
    return len(rows)


def restore(path: Path, unsealed: bool = False) -> tuple[int, str]:
    """Put a backup back into an empty database, in one transaction: (how many rows, a
    warning or ""). Its seal is checked first (`unsealed`: a backup without one, or whose
    seal this site's key does not match, is restored all the same, and the warning says
    so). BadBackup, saying why, for anything that cannot be restored as it is."""
    try:
        document = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadBackup(f"{path}: not a pitchpass backup (not JSON: {error})") from None
    kind = document.get("pitchpass-backup") if isinstance(document, dict) else None
    rows = document.get("rows") if isinstance(document, dict) else None
    if kind not in (1, FORMAT) or not isinstance(rows, list):
        raise BadBackup(f"{path}: not a pitchpass backup")
    warning = ""
    sealed = document.get("seal")
    if kind == 1 or not isinstance(sealed, str):
        warning = f"{path} has no seal (a backup made before backups were sealed)"
    elif not hmac.compare_digest(sealed, seal_of(rows)):
        warning = (
            f"{path}: its seal does not hold with this site's secret key: it was edited"
            " since it was made, or made by a site with another key (PITCHPASS_SECRET_KEY,"
            " or the data folder's secret-key file)"
        )
    if warning and not unsealed:
        raise BadBackup(f"{warning}; nothing restored (--unsealed takes it all the same)")
    in_use = (m.Match, m.AuditEntry, m.Profile, m.Organisation, User)
    if any(model.objects.exists() for model in in_use):
        raise NotEmpty("the database is not empty: restore into a new one")
    done = 0  # rows saved
    try:
        with transaction.atomic():
            for obj in serializers.deserialize("json", json.dumps(rows)):
                obj.save()  # as written: no signals, no save() of the app (append-only audit)
                done += 1
            _reset_sequences()
    except (DeserializationError, DatabaseError, ValidationError, TypeError, KeyError) as error:
        said = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        raise BadBackup(
            f"{path}: row {done + 1} cannot be restored ({said}); nothing restored"
        ) from None
    return len(rows), f"{warning}: restored unsealed, nothing proves it unedited" if warning else ""


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
