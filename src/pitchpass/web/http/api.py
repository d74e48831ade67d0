"""The REST API (django-ninja): each function parses, calls one service, responds.

OpenAPI at /api/openapi.json, docs at /api/docs. Auth: `Authorization: Bearer <token>`
(from `pitchpass token create`) or a signed-in session. Every error has one shape,
`{"code", "message", "path"}`, with the status its code stands for (errors.py).

Annotations are evaluated as the module is read (no `from __future__ import
annotations`): ninja reads a paged operation's parameters through its pagination
wrapper, whose module would not know this one's names.
"""

import dataclasses
import functools
import json
import logging
import math
import re
from collections.abc import Callable
from typing import Annotated, Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone
from ninja import Field, NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError
from ninja.pagination import LimitOffsetPagination, paginate
from ninja.parser import Parser
from ninja.responses import Status
from ninja.security import HttpBearer
from ninja.security import SessionAuth as NinjaSessionAuth
from pydantic import PlainValidator, StrictBool, StrictInt, WithJsonSchema

from pitchpass.core import SolverFailed
from pitchpass.core.deciding.overrides import ByHand
from pitchpass.core.match_day.notices import Kind as NoticeKind
from pitchpass.web.errors import DATABASE_AWAY, ErrorCode, ServiceError
from pitchpass.web.http import schemas, throttles
from pitchpass.web.http.schemas import (
    YAML_EXPORT,
    AskedOut,
    CheckInIn,
    CheckInOut,
    ConsentOut,
    CoverageOut,
    Created,
    DecidedTogetherOut,
    DecideOut,
    DecisionsOut,
    HindsightOut,
    MatchOut,
    NoticeOut,
    OfferOut,
    PassOut,
    PublishedOut,
    PublishedTogetherOut,
    RequestOut,
    RevokedOut,
    SeasonOut,
    WaitlistOut,
    WhatIfOut,
    answers,
)
from pitchpass.web.services import (
    accounts,
    doors,
    entries,
    hindsight,
    matchweek,
    notices,
    retries,
    season,
    waitlist,
)
from pitchpass.web.services import decisions as deciding


