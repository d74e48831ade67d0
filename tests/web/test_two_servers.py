"""Two servers over one database behave as one (issue 10, deployment): `pitchpass serve
--workers 2` twice, on two ports, each server two gunicorn processes. Submissions go to
both at once while the officer decides and publishes on both at once: every
acknowledged submission is stored once, what is published never holds more people than
a zone has places (the core checks the exported match), and a rate counted on one
server counts on the other (the rates are in the database, not in a process). On
PostgreSQL in CI's second run, on one SQLite file here."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import yaml
from servers import MATCH, call, free_port, future_match, serve, stop, token

from pitchpass.core import load_document

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_servers_act_as_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    future_match(tmp_path, home)
    tv, boss = token(home, "tv"), token(home, "boss")
    ports = [free_port(), free_port()]
    servers = [
        serve(home, port, "--workers", "2", PITCHPASS_API_BAD_TOKEN_RATE="6/m") for port in ports
    ]
    acknowledged: list[str] = []
    faults: list[str] = []
    lock = threading.Lock()

    def media(n: int) -> None:
        for k in range(12):  # crews of 3 for 8 places: most cannot be granted
            body = {"zone": "flash-interview", "phases": ["post-match"], "crew": 3,
                    "id": f"s{n}-{k}"}  # fmt: skip
            status, answer = call(
                ports[(n + k) % 2], tv, "POST", f"/matches/{MATCH}/requests", body
            )
            with lock:
                if status == 201:
                    acknowledged.append(answer["id"])
                else:
                    faults.append(f"submit {status} {answer}")

    def officer(n: int) -> None:
        for k in range(4):
            for action in ("decide", "publish"):
                port = ports[(n + k) % 2]
                status, answer = call(port, boss, "POST", f"/matches/{MATCH}/{action}", timeout=60)
                stale = status == 409 and answer["code"] == "stale-run"  # a request came
                if status != 200 and not stale:
                    with lock:
                        faults.append(f"{action} {status} {answer}")

    try:
        threads = [threading.Thread(target=media, args=(n,)) for n in range(3)]
        threads += [threading.Thread(target=officer, args=(n,)) for n in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert faults == []
        for action in ("decide", "publish"):  # the last of them published
            assert call(ports[1], boss, "POST", f"/matches/{MATCH}/{action}", timeout=60)[0] == 200
        status, page = call(ports[0], tv, "GET", f"/matches/{MATCH}/requests?limit=1000")
        stored = page["items"]
        ids = [r["id"] for r in stored]
        assert len(ids) == len(set(ids)) and set(acknowledged) <= set(ids)
        assert len(acknowledged) == 36
        locked = [r for r in stored if r["zone"] == "flash-interview" and r.get("locked")]
        assert locked  # something was published to check
        export = _export(ports[1], boss)
        load_document(export)  # published grants over a zone's places are a problem here
        status, decided = call(ports[0], boss, "POST", f"/matches/{MATCH}/decide", timeout=60)
        assert status == 200 and all(u["used"] <= u["capacity"] for u in decided["usage"])
        # Wrong tokens from one address: 6 a minute in all, whichever server is asked.
        answers = [call(ports[k % 2], "wrong", "GET", "/matches")[0] for k in range(8)]
        assert answers == [401] * 6 + [429] * 2
        # /metrics adds up both of a server's workers (each counts in its own file): the
        # 3 wrong tokens the first server answered 401, whichever worker took them.
        wrong = 'django_http_responses_total_by_status_total{status="401"}'
        assert _count(_metrics(ports[0]), wrong) == 3
    finally:
        logs = [stop(server) for server in servers]
    assert not any("Traceback" in log for log in logs), logs


def _export(port: int, token: str) -> dict[str, object]:
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/matches/{MATCH}/export",
        headers={"Authorization": f"Bearer {token}"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        document: dict[str, object] = yaml.safe_load(answer.read())
        return document


def _metrics(port: int) -> str:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
        return str(answer.read().decode())


def _count(text: str, name: str) -> float:
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))
