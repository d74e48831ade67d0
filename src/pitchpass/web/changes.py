"""What every change to a match goes through: the match row locked inside the
transaction (SELECT ... FOR UPDATE), its version moved on, an audit entry; and the checks
shared by the services: who manages a match, ids and text that can be stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.contrib.auth.models import User

from pitchpass.core import Scenario, ScenarioInvalid
from pitchpass.web import access, store
from pitchpass.web import models as m
from pitchpass.web.errors import ErrorCode, ServiceError


def lock_match(match: m.Match) -> m.Match:
    """The match row, locked until the transaction ends (SELECT ... FOR UPDATE): who
    acts on one match at once waits here, so no zone is ever over-booked."""
    return m.Match.objects.select_for_update().get(pk=match.pk)


def changed(match: m.Match) -> None:
    """Record that the match's decisions may now differ (the caller holds the lock)."""
    m.Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    match.version += 1


def audit(user: User, action: str, match: m.Match, target: str, before: Any, after: Any) -> None:
    m.AuditEntry.objects.create(
        user=user, action=action, match=match, target=target, before=before, after=after
    )


# While a GET is answered (middleware.ReadOnce), the scenarios exported for it, by match
# and version: a board asks for its match's scenario in several places (coverage, the
# desk's explanations, the policy, the access list) and nothing writes in between. Never
# across requests (an organisation renamed moves no version) nor while writing.
_READ: ContextVar[dict[tuple[int, int], Scenario] | None] = ContextVar("read", default=None)


@contextmanager
def read_once() -> Iterator[None]:
    """Export each match once while this lasts (a read-only request)."""
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def scenario_of(match: m.Match) -> Scenario:
    """The core's scenario of the stored match; rows edited into nonsense are a conflict."""
    cache = _READ.get()
    key = (match.pk, match.version)
    if cache is not None and key in cache:
        return cache[key]
    try:
        scenario = store.scenario_of(match.key)
    except ScenarioInvalid as invalid:
        raise ServiceError(ErrorCode.CONFLICT, stored_invalid(invalid.problems[0])) from None
    if cache is not None:
        cache[key] = scenario
    return scenario


def stored_invalid(problem: Any) -> str:
    """Said to whoever meets it, a broadcaster too: what is wrong, and who can put it right."""
    return (
        f"the match as stored is not a valid scenario ({problem}); a league admin has to correct it"
    )


ID_LENGTH = 100  # the models' max_length for keys


def check_id(value: str) -> str:
    """An id that can be stored and addressed in a URL."""
    if len(value) > ID_LENGTH:
        raise ServiceError(ErrorCode.INVALID, f"an id has at most {ID_LENGTH} characters", "id")
    if "/" in value:
        raise ServiceError(
            ErrorCode.INVALID, 'an id cannot hold "/" (URLs could not name it)', "id"
        )
    return value


def check_text(value: Any, path: str = "") -> None:
    """No NUL character anywhere: PostgreSQL cannot store one in text, SQLite would."""
    if isinstance(value, str) and "\x00" in value:
        raise ServiceError(ErrorCode.INVALID, "text cannot hold a NUL character", path)
    if isinstance(value, dict):
        for key, item in value.items():
            check_text(item, f"{path}.{key}".lstrip("."))
    if isinstance(value, list):
        for n, item in enumerate(value):
            check_text(item, f"{path}[{n}]")


def managed(user: User, match_key: str) -> m.Match:
    """The match, locked, if the user manages it (home club's officer, admin)."""
    return lock_match(check_manages(user, match_key))


def check_manages(user: User, match_key: str) -> m.Match:
    match = access.check_match(user, match_key)
    if not access.manages(user, match):
        raise ServiceError(ErrorCode.FORBIDDEN, "only the home club's officer or an admin")
    return match