class BearerToken(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> Any:
        """The token's user; a wrong token is counted against its address."""
        user = accounts.user_for_token(token)
        if user is None:
            throttles.count_bad_token(request)
        return user


class SessionAuth(NinjaSessionAuth):
    """A signed-in browser's session, with Django's CSRF check. A request that brings an
    Authorization header, or no session cookie, is not the browser's: it is not judged
    here, so a wrong or revoked token is a 401, not a CSRF failure."""

    def __call__(self, request: HttpRequest) -> Any:
        if "Authorization" in request.headers or self.param_name not in request.COOKIES:
            return None
        return super().__call__(request)


log = logging.getLogger(__name__)


class StrictJson(Parser):
    """A body is JSON, said so (`Content-Type: application/json`), of a size the API takes
    (DATA_UPLOAD_MAX_MEMORY_SIZE), with each key once: a text/plain body, a key given
    twice (which would take the last value unseen) or a body too large is an error in the
    error shape, never a guess or a 500."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        try:
            body = request.body
        except RequestDataTooBig:
            raise _too_large() from None
        if body and request.content_type != "application/json":
            raise ServiceError(
                ErrorCode.UNSUPPORTED,
                f"send the body as JSON (Content-Type: application/json), not"
                f" {request.content_type or 'untyped'}",
            )
        try:
            parsed = json.loads(body or b"{}", object_pairs_hook=_once_each)
        except (ValueError, RecursionError) as error:
            raise ServiceError(ErrorCode.INVALID, f"the body is not JSON: {error}") from None
        if not isinstance(parsed, dict):
            raise ServiceError(ErrorCode.INVALID, "the body is a JSON object")
        return parsed


def _too_large() -> ServiceError:
    most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return ServiceError(
        ErrorCode.TOO_LARGE, f"the body is larger than the API takes ({most} bytes)"
    )


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f'the key "{key}" is given twice')
        out[key] = value
    return out


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """With an `Idempotency-Key` header, a call is acted on once: sent again with the same
    key (a retry after a timeout), it gets the first answer back, marked
    `Idempotent-Replayed: true` (services.retries)."""

    @functools.wraps(view)
    def once(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        key = request.headers.get("Idempotency-Key")
        if key is None:
            return view(request, *args, **kwargs)
        user = request.auth  # type: ignore[attr-defined]
        mark = retries.fingerprint(request.method or "", request.path, request.body)
        # One transaction: the key, the call's effects and its answer are kept together or
        # not at all (a crash or a lost database leaves the key free for the retry).
        with retries.together():
            found = retries.begin(user, key, mark, timezone.now())
            if found is not None:
                status, body = found
                replayed = JsonResponse(body, status=status, safe=False)
                replayed["Idempotent-Replayed"] = "true"
                return replayed
            answer = view(request, *args, **kwargs)
            if isinstance(answer, Status):
                retries.keep(user, key, answer.status_code, answer.value)
            else:
                retries.keep(user, key, 200, answer)
            return answer

    return once


class PitchpassAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation: Any) -> str:
        """The ids clients were generated with, whatever module the views move to."""
        return f"pitchpass_web_api_{operation.view_func.__name__}"

    def validation_error_from_error_contexts(self, error_contexts: Any) -> ValidationError:
        """ninja's, and the length of a text too long (ninja drops what was sent), so that
        the API says what the pages say: "text has at most 2000 characters, not 2001"."""
        sent = [
            error.get("input")
            for context in error_contexts
            for error in context.pydantic_validation_error.errors(include_url=False)
        ]
        found = super().validation_error_from_error_contexts(error_contexts)
        for error, given in zip(found.errors, sent, strict=False):
            if isinstance(given, str):
                error["length"] = len(given)
        return found


api = PitchpassAPI(
    title="pitchpass",
    version="1",
    description="Match-day media access: requests, decisions, coverage and what-if.",
    auth=[BearerToken(), SessionAuth()],
    urls_namespace="api",
    parser=StrictJson(),
    throttle=throttles.CALLS,
)


def _error(request: HttpRequest, error: ServiceError) -> HttpResponse:
    return api.create_response(request, error.as_json(), status=error.status)


@api.exception_handler(ServiceError)
def service_error(request: HttpRequest, exc: ServiceError) -> HttpResponse:
    return _error(request, exc)


@api.exception_handler(SolverFailed)
def solver_failed(request: HttpRequest, exc: SolverFailed) -> HttpResponse:
    return _error(request, ServiceError(ErrorCode.SOLVER_FAILED, str(exc)))


@api.exception_handler(Exception)
def internal(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Anything unforeseen: logged with its traceback, answered in the one error shape."""
    log.error("%s %s failed", request.method, request.path, exc_info=exc)
    message = "the server failed to answer; the fault is logged"
    return _error(request, ServiceError(ErrorCode.INTERNAL, message))


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def database_away(request: HttpRequest, exc: Exception) -> HttpResponse:
    """The database went away (restarted, its connections cut): 503, and the next call
    connects afresh (Django drops a connection that failed)."""
    log.warning("%s %s: the database cannot be reached (%s)", request.method, request.path, exc)
    answer = _error(request, ServiceError(ErrorCode.UNAVAILABLE, DATABASE_AWAY))
    answer["Retry-After"] = "5"
    return answer


@api.exception_handler(RequestDataTooBig)
def too_large(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return _error(request, _too_large())


@api.exception_handler(AuthenticationError)
def unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    message = "sign in, or send Authorization: Bearer <token>"
    return _error(request, ServiceError(ErrorCode.UNAUTHENTICATED, message))


@api.exception_handler(ValidationError)
def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return _error(request, schemas.invalid(list(exc.errors)))


@api.exception_handler(Http404)
def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, ServiceError(ErrorCode.NOT_FOUND, "not found"))


@api.exception_handler(Throttled)
def throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
    """429 with Retry-After."""
    seconds = max(1, math.ceil(exc.wait or 1))
    message = getattr(request, "pitchpass_refused", None) or (
        f"too many calls: wait {seconds} seconds (the API's rates are per user)"
    )
    answer = _error(request, ServiceError(ErrorCode.TOO_MANY, message))
    answer["Retry-After"] = str(seconds)
    return answer


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc.__cause__, ServiceError):  # the body's parser (StrictJson) said why
        return _error(request, exc.__cause__)
    code = {401: ErrorCode.UNAUTHENTICATED, 403: ErrorCode.FORBIDDEN, 404: ErrorCode.NOT_FOUND}
    return _error(request, ServiceError(code.get(exc.status_code, ErrorCode.INVALID), str(exc)))


