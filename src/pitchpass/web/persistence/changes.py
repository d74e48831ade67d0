"""What every change to a match goes through: the match row locked inside the
transaction (SELECT ... FOR UPDATE), its version moved on, an audit entry; and what the
database can store (ids, text).
"""

from __future__ import annotations

import json
from typing import Any

from django.db import connection

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.limits import ID_LENGTH, TEXT_LENGTH
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.store import UNSAFE


def lock_match(match: m.Match) -> m.Match:
    """The match row, locked until the transaction ends (SELECT ... FOR UPDATE): who
    acts on one match at once waits here, so no zone is ever over-booked. Its competition
    comes along (read, not locked)."""
    rows = m.Match.objects.select_related("competition").select_for_update(of=("self",))
    return rows.get(pk=match.pk)


def claim(match: m.Match) -> m.Match:
    """`lock_match` and `changed` in one statement (UPDATE ... RETURNING, SQLite 3.35+ and
    PostgreSQL): the match row locked until the transaction ends and its version moved on;
    `match` gets the row's version, frame and kinds of web change as they are now (what
    was read of it before the lock may be older). What a submission waits for: one round
    trip, not two."""
    with connection.cursor() as cursor:
        cursor.execute(*claim_statement(match))
        claimed(match, cursor.fetchone())
    return match


def claim_statement(match: m.Match) -> tuple[str, list[Any]]:
    table = connection.ops.quote_name(m.Match._meta.db_table)
    return (
        f"UPDATE {table} SET version = version + 1 WHERE id = %s"
        " RETURNING version, frame, web_changes",
        [match.pk],
    )


def claimed(match: m.Match, found: Any) -> None:
    """`match` as `claim_statement` returned it (`found`: its row, None if none)."""
    if found is None:
        raise m.Match.DoesNotExist(f"no match {match.key!r}")  # deleted since it was read
    match.version, match.frame, kinds = found
    match.web_changes = json.loads(kinds) if isinstance(kinds, str) else kinds


def changed(match: m.Match) -> None:
    """Record that the match's decisions may now differ (the caller holds the lock)."""
    m.Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    match.version += 1


def recorded(match: m.Match) -> None:
    """Record a match-day event (a release, an offer made or answered, a revoke): the
    version moves on, for what is read of the match, but the match day's record decides
    the requests it touched (core/record.py), not a run: a run that was current stays
    current, and nobody is asked to decide again (the caller holds the lock)."""
    was = match.version
    changed(match)
    m.DecisionRun.objects.filter(match=match, version=was).update(version=match.version)


def stored_invalid(problem: Any) -> str:
    """Said to whoever meets it, a broadcaster too: what is wrong, and who can put it right."""
    return (
        f"the match as stored is not a valid scenario ({problem}); a league admin has to correct it"
    )


def check_id(value: str) -> str:
    """An id that can be stored and addressed in a URL."""
    if len(value) > ID_LENGTH:
        raise ServiceError(ErrorCode.INVALID, f"an id has at most {ID_LENGTH} characters", "id")
    if "/" in value:
        raise ServiceError(
            ErrorCode.INVALID, 'an id cannot hold "/" (URLs could not name it)', "id"
        )
    if UNSAFE.search(value):  # a control or bidirectional character: spoofable, unprintable
        raise ServiceError(
            ErrorCode.INVALID, "an id cannot hold a control or a bidirectional character", "id"
        )
    return value


def check_text(value: Any, path: str = "") -> None:
    """No NUL character anywhere (PostgreSQL cannot store one in text, SQLite would), and
    no text longer than TEXT_LENGTH."""
    if isinstance(value, str) and "\x00" in value:
        raise ServiceError(ErrorCode.INVALID, "text cannot hold a NUL character", path)
    if isinstance(value, str) and not _encodable(value):  # a lone surrogate ("\ud800")
        raise ServiceError(ErrorCode.INVALID, "text must be valid Unicode (UTF-8)", path)
    if isinstance(value, str) and len(value) > TEXT_LENGTH:
        raise ServiceError(
            ErrorCode.INVALID, f"text has at most {TEXT_LENGTH} characters, not {len(value)}", path
        )
    if isinstance(value, dict):
        for key, item in value.items():
            check_text(key, path)  # a key too can name something looked up
            check_text(item, f"{path}.{key}".lstrip("."))
    if isinstance(value, list):
        for n, item in enumerate(value):
            check_text(item, f"{path}[{n}]")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
