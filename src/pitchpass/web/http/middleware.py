"""A refusal raised while a page is made (a user with no role, say) is a page that says
so, with the status its code stands for, never a server error. The API has its own
handlers (api.py) and is left to them; a path or method it does not have is answered in
its error shape here, not as a page."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string

from pitchpass.web.errors import DATABASE_AWAY, ErrorCode, ServiceError
from pitchpass.web.http import throttles
from pitchpass.web.services.snapshot import read_once


class PageErrors:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:  # no id holds one; PostgreSQL could not even look it up
            error = ServiceError(ErrorCode.NOT_FOUND, "no such path (it holds a NUL character)")
            if request.path.startswith("/api/"):
                return JsonResponse(error.as_json(), status=error.status)
            return render(request, "pitchpass/error.html", {"error": error}, status=404)
        response = self.get_response(request)
        api = request.path.startswith("/api/") and response.status_code in (404, 405)
        if api and not response.get("Content-Type", "").startswith("application/json"):
            return _api_answer(request, response)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if request.path.startswith("/api/"):
            return None
        if isinstance(exception, OperationalError | InterfaceError):  # the database went away
            exception = ServiceError(ErrorCode.UNAVAILABLE, DATABASE_AWAY)
        if not isinstance(exception, ServiceError):
            return None
        context = {"error": exception}
        return render(request, "pitchpass/error.html", context, status=exception.status)


def _api_answer(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A path or method the API does not have, in the API's one error shape."""
    if response.status_code == 405:
        allowed = response.get("Allow", "")
        error = ServiceError(
            ErrorCode.METHOD_NOT_ALLOWED, f"{request.path} takes {allowed or 'other methods'}"
        )
    else:
        hint = (
            f" (API paths end without a slash: {request.path.rstrip('/')})"
            if (request.path.endswith("/") and request.path != "/api/")
            else " (see /api/docs)"
        )
        error = ServiceError(ErrorCode.NOT_FOUND, f"no API path {request.path}{hint}")
    answer = JsonResponse(error.as_json(), status=error.status)
    if response.get("Allow"):
        answer["Allow"] = response["Allow"]
    return answer


# Page posts that are not changes of the desk's: signing in and out (the lockout counts
# those), and the admin site's own forms.
NOT_COUNTED = ("/login/", "/logout/", "/admin/")


class PageWrites:
    """A page form that changes something (a request, a decision, a scan at the door)
    counts against the same user's write rate as the API (throttles.WRITES): past it, a
    429 page says when to try again, as the API says Retry-After."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        counted = (
            request.method == "POST"
            and not request.path.startswith(("/api/", *NOT_COUNTED))
            and request.user.is_authenticated
        )
        if counted:
            request.auth = request.user  # type: ignore[attr-defined]  # the rate is per user
            limit = throttles.WRITES[0]
            if not limit.allow_request(request):
                seconds = max(1, math.ceil(limit.wait() or 1))
                error = ServiceError(
                    ErrorCode.TOO_MANY,
                    f"too many changes: wait {seconds} seconds (the rates are per user, for the"
                    " pages and the API alike)",
                )
                if request.headers.get("Accept", "").startswith("application/json"):
                    answer: HttpResponse = JsonResponse(error.as_json(), status=error.status)
                else:
                    answer = render(request, "pitchpass/error.html", {"error": error}, status=429)
                answer["Retry-After"] = str(seconds)
                return answer
        return self.get_response(request)


class ReadOnce:
    """A GET or HEAD writes nothing: while it is answered, each match's scenario is
    exported once (services.snapshot), however many parts of the page ask for it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in ("GET", "HEAD"):
            return self.get_response(request)
        with read_once():
            return self.get_response(request)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """urls.handler404: the page says what the view said (`Http404("no match ...")`), and
    nothing of Django's own (the URL resolver's "Resolver404", the patterns tried)."""
    said = exception.args[0] if exception.args and isinstance(exception.args[0], str) else ""
    page = render_to_string("404.html", {"exception": said}, request=request)
    return HttpResponse(page, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's last resort (urls.handler500), for faults outside any view (a middleware
    reading the session, say): the database away is a 503 that says so; anything else a
    500, in the API's error shape under /api/. Nothing here asks the database."""
    fault = sys.exc_info()[1]
    if isinstance(fault, OperationalError | InterfaceError):
        error = ServiceError(ErrorCode.UNAVAILABLE, DATABASE_AWAY)
        title = "The database cannot be reached"
    else:
        error = ServiceError(ErrorCode.INTERNAL, "the server failed to answer; the fault is logged")
        title = "Something went wrong"
    if request.path.startswith("/api/"):
        return JsonResponse(error.as_json(), status=error.status)
    page = render_to_string(
        "pitchpass/unavailable.html", {"title": title, "message": error.message}
    )
    return HttpResponse(page, status=error.status)
