"""A refusal raised while a page is made (a user with no role, say) is a page that says
so, with the status its code stands for, never a server error. The API has its own
handlers (api.py) and is left to them."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from pitchpass.web.errors import ServiceError


class PageErrors:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, ServiceError) or request.path.startswith("/api/"):
            return None
        context = {"error": exception}
        return render(request, "pitchpass/error.html", context, status=exception.status)
