"""A server killed mid-burst (issue 10, faults): a real `pitchpass serve` takes a burst of
submissions from several clients at once and is killed (SIGKILL) halfway; started again,
every submission it acknowledged (201) is there exactly once, and nothing half-written:
each stored request is whole, the match decides and publishes, and no zone is over
capacity. On SQLite here; the PostgreSQL run does the same against PostgreSQL."""

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

import pytest
from django.db import connection

ROOT = Path(__file__).parents[2]
MATCH = "mun-mci-2099-12-10"
pytestmark = pytest.mark.django_db(transaction=True)


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ, PITCHPASS_HOME=str(home), PITCHPASS_API_WRITE_RATE="100000/m")
    env["PITCHPASS_API_RATE"] = "100000/m"
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        env["DATABASE_URL"] = (
            f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
        )
    else:
        env.pop("DATABASE_URL", None)
    return env


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pitchpass", *args], capture_output=True, text=True, env=_env(home)
    )


def _serve(home: Path, port: int) -> subprocess.Popen[str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "serve", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(home),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.2)


def test_every_acknowledged_submission_survives_a_kill(tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    text = text.replace("mun-mci-2017-12-10", MATCH).replace(
        "kickoff: 2017-12-10T16:30:00+00:00", "kickoff: 2099-12-10T16:30:00+00:00"
    )
    scenario = tmp_path / "future.yaml"
    scenario.write_text(text)
    home = tmp_path / "home"
    assert _cli(home, "load", str(scenario)).returncode == 0
    assert _cli(home, "user", "add", "tv", "--role", "media", "--org", "bt-sport",
                "--password", "a-long-phrase-1").returncode == 0  # fmt: skip
    assert _cli(home, "user", "add", "boss", "--role", "officer", "--org", "man-united",
                "--password", "a-long-phrase-2").returncode == 0  # fmt: skip
    token = _cli(home, "token", "create", "tv").stdout.strip()
    boss = _cli(home, "token", "create", "boss").stdout.strip()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = _serve(home, port)
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def client(n: int) -> None:
        for k in range(200):
            if stop.is_set():
                return
            body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1, "id": f"c{n}-{k}"}
            call = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/matches/{MATCH}/requests",
                data=json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                method="POST",
            )
            try:
                with urllib.request.urlopen(call, timeout=10) as answer:
                    if answer.status == 201:
                        with lock:
                            acknowledged.append(json.loads(answer.read())["id"])
            except (urllib.error.URLError, OSError, ConnectionError):
                return  # the server is gone: what was not acknowledged may or may not be

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 20:
        assert time.monotonic() < deadline, "too few submissions acknowledged"
        time.sleep(0.05)
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=10)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    server = _serve(home, port)  # started again, at once, on its port
    try:
        listed = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/matches/{MATCH}/requests",
            headers={"Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(listed, timeout=30) as answer:
            stored = json.loads(answer.read())
        ids = [r["id"] for r in stored]
        assert len(ids) == len(set(ids))  # none twice
        missing = sorted(set(acknowledged) - set(ids))
        assert missing == [], missing  # every acknowledged one is there
        burst = [r for r in stored if r["id"].startswith("bt-sport.c")]
        assert burst and all(r["zone"] == "mixed-zone" and r["crew"] == 1 for r in burst)
        for action in ("decide", "publish"):
            call = urllib.request.Request(
                f"http://127.0.0.1:{port}/api/matches/{MATCH}/{action}",
                headers={"Authorization": f"Bearer {boss}"},
                method="POST",
            )
            with urllib.request.urlopen(call, timeout=60) as answer:
                assert answer.status == 200
                if action == "decide":
                    usage = json.loads(answer.read())["usage"]
        assert all(u["used"] <= u["capacity"] for u in usage)
    finally:
        server.terminate()
        server.communicate(timeout=10)
    verified = _cli(home, "audit", "verify")
    assert verified.returncode == 0, verified.stderr  # the audit holds after the kill
