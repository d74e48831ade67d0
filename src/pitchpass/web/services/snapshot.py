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
from datetime import datetime
from typing import Any, TypeVar

from pitchpass.core import Scenario, ScenarioInvalid, load_document
from pitchpass.core.model import DEFAULT_PHASES, Phase
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.changes import stored_invalid

T = TypeVar("T")

_READ: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar("read", default=None)


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
    return remembered(_key(what, match), work)


def _key(what: str, match: m.Match) -> tuple[Any, ...]:
    return (what, match.pk, match.version)


def _read_already(what: str, match: m.Match) -> Any:
    """What `once(what, match, ...)` has worked out while read_once lasts, else None."""
    cache = _READ.get()
    return cache.get(_key(what, match)) if cache is not None else None


def remembered(key: tuple[Any, ...], work: Callable[[], T]) -> T:
    """`work()`, done once per `key` while read_once lasts (else every time)."""
    cache = _READ.get()
    if cache is not None and key in cache:
        found: T = cache[key]
        return found
    done = work()
    if cache is not None:
        cache[key] = done
    return done


def document_of(match: m.Match) -> dict[str, Any]:
    """The match exported as a scenario document (docs/contract.md's shape)."""
    return once(
        "document", match, lambda: store.export(match.key, read=(match, requests_of(match)))
    )


def scenario_of(match: m.Match) -> Scenario:
    """The core's scenario of the stored match; rows edited into nonsense are a conflict."""
    return once("scenario", match, lambda: scenario_from(match, document_of(match)))


def frame_scenario(match: m.Match) -> Scenario:
    """The match's frame as the core reads it: its competition, policy, phases, venue and
    organisations, without its requests or incidents (what a rule about the match, not
    about its requests, needs: the consent a zone asks for, say)."""
    return once("frame", match, lambda: scenario_from(match, store.export(match.key, False)))


def scenario_at(match: m.Match, now: datetime) -> Scenario:
    """`scenario_of` with the match day's record as it stands at `now` (a service given
    its clock: an offer open at `now` holds its places); never kept."""
    return scenario_from(match, store.export(match.key, now=now))


def scenario_from(match: m.Match, document: dict[str, Any]) -> Scenario:
    """The core's scenario of the match's export `document`; rows edited into nonsense are
    a conflict."""
    try:
        return load_document(document)
    except ScenarioInvalid as invalid:
        raise ServiceError(ErrorCode.CONFLICT, stored_invalid(invalid.problems[0])) from None


def requests_of(match: m.Match) -> list[m.Request]:
    """Every request of the match (revoked ones too), with requester, zone and consent."""
    return once("requests", match, lambda: list(store.request_rows(match)))


def plan_of(match: m.Match) -> tuple[Phase, ...]:
    """The match's phases as the core has them (the competition's, or the default): one
    query, not the match's whole export (a door asks at every scan)."""
    read = _read_already("document", match)
    if read is not None:  # the page has read the whole match already
        return tuple(Phase(p["id"], p["start"], p["end"]) for p in read["phases"]) or DEFAULT_PHASES
    return once("plan", match, lambda: store.read_plan(match))
