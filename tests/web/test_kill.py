"""A server killed mid-burst (issue 10, faults): a real `pitchpass serve` takes a burst of
submissions from several clients at once and is killed (SIGKILL) halfway; started again,
every submission it acknowledged (201) is there exactly once, and nothing half-written:
each stored request is whole, the match decides and publishes, and no zone is over
capacity. On SQLite here; the PostgreSQL run does the same against PostgreSQL."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest
from servers import MATCH, call, cli, free_port, future_match, serve, stop, token

pytestmark = pytest.mark.django_db(transaction=True)


def test_every_acknowledged_submission_survives_a_kill(tmp_path: Path) -> None:
    home = tmp_path / "home"
    future_match(tmp_path, home)
    tv, boss = token(home, "tv"), token(home, "boss")
    port = free_port()
    server = serve(home, port)
    acknowledged: list[str] = []
    lock = threading.Lock()
    finish = threading.Event()

    def client(n: int) -> None:
        for k in range(200):
            if finish.is_set():
                return
            body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1, "id": f"c{n}-{k}"}
            try:
                status, answer = call(port, tv, "POST", f"/matches/{MATCH}/requests", body, 10)
            except OSError:
                return  # the server is gone: what was not acknowledged may or may not be
            if status == 201:
                with lock:
                    acknowledged.append(answer["id"])

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 20:
        assert time.monotonic() < deadline, "too few submissions acknowledged"
        time.sleep(0.05)
    server.send_signal(signal.SIGKILL)
    server.wait(timeout=10)
    finish.set()
    for thread in threads:
        thread.join(timeout=30)
    server = serve(home, port)  # started again, at once, on its port
    try:
        status, stored = call(port, tv, "GET", f"/matches/{MATCH}/requests")
        assert status == 200
        ids = [r["id"] for r in stored]
        assert len(ids) == len(set(ids))  # none twice
        missing = sorted(set(acknowledged) - set(ids))
        assert missing == [], missing  # every acknowledged one is there
        burst = [r for r in stored if r["id"].startswith("bt-sport.c")]
        assert burst and all(r["zone"] == "mixed-zone" and r["crew"] == 1 for r in burst)
        status, decided = call(port, boss, "POST", f"/matches/{MATCH}/decide", timeout=60)
        assert status == 200
        assert all(u["used"] <= u["capacity"] for u in decided["usage"])
        assert call(port, boss, "POST", f"/matches/{MATCH}/publish", timeout=60)[0] == 200
    finally:
        stop(server)
    verified = cli(home, "audit", "verify")
    assert verified.returncode == 0, verified.stderr  # the audit holds after the kill
