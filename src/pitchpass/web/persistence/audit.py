"""The audit: append-only, each entry sealed with the digest of the one before, so that
`pitchpass audit verify` finds the first entry edited, removed or reordered. Every change
to a match and every account event is written here (audit), one after another (the
chain's head row is locked until the transaction ends)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import rows

COMMAND_LINE = "(command line)"  # who did it, in the audit, when no user of the app did


# What users change on the web (and a fixture list's moves); `pitchpass load` refuses to
# overwrite them (store.load).
WEB_CHANGES = (
    "submit", "change", "withdraw", "publish", "revoke", "consent", "incident", "fixtures",
)  # fmt: skip


def audit(
    user: User | None,
    action: str,
    match: m.Match | None,
    target: str,
    before: Any,
    after: Any,
    username: str = "",
) -> m.AuditEntry:
    """An audit entry, sealed with the digest of the one before (audit_chain); `username`
    when there is no user (COMMAND_LINE, or the name a failed sign-in tried). Takes the
    chain's lock until the transaction ends: entries are written one after another. Part
    of the caller's transaction when there is one (no savepoint: a failure here fails it)."""
    entry = new_entry(user, action, match, target, before, after, username)
    with transaction.atomic(savepoint=False):
        if connection.vendor == "postgresql" and _sealed_by_database(entry):
            if match is not None:
                _note_web_change(match, action)
            return entry
        digest, count = _take_head()
        entry.when = timezone.now()  # once the chain is held: in the chain's order
        entry.digest = seal(digest, entry)
        rows.insert(entry)  # one statement each while the chain is held (rows.py)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {rows.quoted(m.AuditHead)} SET {rows.quoted(m.AuditHead, 'digest')}"
                f" = %s, {rows.quoted(m.AuditHead, 'entries')} = %s WHERE id = 1",
                [entry.digest, count + 1],
            )
        if match is not None:
            _note_web_change(match, action)
        return entry


def _sealed_by_database(entry: m.AuditEntry) -> bool:
    """PostgreSQL: `entry` timed, sealed and written by the database with the chain's
    head held (sealed_insert), so that every entry's time there is the database's clock,
    in the chain's order, whichever way it was written (persistence/submission.py too).
    False if the chain has no head yet (the first entry ever: `audit` makes it)."""
    with connection.cursor() as cursor:
        cursor.execute(lock_head_statement())
        if cursor.fetchone() is None:
            return False
        cursor.execute(*sealed_insert(entry))
        pk, entry.when, entry.digest = cursor.fetchone()
    rows.inserted(entry, pk)
    return True


def new_entry(
    user: User | None,
    action: str,
    match: m.Match | None,
    target: str,
    before: Any,
    after: Any,
    username: str = "",
) -> m.AuditEntry:
    """The entry `audit` writes, not yet timed or sealed."""
    return m.AuditEntry(
        user=user,
        username=username or (user.get_username() if user is not None else ""),
        action=action,
        match=match,
        target=target[:200],
        before=before,
        after=after,
    )


def _take_head() -> tuple[str, int]:
    """The chain's head (digest, entries), locked until the transaction ends (SQLite has
    one writer at a time: no lock to take); made on the first entry ever."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    table = rows.quoted(m.AuditHead)
    digest, entries = rows.quoted(m.AuditHead, "digest"), rows.quoted(m.AuditHead, "entries")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {digest}, {entries} FROM {table} WHERE id = 1{lock}")
        found = cursor.fetchone()
    if found is None:
        m.AuditHead.objects.create(pk=1)
        return "", 0
    return str(found[0]), int(found[1])


def _note_web_change(match: m.Match, action: str) -> None:
    """Keep on the match the kinds of web change since its last load (a field: nothing
    is read back from the log). The caller holds the match lock: `match` is current."""
    if action == "load":
        kinds: list[str] = []
    elif action in WEB_CHANGES:
        kinds = sorted({*match.web_changes, action})
    else:
        return
    if kinds != match.web_changes:
        match.web_changes = kinds
        m.Match.objects.filter(pk=match.pk).update(web_changes=kinds)


def seal(previous: str, entry: m.AuditEntry) -> str:
    """The entry's digest: sha256 of the one before and of what the entry says (the JSON
    object of its fields, keys sorted; its time to the millisecond, as a backup (Django's
    JSON) keeps times)."""
    when = entry.when.astimezone(UTC).isoformat(timespec="milliseconds")
    return hashlib.sha256(f'{previous}\n{said_before_when(entry)}{when}"}}'.encode()).hexdigest()


def said_before_when(entry: m.AuditEntry) -> str:
    """What the entry says as it is sealed, up to the text of its time: "when" is the
    last of the sorted keys and its text needs no escaping, so the database can seal an
    entry whose time it takes itself (sealed_insert)."""
    said = {
        "user": entry.user_id,
        "username": entry.username,
        "action": entry.action,
        "match": entry.match_id,
        "target": entry.target,
        "before": entry.before,
        "after": entry.after,
    }
    text = json.dumps(said, sort_keys=True, separators=(",", ":"), default=str)
    return text[:-1] + ',"when":"'


def lock_head_statement() -> str:
    """PostgreSQL: the chain's head locked until the transaction ends (sealed_insert)."""
    return f"SELECT 1 FROM {rows.quoted(m.AuditHead)} WHERE id = 1 FOR UPDATE"