@api.get(
    "/matches", response=answers({200: list[MatchOut]}), summary="The matches this user may see"
)
@paginate(LimitOffsetPagination)
def list_matches(request: HttpRequest) -> list[dict[str, Any]]:
    return entries.matches_for(request.auth)  # type: ignore[attr-defined]


@api.get(
    "/notices",
    response=answers({200: list[NoticeOut]}),
    summary="What changed for the user's organisation, newest first (as the Notices page)",
)
@paginate(LimitOffsetPagination)
def list_notices(request: HttpRequest, kind: NoticeKind | None = None) -> list[dict[str, Any]]:
    return notices.notices_json(request.auth, kind)  # type: ignore[attr-defined]


@api.get(
    "/competitions/{competition}/season",
    response=answers({200: SeasonOut}),
    summary="The season report: published grants fixed, the rest by the season rules (admins)",
)
def season_report(request: HttpRequest, competition: str) -> dict[str, Any]:
    return season.season_of(request.auth, competition).as_json()  # type: ignore[attr-defined]


@api.get(
    "/competitions/{competition}/hindsight",
    response=answers({200: HindsightOut}),
    summary="The price of deciding match by match, as the worker last worked it out (admins)",
)
def get_hindsight(request: HttpRequest, competition: str) -> dict[str, Any]:
    found = hindsight.hindsight_of(request.auth, competition)  # type: ignore[attr-defined]
    return dataclasses.asdict(found)


@api.post(
    "/competitions/{competition}/hindsight",
    response=answers({202: AskedOut}),
    summary="Have the worker work out the price of deciding match by match (admins)",
    throttle=throttles.WRITES,
)
def ask_hindsight(request: HttpRequest, competition: str) -> Status[dict[str, bool]]:
    asked = hindsight.do_ask_hindsight(request.auth, competition)  # type: ignore[attr-defined]
    return Status(202, {"asked": asked})


class TogetherIn(Schema):
    """Matches of the competition decided or published together (a matchweek)."""

    matches: Annotated[list[schemas.Id], Field(max_length=matchweek.MAX_TOGETHER)]


@api.post(
    "/competitions/{competition}/decide",
    response=answers({200: DecidedTogetherOut}),
    exclude_unset=True,
    summary="Decide matches of the competition together, jointly under its season rules (admins)",
    throttle=throttles.WRITES,
)
@idempotent
def decide_together(request: HttpRequest, competition: str, body: TogetherIn) -> dict[str, Any]:
    decided = matchweek.do_decide_together(request.auth, body.matches, competition)  # type: ignore[attr-defined]
    return {"matches": list(decided.values())}


@api.post(
    "/competitions/{competition}/publish",
    response=answers({200: PublishedTogetherOut}),
    summary="Publish matches of the competition together: all or none (admins)",
    throttle=throttles.WRITES,
)
@idempotent
def publish_together(request: HttpRequest, competition: str, body: TogetherIn) -> dict[str, Any]:
    published = matchweek.do_publish_together(request.auth, body.matches, competition)  # type: ignore[attr-defined]
    return {"published": published}


@api.get(
    "/matches/{match}/requests",
    response=answers({200: list[RequestOut]}),
    exclude_unset=True,
    summary="Requests of a match (media: their own only)",
)
@paginate(LimitOffsetPagination)
def list_requests(request: HttpRequest, match: str) -> list[dict[str, Any]]:
    return entries.requests_for(request.auth, match)  # type: ignore[attr-defined]


@api.get(
    "/matches/{match}/requests/{request_id}",
    response=answers({200: RequestOut}),
    exclude_unset=True,
    summary="One request (as in the list)",
)
def one_request(request: HttpRequest, match: str, request_id: str) -> dict[str, Any]:
    for row in entries.requests_for(request.auth, match):  # type: ignore[attr-defined]
        if row["id"] == request_id:
            return row
    raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")


# Counts are strict: JSON true or "2" is not a crew of 1 or 2 (pydantic would convert them).


class RequestIn(Schema):
    """A request as in docs/contract.md, without `match` (the path says it) and `submitted` (the
    server's clock says it); `by` only for admins (media submit for their own)."""

    id: schemas.Id | None = None
    by: schemas.Id | None = None
    zone: schemas.Id
    phases: schemas.Ids
    crew: StrictInt
    cameras: StrictInt = 1
    consent: schemas.Ids = Field(default_factory=list)


