"""What every change to a match goes through: the match row locked inside the
transaction (SELECT ... FOR UPDATE), its version moved on, an audit entry; and what the
database can store (ids, text).
"""

from __future__ import annotations

from typing import Any

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


def changed(match: m.Match) -> None:
    """Record that the match's decisions may now differ (the caller holds the lock)."""
    m.Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    match.version += 1


def recorded(match: m.Match) -> None:
    """Record a match-day event (a release, an offer made or answered, a revoke): the
    version moves on, for what is read of the match, but the match day's record decides
    the requests it touched (core/match_day/record.py), not a run: a run that was current stays
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
