"""What the API answers, declared for its OpenAPI document: every operation names the
shape of its success and of its errors, so that a client (and schemathesis, in the tests)
can check every answer. The shapes are docs/contract.md's where it has them. Every model lets
fields through that it does not name (nothing the services answer is dropped), and the
operations leave out fields the services left out (`exclude_unset`)."""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Schema
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StringConstraints
from pydantic import ValidationError as PydanticError

from pitchpass.core.match_day.doors import Direction
from pitchpass.web.errors import STATUS, ErrorCode, ServiceError
from pitchpass.web.limits import ID_LENGTH, LIST_LENGTH, MANY_LENGTH, TEXT_LENGTH
from pitchpass.web.services.doors import CODE_MAX, KEY_MAX

# What a body may hold, bounded where it is read (issue 28, section 6): the services see
# only values these let through. Rules about the values (a zone the venue has, a crew of
# at least 1) are the core's, which names them.
Id = Annotated[str, StringConstraints(max_length=ID_LENGTH)]
Text = Annotated[str, StringConstraints(max_length=TEXT_LENGTH)]
Moment = Annotated[str, StringConstraints(max_length=64)]  # an ISO date and time
Ids = Annotated[list[Id], Field(max_length=LIST_LENGTH)]
ManyIds = Annotated[list[Id], Field(max_length=MANY_LENGTH)]
# "zone" or "zone@phase": places
Capacities = Annotated[
    dict[Annotated[str, StringConstraints(max_length=2 * ID_LENGTH + 1)], StrictInt],
    Field(max_length=LIST_LENGTH),
]


class Out(BaseModel):
    """Plain pydantic (ninja's Schema reads only the fields it names)."""

    model_config = ConfigDict(extra="allow")


class ErrorOut(Out):
    """Every error: a code of errors.ErrorCode, a sentence, and the field it is about."""

    code: str
    message: str
    path: str


# Every operation's errors: each status an error code stands for (errors.STATUS, the
# README's table), and 405 for a method a path does not take.
ERRORS: dict[Any, type[BaseModel]] = {code: ErrorOut for code in sorted({*STATUS.values(), 405})}


class MatchOut(Out):
    id: str
    competition: str
    venue: str
    home: str
    away: str
    kickoff: str
    host: str | None


class RequestOut(Out):
    """A request in docs/contract.md's shape; `locked` once published, `revoked` (the reason)
    once taken back."""

    id: str
    match: str
    by: str
    zone: str
    phases: list[str]
    crew: int
    cameras: int
    submitted: str
    consent: list[str] | None = None
    locked: bool | None = None
    revoked: str | None = None


class NoticeOut(Out):
    """What changed for the user's organisation (the Notices page's lines)."""

    id: int
    kind: str
    match: str
    request: str
    text: str
    when: str
    new: bool


class PassOut(Out):
    """A published grant's pass: `code` is what its QR code carries (signed), `typed`
    what a steward types; `zones` where it admits (its zone, then those it is reached
    through); `revoked`, the reason, once taken back."""

    request: str
    code: str
    typed: str
    org: str
    zone: str
    zones: list[str]
    phases: list[str]
    crew: int
    revoked: str | None = None


class CheckInOut(Out):
    """A door's answer: `reason` a code of core/match_day/doors.py's REASONS when refused (else
    null), `text` the sentence the door page shows."""

    result: str
    reason: str | None
    text: str
    request: str | None = None


class OfferOut(Out):
    """A place offered from the waitlist: `state` open, accepted, declined or lapsed."""

    request: str
    state: str
    made: str
    until: str
    phases: list[str]  # the phases offered: those of the request still to come then


class WaitingOut(Out):
    request: str
    by: str
    tier: str
    place: int | None  # 1: the next a freed place goes to (for those who manage the match)


class WaitlistOut(Out):
    waitlist: list[WaitingOut]
    offers: list[OfferOut]


class Created(Out):
    id: str


class ReasonOut(Out):
    code: str
    zone: str | None = None
    phase: str | None = None
    used: int | None = None
    capacity: int | None = None
    needed: int | None = None
    text: str


class DecisionOut(Out):
    request: str
    status: str
    tier: str
    reasons: list[ReasonOut]


class UsageOut(Out):
    zone: str
    phase: str
    used: int
    capacity: int | None


class SourceOut(Out):
    """A crew or a camera that caught an incident; `id` is left out (null) for another
    organisation's crew."""

    source: str
    id: str | None
    org: str | None


class CoveredOut(Out):
    incident: str
    zone: str
    phase: str | None
    covered_by: list[SourceOut]


class UnprovenOut(Out):
    """The solver's time limit passed before the choice was proven the best: the best
    found is kept (docs/scenario-extensions.md, "When the solver runs out of time")."""

    objective: str
    found: int
    most: int | None
    seconds: float
    message: str