@api.post(
    "/matches/{match}/requests",
    response=answers({201: Created}),
    summary="Submit a request",
    throttle=throttles.WRITES,
)
@idempotent
def submit_request(request: HttpRequest, match: str, body: RequestIn) -> Status[dict[str, str]]:
    user = request.auth  # type: ignore[attr-defined]
    new_id = entries.do_submit_request(user, match, body.dict(), timezone.now())
    return Status(201, {"id": new_id})


class RequestChange(Schema):
    """The fields of a request to change; those left out stay as they are (`consent`:
    admins only)."""

    zone: schemas.Id | None = None
    phases: schemas.Ids | None = None
    crew: StrictInt | None = None
    cameras: StrictInt | None = None
    consent: schemas.Ids | None = None


@api.patch(
    "/matches/{match}/requests/{request_id}",
    response=answers({200: RequestOut}),
    exclude_unset=True,
    summary="Change a request",
    throttle=throttles.WRITES,
)
def change_request(
    request: HttpRequest, match: str, request_id: str, body: RequestChange
) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    return entries.do_change_request(user, match, request_id, body.dict(), timezone.now())


@api.delete(
    "/matches/{match}/requests/{request_id}",
    response=answers({204: None}),
    summary="Withdraw",
    throttle=throttles.WRITES,
)
def withdraw_request(request: HttpRequest, match: str, request_id: str) -> Status[None]:
    entries.do_withdraw_request(request.auth, match, request_id, timezone.now())  # type: ignore[attr-defined]
    return Status(204, None)


@api.post(
    "/matches/{match}/decide",
    response=answers({200: DecideOut}),
    exclude_unset=True,
    summary="Decide the match (a proposal)",
    throttle=throttles.WRITES,
)
@idempotent
def decide(request: HttpRequest, match: str) -> dict[str, Any]:
    return deciding.do_decide(request.auth, match)  # type: ignore[attr-defined]


@api.get(
    "/matches/{match}/decisions",
    response=answers({200: DecisionsOut}),
    exclude_unset=True,
    summary="The current decisions (media: their own)",
)
def decisions(request: HttpRequest, match: str) -> dict[str, Any]:
    return deciding.current_decisions(request.auth, match)  # type: ignore[attr-defined]


@api.post(
    "/matches/{match}/publish",
    response=answers({200: PublishedOut}),
    summary="Publish: lock the current grants",
    throttle=throttles.WRITES,
)
@idempotent
def publish(request: HttpRequest, match: str) -> dict[str, list[str]]:
    return {"published": deciding.do_publish(request.auth, match)}  # type: ignore[attr-defined]


class RevokeIn(Schema):
    reason: schemas.Text


@api.post(
    "/matches/{match}/requests/{request_id}/revoke",
    response=answers({200: RevokedOut}),
    summary="Take back a published grant",
    throttle=throttles.WRITES,
)
@idempotent
def revoke(request: HttpRequest, match: str, request_id: str, body: RevokeIn) -> dict[str, str]:
    deciding.do_revoke(request.auth, match, request_id, body.reason)  # type: ignore[attr-defined]
    return {"revoked": request_id}


class ConsentIn(Schema):
    given: StrictBool


@api.post(
    "/matches/{match}/requests/{request_id}/consent",
    response=answers({200: ConsentOut}),
    summary="Give or refuse consent",
    throttle=throttles.WRITES,
)
@idempotent
def consent(request: HttpRequest, match: str, request_id: str, body: ConsentIn) -> dict[str, Any]:
    entries.do_consent(request.auth, match, request_id, body.given)  # type: ignore[attr-defined]
    return {"request": request_id, "consent": body.given}


STOPPAGE = r"^[0-9]{1,3}(\+[0-9]{1,2}|')$"  # "45+2", or a football minute "87'"


