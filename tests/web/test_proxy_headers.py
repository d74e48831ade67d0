"""The one-process server (waitress) behind a proxy (issue 26, section 7): with
PITCHPASS_PROXIES set, the proxy's X-Forwarded-For and X-Forwarded-Proto reach the app,
which alone decides what to believe; with none, waitress strips them, as by default.
A real waitress server on a free port, asked over a socket."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from waitress import create_server

from pitchpass.web.workers import waitress_options


def _echo(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    keys = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "REMOTE_ADDR")
    body = json.dumps({k: environ.get(k) for k in keys}).encode()
    start_response("200 OK", [("Content-Type", "application/json")])
    return [body]


def _served(settings: Any, proxies: int) -> Iterator[dict[str, Any]]:
    settings.PITCHPASS_PROXIES = proxies
    options = waitress_options(0) | {"port": 0}
    server = create_server(_echo, **options)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        port = server.effective_port  # type: ignore[union-attr]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request(
            "GET", "/", headers={"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https"}
        )
        yield json.loads(connection.getresponse().read())
    finally:
        server.close()


@pytest.mark.parametrize("proxies", [0, 1])
def test_the_proxys_headers_reach_the_app_only_behind_trusted_proxies(
    settings: Any, proxies: int
) -> None:
    seen = next(_served(settings, proxies))
    assert seen["REMOTE_ADDR"] == "127.0.0.1"  # the app decides; waitress rewrites nothing
    if proxies:
        assert seen["HTTP_X_FORWARDED_FOR"] == "198.51.100.7"
        assert seen["HTTP_X_FORWARDED_PROTO"] == "https"
    else:
        assert seen["HTTP_X_FORWARDED_FOR"] is None and seen["HTTP_X_FORWARDED_PROTO"] is None
