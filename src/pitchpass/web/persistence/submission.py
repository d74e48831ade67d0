"""A new request written to PostgreSQL in one round trip (a psycopg pipeline): the match
locked and its version moved on, the request inserted after the match's last, the audit
chain's head locked, the entry sealed and written. The statements are the ones each
step sends on its own (changes.claim, store.add_request, audit.sealed_insert), each with
its own snapshot as before, sent together instead of one after another: submissions to
a match wait for each other one round trip and the commit, not six.

Only what needs nothing read under the lock goes this way (services/entries.py decides);
anything else the lock shows (the frame moved since the check, the match's first
submission since a load, the chain's first entry ever) is NotInOneTrip: the caller rolls
its transaction back and writes the request the other way.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from pitchpass.web.persistence import audit, changes, rows, store
from pitchpass.web.persistence import models as m


class NotInOneTrip(Exception):
    """What was found under the lock needs the step-by-step write."""


def possible() -> bool:
    return connection.vendor == "postgresql"


def write(match: m.Match, frame: int, row: m.Request, entry: m.AuditEntry) -> None:
    """Within the caller's transaction: `row` (its changed_in and position set by the
    database) and its audit `entry` (its time and seal too), if the match's frame is
    still `frame` and "submit" among its kinds of web change; `match` gets its version."""
    table = connection.ops.quote_name(m.Match._meta.db_table)
    version = (f"SELECT version FROM {table} WHERE id = %s", [match.pk])
    statements: list[tuple[str, list[Any]]] = [
        changes.claim_statement(match),
        rows.insert_statement(
            row, {"position": store.next_position(match.pk), "changed_in": version}
        ),
        (audit.lock_head_statement(), []),
        audit.sealed_insert(entry),
    ]
    was = (match.version, match.frame, match.web_changes)
    connection.ensure_connection()
    cursors = [connection.cursor() for _ in statements]
    try:
        with connection.wrap_database_errors, connection.connection.pipeline():
            for cursor, (sql, params) in zip(cursors, statements, strict=True):
                cursor.execute(sql, params)
        changes.claimed(match, cursors[0].fetchone())
        (request_pk,) = cursors[1].fetchone()
        written = cursors[3].fetchone()
    finally:
        for cursor in cursors:
            cursor.close()
    if match.frame != frame or "submit" not in match.web_changes or written is None:
        match.version, match.frame, match.web_changes = was  # as read before the lock
        raise NotInOneTrip
    rows.inserted(row, request_pk)
    row.changed_in = match.version
    rows.inserted(entry, written[0])
    entry.when, entry.digest = written[1], written[2]  # as the database timed and sealed it