def _minute(value: Any) -> float | str:
    """The clock, a number (not true, not "3"); or a football minute as a string, with its
    mark ("87'") or as stoppage time ("45+2")."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and re.fullmatch(STOPPAGE, value):
        return value
    raise ValueError(
        'a number (the clock: minutes after kick-off) or a football minute, "87\'" or "45+2"'
    )


Minute = Annotated[
    float | str,
    PlainValidator(_minute),
    WithJsonSchema({"anyOf": [{"type": "number"}, {"type": "string", "pattern": STOPPAGE}]}),
]


class IncidentIn(Schema):
    """An incident as in docs/contract.md, without `match`: exactly one of minute and at."""

    id: schemas.Id | None = None
    zone: schemas.Id
    # The clock, a number (not true or "3"); or a football minute: "87'", "45+2", "90+3".
    minute: Minute | None = None
    at: schemas.Moment | None = None
    what: schemas.Text | None = None


@api.post(
    "/matches/{match}/incidents",
    response=answers({201: Created}),
    summary="Log an incident",
    throttle=throttles.WRITES,
)
@idempotent
def log_incident(request: HttpRequest, match: str, body: IncidentIn) -> Status[dict[str, str]]:
    new_id = entries.do_log_incident(request.auth, match, body.dict())  # type: ignore[attr-defined]
    return Status(201, {"id": new_id})


@api.get(
    "/matches/{match}/passes",
    response=answers({200: list[PassOut]}),
    exclude_unset=True,
    summary="The passes of the match's published grants (media: their own)",
)
@paginate(LimitOffsetPagination)
def list_passes(request: HttpRequest, match: str) -> list[dict[str, Any]]:
    return doors.passes_for(request.auth, match)  # type: ignore[attr-defined]


@api.post(
    "/matches/{match}/check-ins",
    response=answers({200: CheckInOut}),
    exclude_unset=True,
    summary="Check a pass at a zone door (stewards, officers, admins)",
    throttle=throttles.WRITES,
)
def check_in(request: HttpRequest, match: str, body: CheckInIn) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    return doors.do_check_in(user, match, body.dict(), timezone.now())


@api.get(
    "/matches/{match}/waitlist",
    response=answers({200: WaitlistOut}),
    summary="The waitlist and the places offered from it (media: their own)",
)
def get_waitlist(request: HttpRequest, match: str) -> dict[str, Any]:
    return waitlist.waitlist_for(request.auth, match, timezone.now())  # type: ignore[attr-defined]


class AnswerIn(Schema):
    """The answer to a place offered from the waitlist: true takes it, false passes it on."""

    accept: StrictBool


@api.post(
    "/matches/{match}/offers/{request_id}",
    response=answers({200: OfferOut}),
    summary="Accept or decline the place offered to a request (its organisation)",
    throttle=throttles.WRITES,
)
def answer_offer(
    request: HttpRequest, match: str, request_id: str, body: AnswerIn
) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    return waitlist.answer(user, match, request_id, body.accept, timezone.now())


@api.get(
    "/matches/{match}/coverage",
    response=answers({200: CoverageOut}),
    exclude_unset=True,
    summary="Who caught each incident on camera",
)
def coverage(request: HttpRequest, match: str) -> dict[str, Any]:
    return deciding.coverage(request.auth, match)  # type: ignore[attr-defined]


class WhatIfIn(Schema):
    grant: schemas.ManyIds = Field(default_factory=list)
    refuse: schemas.ManyIds = Field(default_factory=list)
    capacity: schemas.Capacities = Field(default_factory=dict)


@api.post(
    "/matches/{match}/what-if",
    response=answers({200: WhatIfOut}),
    exclude_unset=True,
    summary="What if: grant, refuse, change capacities",
    throttle=throttles.WRITES,
)
def what_if(request: HttpRequest, match: str, body: WhatIfIn) -> dict[str, Any]:
    return deciding.what_if_for(request.auth, match, body.dict())  # type: ignore[attr-defined]


@api.get(
    "/matches/{match}/export",
    response=answers({}),
    openapi_extra=YAML_EXPORT,
    summary="The match as a scenario (YAML)",
)
def export(request: HttpRequest, match: str) -> HttpResponse:
    import yaml

    document = entries.export_for(request.auth, match)  # type: ignore[attr-defined]
    text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    return HttpResponse(text, content_type="application/yaml; charset=utf-8")


class OverrideIn(Schema):
    status: ByHand
    reason: schemas.Text


@api.post(
    "/matches/{match}/requests/{request_id}/override",
    response=answers({200: DecideOut}),
    exclude_unset=True,
    summary="Override one decision",
    throttle=throttles.WRITES,
)
@idempotent
def override(request: HttpRequest, match: str, request_id: str, body: OverrideIn) -> dict[str, Any]:
    user = request.auth  # type: ignore[attr-defined]
    return deciding.do_override(user, match, request_id, body.status, body.reason)
