"""The server behind a proxy (issue 26, section 7; gunicorn since issue 28, section 9):
what a proxy in front writes (X-Forwarded-For, X-Forwarded-Proto) reaches the app
untouched, and gunicorn itself believes none of it: the address stays the socket's and
the scheme stays http, so the app alone decides, by PITCHPASS_PROXIES, what to trust
(the app's side: test_throttles, test_settings). A real gunicorn, with the options
`pitchpass serve` gives it, serving an app that echoes what it was given."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import time

from servers import free_port

ECHO = """
import json, sys
from pitchpass.web.server import _Server, options

def echo(environ, start_response):
    keys = ("HTTP_X_FORWARDED_FOR", "HTTP_X_FORWARDED_PROTO", "REMOTE_ADDR", "wsgi.url_scheme")
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps({k: environ.get(k) for k in keys}).encode()]

class Echo(_Server):
    def load(self):
        return echo

Echo(options(int(sys.argv[1]), 1)).run()
"""


def test_the_proxys_headers_reach_the_app_and_gunicorn_believes_none() -> None:
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", ECHO, str(port)], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                connection.request(
                    "GET",
                    "/",
                    headers={"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https"},
                )
                seen = json.loads(connection.getresponse().read())
                break
            except ConnectionRefusedError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=40)
    assert seen["REMOTE_ADDR"] == "127.0.0.1"
    assert seen["wsgi.url_scheme"] == "http"  # not https: gunicorn trusted no proxy
    assert seen["HTTP_X_FORWARDED_FOR"] == "198.51.100.7"
    assert seen["HTTP_X_FORWARDED_PROTO"] == "https"
