"""Errors of the web layer: one shape for every failure, with a stable code.

The API turns a `ServiceError` into `{"code", "message", "path"}` with the HTTP status
its code stands for; nothing else decides a status.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    INVALID = "invalid"  # 400: the body or a parameter is wrong
    UNAUTHENTICATED = "unauthenticated"  # 401
    FORBIDDEN = "forbidden"  # 403: signed in, but not allowed
    NOT_FOUND = "not-found"  # 404: absent, or not visible to this user
    METHOD_NOT_ALLOWED = "method-not-allowed"  # 405: the path takes other methods (Allow)
    TOO_LARGE = "too-large"  # 413: the body is larger than the API takes
    UNSUPPORTED = "unsupported-media-type"  # 415: a body that is not JSON
    TOO_MANY = "too-many-requests"  # 429: past the API's rate (Retry-After says when)
    CONFLICT = "conflict"  # 409: the state does not allow it (and none of the below says why)
    DEADLINE_PASSED = "deadline-passed"  # 409: requests closed at kick-off minus the deadline
    DUPLICATE = "duplicate"  # 409: the id (or username) is taken already
    NOT_DECIDED = "not-decided"  # 409: decide the match first
    PUBLISHED = "published"  # 409: a published grant is revoked, not changed or withdrawn
    STALE_RUN = "stale-run"  # 409: requests changed since the run was made; decide again
    NO_ROOM = "no-room"  # 409: a grant by hand (or what-if's) does not fit beside published ones
    CANNOT_OVERRIDE = (
        "cannot-override"  # 409: closed, or no consent: no grant by hand sets it aside
    )
    QUOTA = "quota"  # 409: a publish would go past a season quota (the season moved on)
    INTERNAL = "internal"  # 500: a fault of the server (logged)
    SOLVER_FAILED = "solver-failed"  # 503: the solver did not prove its answer in time
    UNAVAILABLE = "unavailable"  # 503: the database cannot be reached just now


STATUS = {
    ErrorCode.INVALID: 400,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.METHOD_NOT_ALLOWED: 405,
    ErrorCode.TOO_LARGE: 413,
    ErrorCode.UNSUPPORTED: 415,
    ErrorCode.TOO_MANY: 429,
    ErrorCode.CONFLICT: 409,
    ErrorCode.DEADLINE_PASSED: 409,
    ErrorCode.DUPLICATE: 409,
    ErrorCode.NOT_DECIDED: 409,
    ErrorCode.PUBLISHED: 409,
    ErrorCode.STALE_RUN: 409,
    ErrorCode.NO_ROOM: 409,
    ErrorCode.CANNOT_OVERRIDE: 409,
    ErrorCode.QUOTA: 409,
    ErrorCode.INTERNAL: 500,
    ErrorCode.SOLVER_FAILED: 503,
    ErrorCode.UNAVAILABLE: 503,
}


class ServiceError(Exception):
    def __init__(self, code: ErrorCode, message: str, path: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path

    @property
    def status(self) -> int:
        return STATUS[self.code]

    def as_json(self) -> dict[str, str]:
        return {"code": self.code.value, "message": self.message, "path": self.path}


DATABASE_AWAY = (
    "the database cannot be reached just now: what was asked was not done (a change is"
    " all or nothing); try again in a moment"
)