def sealed_insert(entry: m.AuditEntry) -> tuple[str, list[Any]]:
    """PostgreSQL, with the head locked (lock_head_statement): `entry` written and the
    chain's head moved on in one statement, its time taken (to the millisecond, as it is
    sealed) and its seal made by the database, the seal `seal` makes
    (tests/web/test_one_trip.py). It returns the entry's id, time and seal; no row is
    written if the chain has no head yet (the first entry ever is written step by step)."""
    head = rows.quoted(m.AuditHead)
    digest, entries = rows.quoted(m.AuditHead, "digest"), rows.quoted(m.AuditHead, "entries")
    when = "to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"+00:00\"')"
    sealed = (
        f"encode(sha256(convert_to({digest} || chr(10) || %s || {when} || '\"}}', 'UTF8')), 'hex')"
    )
    first = (
        "WITH t AS MATERIALIZED (SELECT date_trunc('milliseconds', clock_timestamp()) AS at),"
        f" h AS (UPDATE {head} SET {digest} = {sealed}, {entries} = {entries} + 1 FROM t"
        f" WHERE {head}.id = 1 RETURNING {head}.{digest} AS sealed, t.at AS at) "
    )
    statement, params = rows.insert_statement(
        entry,
        {"when": ("h.at", []), "digest": ("h.sealed", [])},
        source="h",
        returning=("when", "digest"),
    )
    return first + statement, [said_before_when(entry), *params]


@contextmanager
def one_snapshot() -> Iterator[None]:
    """A transaction whose reads all see the database as it was at its first (REPEATABLE
    READ on PostgreSQL; SQLite's transaction, writers waiting for it). Inside a caller's
    transaction, that transaction is the snapshot."""
    inside = connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and not inside:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


@dataclass(frozen=True)
class Verified:
    entries: int
    broken: m.AuditEntry | None  # the first entry whose seal does not hold
    cut: bool  # the newest entries were removed (the head names an entry not there)
    # The first entry past the head's count: sealed on the chain's end, but not written
    # through the head (every entry written moves the head in the same transaction).
    added: m.AuditEntry | None = None


def verify() -> Verified:
    """Walk the chain from the first entry, in one snapshot with its head (REPEATABLE
    READ on PostgreSQL; SQLite's read transaction): each seal must be the digest of the
    one before and of what the entry says; fewer entries than the head counts, or another
    last digest, and the newest were removed; more, and one was added past the head (a
    row inserted by hand, sealed on the chain's end). Entries written while it walks are
    not in its snapshot: they are for the next walk (on SQLite, writers wait for it, as
    for a backup)."""
    with one_snapshot():
        head = m.AuditHead.objects.filter(pk=1).first()
        previous, count = "", 0
        for entry in m.AuditEntry.objects.order_by("pk").iterator():
            if entry.digest != seal(previous, entry):
                return Verified(count, entry, False)
            if head is not None and count == head.entries:
                return Verified(count, None, False, entry)
            previous, count = entry.digest, count + 1
    cut = head is not None and (count != head.entries or previous != head.digest)
    return Verified(count, None, cut)
