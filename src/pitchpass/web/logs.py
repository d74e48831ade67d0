"""Logs: one JSON object a line, for every record of the app, Django and the task worker
(structlog's formatter over the standard logging). Each record says when (UTC), its level,
its logger, its event and, while a request is answered, the request's id; what a request
brings into a message (a path with "%0A", bidirectional controls) is escaped by JSON
itself, so it can never forge a line or read as another. A traceback is one field."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

import structlog
from django.conf import settings
from django.http import HttpRequest, HttpResponse

# Before the JSON: what every record gets (a record of structlog's own or of the logging).
CHAIN: list[structlog.typing.Processor] = [
    structlog.contextvars.merge_contextvars,  # the request's id (RequestId below)
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    # Fields given as log.info(..., extra={...}): these, not a request object's repr.
    structlog.stdlib.ExtraAdder(allow=("method", "path", "status", "ms", "status_code")),
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def formatter() -> logging.Formatter:
    """The formatter of settings.LOGGING's handler (and of gunicorn's own error log)."""
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=CHAIN,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),  # ensure_ascii: every control escaped
        ],
    )


# An id a caller sends in X-Request-ID is kept if it is short and plain (a proxy's or a
# client's own, to follow one call through several logs); else one is made.
GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")
requests_log = logging.getLogger("pitchpass.requests")


def logged_path(request: HttpRequest) -> str:
    """The path, but a secret in it (a calendar feed's address is its secret) as
    `[secret]`: the log must not hold what opens a feed."""
    found = getattr(request, "resolver_match", None)
    secret = found.kwargs.get("secret") if found is not None else None
    return request.path.replace(secret, "[secret]") if secret else request.path


class RequestId:
    """Names each request (X-Request-ID, in the answer too) for every record written while
    it is answered, and writes one record for it when answered: method, path, status and
    milliseconds (logger pitchpass.requests, INFO; PITCHPASS_LOG_REQUESTS=0 leaves it out)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        request_id = given if GIVEN_ID.fullmatch(given) else uuid.uuid4().hex
        started = time.perf_counter()
        # Bound until this thread's next request (not unbound on the way out): Django
        # writes its own record of a failed request (django.request) after the
        # middleware has answered, and it carries the id too.
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        if getattr(settings, "PITCHPASS_LOG_REQUESTS", True):
            requests_log.info(
                "answered",
                extra={
                    "method": request.method,
                    "path": logged_path(request),
                    "status": response.status_code,
                    "ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
        return response
