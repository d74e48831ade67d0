"""The match as stored, read once: its scenario exported (and, for the board, decided) at
most once per match version while a read-only request is answered (http middleware
ReadOnce). A board asks for them in several places (coverage, the desk's explanations,
the policy, the access list) and nothing writes in between. Never across requests (an
organisation renamed moves no version) nor while writing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from pitchpass.core import Scenario, ScenarioInvalid
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.changes import stored_invalid

T = TypeVar("T")

_READ: ContextVar[dict[tuple[str, int, int], Any] | None] = ContextVar("read", default=None)


@contextmanager
def read_once() -> Iterator[None]:
    """Work each match out once per version while this lasts (a read-only request)."""
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def once(what: str, match: m.Match, work: Callable[[], T]) -> T:
    """`work()` for this match as it is now; while read_once lasts, done once per version."""
    cache = _READ.get()
    key = (what, match.pk, match.version)
    if cache is not None and key in cache:
        found: T = cache[key]
        return found
    done = work()
    if cache is not None:
        cache[key] = done
    return done


def scenario_of(match: m.Match) -> Scenario:
    """The core's scenario of the stored match; rows edited into nonsense are a conflict."""
    return once("scenario", match, lambda: _export(match))


def _export(match: m.Match) -> Scenario:
    try:
        return store.scenario_of(match.key)
    except ScenarioInvalid as invalid:
        raise ServiceError(ErrorCode.CONFLICT, stored_invalid(invalid.problems[0])) from None