class DecideOut(Out):
    """docs/contract.md's output for one match; `unproven` only where the solver ran out of time."""

    match: str
    decisions: list[DecisionOut]
    usage: list[UsageOut]
    incidents: list[CoveredOut]
    unproven: list[UnprovenOut] | None = None


class DecidedTogetherOut(Out):
    matches: list[DecideOut]


class PublishedTogetherOut(Out):
    published: dict[str, list[str]]  # match -> the ids newly published


class DecisionsOut(DecideOut):
    """The newest run, as this user may see it; `waiting`: requests sent or changed since."""

    waiting: list[str]


class PresentOut(Out):
    """A crew the zone doors counted inside at the incident's minute; `id` null for
    another organisation's crew."""

    id: str | None
    org: str | None


class CoverageIncidentOut(CoveredOut):
    """`covered_by`: what the plan says; `present`: who the doors counted there."""

    present: list[PresentOut]


class CoverageOut(Out):
    match: str
    if_decided_now: bool
    incidents: list[CoverageIncidentOut]


class ChangeOut(Out):
    request: str
    before: str
    after: str


class IncidentChangeOut(Out):
    incident: str
    before: list[SourceOut]
    after: list[SourceOut]


class ResultOut(Out):
    matches: list[DecideOut]


class WhatIfOut(Out):
    """docs/contract.md's what-if output; `only_if`: ticked grants that a grant by hand could
    not make, with what they set aside."""

    changes: list[ChangeOut]
    incidents: list[IncidentChangeOut]
    result: ResultOut


class PublishedOut(Out):
    published: list[str]


class RevokedOut(Out):
    revoked: str


class ConsentOut(Out):
    request: str
    consent: bool


class HindsightOut(Out):
    """The price of deciding match by match (docs/scenario-extensions.md, "Hindsight"), as
    the worker last worked it out: `result` is `pitchpass season --hindsight --json`'s
    (null until made), `current` whether it is of the competition's data as it is now,
    `working` whether the worker is at it (`matches_done` of `matches`)."""

    result: dict[str, Any] | None
    current: bool
    working: bool
    matches_done: int
    matches: int
    failed: str
    made: str


class AskedOut(Out):
    asked: bool  # queued now; false: made already for the data as it is, or being made


class SeasonOut(Out):
    """A competition's season report (docs/season-report.md): published grants fixed, the
    rest decided by its season rules; request ids in debts are written `match:id`."""

    competition: str
    name: str
    rules: bool
    matches: int
    published: int
    organisations: list[dict[str, Any]]
    quotas: list[dict[str, Any]]
    minimums: list[dict[str, Any]]
    rotations: list[dict[str, Any]]


def answers(success: dict[int, Any]) -> dict[Any, Any]:
    """An operation's `response`: its success and every error."""
    return {**success, **ERRORS}


# The export is YAML, not JSON: declared for the document by hand.
YAML_EXPORT: dict[str, Any] = {
    "responses": {
        "200": {
            "description": "The match as a scenario document (docs/contract.md), YAML",
            "content": {"application/yaml": {"schema": {"type": "object"}}},
        }
    }
}


# What comes in. Each body is checked here once, for the API and for the pages that post
# the same body (the door's script, the door's plain form), and the services get it typed.


class CheckInIn(Schema):
    """One scan at a zone door. `key`: the door's own id for it (sent again, the first
    answer comes back); `scanned`: when it was made, for a scan queued while offline."""

    code: Annotated[str, StringConstraints(max_length=CODE_MAX)]
    zone: Id
    phase: Id
    direction: Direction
    key: Annotated[str, StringConstraints(max_length=KEY_MAX)] | None = None
    scanned: Moment | None = None


def invalid(errors: list[Any]) -> ServiceError:
    """The first of a schema's errors (ninja's or pydantic's, alike) in the error shape:
    400 `invalid`, its path in the body (`phases[2]`), the schema's own message."""
    first = errors[0] if errors else {}
    loc = list(first.get("loc", ()))
    while loc and loc[0] in ("body", "query", "path"):  # where it came from, not its name
        loc.pop(0)
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    message = OUR_WORDS.get(first.get("type", ""), first.get("msg", "invalid"))
    given = first.get("input")
    length = len(given) if isinstance(given, str) else first.get("length")
    most = first.get("ctx", {}).get("max_length")
    if first.get("type") == "string_too_long" and length and most:
        message = f"text has at most {most} characters, not {length}"
    return ServiceError(ErrorCode.INVALID, message, path)


# Where the desk says it in words of its own: the store's, for text the pages send too
# (persistence/changes.check_text), so that the API and the pages say the same.
OUR_WORDS = {"string_unicode": "text must be valid Unicode (UTF-8)"}


def check_in_body(raw: dict[str, Any]) -> dict[str, Any]:
    """A check-in body posted by a page, checked as the API checks it (CheckInIn)."""
    try:
        return CheckInIn.model_validate(raw).dict()
    except PydanticError as wrong:
        raise invalid(wrong.errors()) from None
