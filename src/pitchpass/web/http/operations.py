"""What an operator watches.

GET /health/: can this server do its work? django-health-check asks the database, the
cache (where the rates are counted) and whether a `pitchpass worker` beats (without one,
notices, releases and the waitlist wait). 200 when all answer, 503 naming what does not:
JSON for `Accept: application/json` or `?format=json`, plain text, or a page. It shows
no data, only each check's state, and asks for no sign-in (a load balancer calls it).

GET /metrics: django-prometheus's counts (requests, answers by status and view, their
times, database and cache calls) for Prometheus, to a caller on this machine calling
directly (no proxy's header); any other caller gets the site's 404."""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import connections
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django_prometheus.exports import ExportToDjangoView
from health_check.base import HealthCheck
from health_check.checks import Cache, Database
from health_check.exceptions import ServiceUnavailable
from health_check.views import HealthCheckView

from pitchpass.web.http.throttles import client_address
from pitchpass.web.services import queue

LOCAL = ("127.0.0.1", "::1")


@dataclasses.dataclass
class WorkerAlive(HealthCheck):  # type: ignore[misc]  # no types shipped
    """A worker has written its beat within three of its beats (PITCHPASS_WORKER_BEAT)."""

    def run(self) -> None:
        try:
            alive = queue.workers_alive(timezone.now())
        finally:
            connections.close_all()  # the connection this check's thread opened
        if not alive:
            seconds = queue.stale_after().total_seconds()
            raise ServiceUnavailable(
                f"no worker has beaten in {seconds:g} s: notices and releases wait"
                " (start `pitchpass worker`)"
            )


class Health(HealthCheckView):  # type: ignore[misc]  # django-health-check ships no types
    checks = (Database, Cache, WorkerAlive)

    async def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response: HttpResponse = await super().dispatch(request, *args, **kwargs)
        if response.status_code == 500:  # a check failed: the service is unavailable
            response.status_code = 503
        return response


# Headers a proxy adds: a call that carries one came through a proxy, from elsewhere.
PROXIED = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def metrics(request: HttpRequest) -> HttpResponse:
    """For a caller on this machine, calling directly: the server listens on 127.0.0.1,
    so a call a proxy passes on comes from 127.0.0.1 too; one that carries a proxy's
    header is refused, whatever PITCHPASS_PROXIES says."""
    proxied = any(header in request.META for header in PROXIED)
    if proxied or client_address(request) not in LOCAL:
        raise Http404("no such page")
    answer: HttpResponse = ExportToDjangoView(request)
    return answer
