"""The database goes away (issue 10, faults): a real server (`pitchpass serve`) reaches
PostgreSQL through a TCP relay the test controls. With the relay cut, the API answers
503 `unavailable` in the error shape and the pages a 503 page, never a 500 or a hang;
with the relay back, the same server answers again, without a restart."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")


class Relay:
    """Bytes between a local port and PostgreSQL, until cut (then connections are
    refused and those open are closed)."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.running = True
        self.listener.listen()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.running:
                client.close()
                continue
            server = socket.create_connection(self.target)
            self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.close()

    def cut(self) -> None:
        self.running = False
        for end in self.open:
            try:
                end.shutdown(socket.SHUT_RDWR)
                end.close()
            except OSError:
                pass
        self.open.clear()

    def mend(self) -> None:
        self.running = True


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_server_answers_503_while_the_database_is_away_and_recovers(tmp_path: Path) -> None:
    settings = connection.settings_dict
    relay = Relay((settings["HOST"] or "127.0.0.1", int(settings["PORT"] or 5432)))
    url = (
        f"postgres://{settings['USER']}@127.0.0.1:{relay.port}/{settings['NAME']}?connect_timeout=3"
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, PITCHPASS_HOME=str(tmp_path), DATABASE_URL=url)
    server = subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "serve", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if _get(f"{base}/api/matches")[0] == 401:  # up: it asks who is calling
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not answer in 60 s"
            time.sleep(0.3)
        token = "not-a-real-token"  # the token lookup is the database call that fails
        api = urllib.request.Request(
            f"{base}/api/matches", headers={"Authorization": f"Bearer {token}"}
        )
        relay.cut()
        try:
            with urllib.request.urlopen(api, timeout=30):
                pytest.fail("answered with the database away")
        except urllib.error.HTTPError as error:
            assert error.code == 503, error.read()
            said = json.loads(error.read())
            assert said["code"] == "unavailable" and "try again" in said["message"]
        # A page with a session to look up: a 503 page that says so.
        board = urllib.request.Request(f"{base}/", headers={"Cookie": "sessionid=" + "a" * 32})
        try:
            with urllib.request.urlopen(board, timeout=30):
                pytest.fail("a page answered with the database away")
        except urllib.error.HTTPError as error:
            assert error.code == 503 and b"cannot be reached just now" in error.read()
        relay.mend()
        status, _ = _get(f"{base}/api/matches")
        assert status == 401  # answering again, the same server: it asks who is calling
    finally:
        relay.cut()
        server.terminate()
        output = server.communicate(timeout=10)[0]
    # The API's fault is one line of the log; a page's, outside any view, Django's own
    # record with its traceback (for the operator; the user saw the 503 page).
    assert "GET /api/matches: the database cannot be reached" in output, output
