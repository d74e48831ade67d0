"""Real `pitchpass serve` processes for the fault and multi-server tests: each over the
database the test runs on (SQLite in its own folder, or the test's PostgreSQL database),
driven over HTTP as a client would."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from django.db import connection

ROOT = Path(__file__).parents[2]
MATCH = "mun-mci-2099-12-10"


def env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI or server process: rates far above what a test sends."""
    result = dict(os.environ, PITCHPASS_HOME=str(home))
    result |= {"PITCHPASS_API_WRITE_RATE": "100000/m", "PITCHPASS_API_RATE": "100000/m"}
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        result["DATABASE_URL"] = (
            f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
        )
    else:
        result.pop("DATABASE_URL", None)
    return result | extra


def cli(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitchpass", *args],
        capture_output=True,
        text=True,
        env=env(home, **extra),
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve(home: Path, port: int, *args: str, **extra: str) -> subprocess.Popen[str]:
    """A server on `port`, once it answers."""
    server = subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env(home, **extra),
        start_new_session=True,  # its gunicorn workers with it, for crash()
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                _drain(server)
                return server
        assert server.poll() is None, server.communicate()[0]
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.2)


def crash(server: subprocess.Popen[str], port: int) -> None:
    """The server killed at once (SIGKILL), as a machine's crash would: gunicorn's master
    and its workers (a worker left without its master would answer a while longer); back
    once its port is closed."""
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(timeout=10)
    _OUTPUT.pop(server.pid, None)
    deadline = time.monotonic() + 10
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return
        assert time.monotonic() < deadline, "the killed server's port stayed open"
        time.sleep(0.05)


# What each server wrote, read as it writes (a pipe left unread fills, and the server
# then waits on its next log record): its pid's lines.
_OUTPUT: dict[int, tuple[threading.Thread, list[str]]] = {}


def _drain(server: subprocess.Popen[str]) -> None:
    lines: list[str] = []
    assert server.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(server.stdout or ()), daemon=True)
    reader.start()
    _OUTPUT[server.pid] = (reader, lines)


def stop(server: subprocess.Popen[str]) -> str:
    """Stopped as an operator would (SIGTERM); what it wrote."""
    server.terminate()
    server.wait(timeout=40)
    reader, lines = _OUTPUT.pop(server.pid)
    reader.join(timeout=10)
    return "".join(lines)


def future_match(tmp_path: Path, home: Path) -> None:
    """The seed match, moved to 2099 (requests still open), loaded; users `tv` (media,
    bt-sport) and `boss` (officer, man-united)."""
    text = (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    text = text.replace("mun-mci-2017-12-10", MATCH).replace(
        "kickoff: 2017-12-10T16:30:00+00:00", "kickoff: 2099-12-10T16:30:00+00:00"
    )
    scenario = tmp_path / "future.yaml"
    scenario.write_text(text)
    assert cli(home, "load", str(scenario)).returncode == 0
    for name, role, org in (("tv", "media", "bt-sport"), ("boss", "officer", "man-united")):
        added = cli(home, "user", "add", name, "--role", role, "--org", org,
                    "--password", f"a-long-phrase-{name}")  # fmt: skip
        assert added.returncode == 0, added.stderr


def token(home: Path, user: str) -> str:
    return cli(home, "token", "create", user).stdout.strip()


def call(
    port: int,
    token: str,
    method: str,
    path: str,
    body: Any = None,
    timeout: float = 30,
    raw: bool = False,
) -> tuple[int, Any]:
    """(status, JSON answer, or its text if `raw`) of an API call; raises OSError if the
    server is gone."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        method=method,
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            text = answer.read()
            if raw:
                return answer.status, text.decode()
            return answer.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")
