"""`pitchpass webhook listen`: a receiver of pitchpass's webhooks, as an organisation's
own would be: each message's signature is checked with the shared secret (Standard
Webhooks: the id, the timestamp within five minutes, the body), and what it says printed.
A message that does not check is answered 401 and said so; a repeat (the same
webhook-id, a retry) is answered 204 and not printed again."""

from __future__ import annotations

import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook

MAX_BODY = 1_000_000


def listen(secret: str, port: int, say: Callable[[str], Any]) -> None:
    checker = Webhook(secret)
    seen: set[str] = set()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if not 0 < length <= MAX_BODY:
                self._answer(413 if length else 400)
                return
            body = self.rfile.read(length)
            try:
                event = checker.verify(body, dict(self.headers.items()))
            except Exception as error:  # any failed check: not from pitchpass
                say(f"refused a message: {error}")
                self._answer(401)
                return
            msg_id = self.headers.get("webhook-id", "")
            if msg_id not in seen:
                seen.add(msg_id)
                data = event.get("data", {})
                say(f"{event.get('type')} {msg_id}: {json.dumps(data, sort_keys=True)}")
            self._answer(204)

        def _answer(self, status: int) -> None:
            self.send_response(status)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        say("stopped")
    finally:
        server.server_close()
