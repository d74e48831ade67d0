"""What an operator watches (issue 28, section 9): /health/ asks the database, the cache
and the worker's beat, and says 503 naming what is missing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from pitchpass.web.services import queue


@pytest.mark.django_db(transaction=True)  # the checks run in threads of their own
def test_health_names_a_missing_worker_then_is_well_once_one_beats() -> None:
    client = Client()
    answer = client.get("/health/", HTTP_ACCEPT="application/json")
    assert answer.status_code == 503
    states: dict[str, Any] = answer.json()
    assert [state for name, state in states.items() if name.startswith("Database")] == ["OK"]
    assert [state for name, state in states.items() if name.startswith("Cache")] == ["OK"]
    assert states["WorkerAlive()"].startswith("Unavailable: no worker has beaten in 15 s")
    now = timezone.now()
    queue.beat("w-1", now, now)
    well = client.get("/health/?format=json")
    assert well.status_code == 200
    assert set(well.json().values()) == {"OK"}
    assert "no-cache" in well["Cache-Control"]
    text = client.get("/health/", HTTP_ACCEPT="text/plain")
    assert text.status_code == 200 and "WorkerAlive(): OK" in text.content.decode()
    old = now - queue.stale_after() - timezone.timedelta(seconds=1)
    queue.beat("w-1", old, old)  # the worker stopped beating
    assert client.get("/health/?format=json").status_code == 503


@pytest.mark.django_db
def test_metrics_are_counted_and_shown_to_this_machine_only(settings: Any) -> None:
    client = Client()
    for _ in range(3):
        assert client.get("/api/matches").status_code == 401
    shown = client.get("/metrics")  # the test client calls from 127.0.0.1
    assert shown.status_code == 200
    text = shown.content.decode()
    assert "django_http_requests_latency_seconds_by_view_method" in text
    assert _count(text, 'django_http_responses_total_by_status_total{status="401"}') >= 3
    assert Client(REMOTE_ADDR="203.0.113.9").get("/metrics").status_code == 404
    # Through a proxy (the server listens on 127.0.0.1, so the proxy's call comes from
    # there too): refused, whether the proxy is counted as trusted or not.
    for proxies in (0, 1):
        settings.PITCHPASS_PROXIES = proxies
        for header in ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP"):
            far = Client(**{header: "203.0.113.9"})
            assert far.get("/metrics").status_code == 404, (proxies, header)


def _count(text: str, name: str) -> float:
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))
