"""A server killed mid-burst (issue 10, faults): a real `pitchpass serve` takes a burst of
submissions from several clients at once and is killed (SIGKILL) halfway; started again,
every submission it acknowledged (201) is there exactly once, and nothing half-written:
each stored request is whole, the match decides and publishes, and no zone is over
capacity. On SQLite here; the PostgreSQL run does the same against PostgreSQL."""

from __future__ import annotations

import contextlib
import http.client
import threading
import time
from pathlib import Path

import pytest
from servers import MATCH, call, cli, crash, free_port, future_match, serve, stop, token

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
            except (OSError, http.client.HTTPException):  # killed mid-answer: IncompleteRead
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
    crash(server, port)
    finish.set()
    for thread in threads:
        thread.join(timeout=30)
    server = serve(home, port)  # started again, at once, on its port
    try:
        status, page = call(port, tv, "GET", f"/matches/{MATCH}/requests?limit=1000")
        assert status == 200
        stored = page["items"]
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


def _locked(port: int, token: str) -> set[str]:
    status, page = call(port, token, "GET", f"/matches/{MATCH}/requests?limit=1000")
    assert status == 200
    return {r["id"] for r in page["items"] if r.get("locked")}


def test_a_server_killed_during_publish_publishes_all_or_nothing(tmp_path: Path) -> None:
    """Publish sent, and the server killed (SIGKILL) a moment later, at seven moments
    from at once to after the answer: started again, the match's published grants are
    those from before or those and every grant of the run, never a part of them, and
    each is told to its organisation once (issue 11: the notices are in the same change);
    what is published fits every zone (the core checks the exported match); the audit verifies."""
    import yaml

    from pitchpass.core import load_document

    home = tmp_path / "home"
    future_match(tmp_path, home)
    tv, boss = token(home, "tv"), token(home, "boss")
    added = cli(home, "user", "add", "desk", "--role", "media", "--org", "bt-sport",
                "--password", "a-long-phrase-desk", "--email", "desk@bt-sport.invalid")  # fmt: skip
    assert added.returncode == 0, added.stderr
    port = free_port()
    server = serve(home, port)
    outcomes, granted_lines = [], []
    try:
        # The last kill comes long after a publish takes on a busy 2-core machine (0.5 to
        # 0.7 s for this match on PostgreSQL): some publish gets through before its kill.
        for n, delay in enumerate((0.0, 0.01, 0.03, 0.08, 0.2, 0.5, 3.0)):
            for k in range(15):  # requests to publish, each round
                body = {
                    "zone": "pitch-side",
                    "phases": ["post-match"],
                    "crew": 1,
                    "id": f"p{n}-{k}",
                }
                assert call(port, tv, "POST", f"/matches/{MATCH}/requests", body)[0] == 201
            status, decided = call(port, boss, "POST", f"/matches/{MATCH}/decide", timeout=60)
            assert status == 200
            granted = {d["request"] for d in decided["decisions"] if d["status"] == "granted"}
            before = _locked(port, boss)
            publishing = threading.Thread(
                target=_quietly, args=(port, boss, "POST", f"/matches/{MATCH}/publish")
            )
            publishing.start()
            time.sleep(delay)
            crash(server, port)
            publishing.join(timeout=30)
            server = serve(home, port)
            after = _locked(port, boss)
            assert after in (before, before | granted), (delay, after - before)
            outcomes.append(after == before | granted and granted - before != set())
            granted_lines = _told_once(port, tv)
            status, text = call(port, boss, "GET", f"/matches/{MATCH}/export", raw=True)
            load_document(yaml.safe_load(text))  # published grants over a zone's places fail
    finally:
        stop(server)
    assert True in outcomes  # some publish got through before its kill: both cases seen
    # The e-mails were queued with the changes: a worker started afterwards sends each
    # grant's notice once, to the organisation's user with an address.
    worked = cli(home, "worker", "--batch")
    assert worked.returncode == 0, worked.stderr
    mails = "".join(f.read_text() for f in sorted((home / "mail").glob("*")))
    assert granted_lines
    for line in granted_lines:
        assert mails.count(f"- {line}\n") == 1, line
    verified = cli(home, "audit", "verify")
    assert verified.returncode == 0, verified.stderr


def _told_once(port: int, tv: str) -> list[str]:
    """The notices a publish writes are written with it: each of the organisation's
    published grants is told once (`granted`), none that is not published."""
    status, page = call(port, tv, "GET", "/notices?kind=granted&limit=1000")
    assert status == 200
    told = page["items"]
    requests = [n["request"] for n in told]
    assert len(requests) == len(set(requests)), requests  # none told twice
    assert set(requests) == _locked(port, tv)
    return [n["text"] for n in told]


def _quietly(port: int, token: str, method: str, path: str) -> None:
    with contextlib.suppress(OSError):  # killed before it answered
        call(port, token, method, path, timeout=30)
