"""Benchmark: the API under a rush (issue 10, section 3), against a bare Django endpoint
served by the same server in the same run. Writes benchmarks/RESULTS-web.md.

    .venv/bin/python benchmarks/web.py [--seconds 8] [--rounds 5] [--clients 50]

A fresh PostgreSQL database (`--database`, dropped and made again) gets the seed match
moved to 2099, a media user per broadcaster and a token each. One server, `pitchpass
serve --workers 2` (gunicorn), serves pitchpass and `/bench/bare` (web_urls.py). Clients
are asyncio connections in this process, kept alive. Kinds, interleaved in each round:

- bare-write: POST /bench/bare, one JSON body read and one row inserted;
- locked-write: POST /bench/locked, the same inserted after one row is locked, the same
  row for every call (as every submission to a match locks the match): the most any
  design that takes one lock per match, held to the commit, can do here;
- submit: POST /api/matches/M/requests, a new request (mixed zone, post-match, crew 1);
- bare-read: GET /bench/bare, one row selected;
- read: GET /api/matches/M/requests, a broadcaster's own requests (orgs that do not
  submit in the run, so the answer keeps its size);
- bare-page: GET /bench/page, signed in (a session cookie): one row, a small template;
- board: GET /matches/M/, the match board (HTML) as a broadcaster's people see it on
  match day (signed in; the match published, kick-off 30 minutes away, so its live
  header counts the doors);
- board-officer: the same board as the home club's officer sees it (every request, the
  proposal, what-if links, the access list).

Throughput: every client sends its next call as soon as the last is answered, for
`--seconds`. Latency: every client sends a call every `--pace` seconds (less often if
answers are slower), what 50 people at a desk or 50 clients of a broadcaster's system do.
Afterwards the match must hold every acknowledged (201) submission exactly once, no call
may have failed, and a decide must keep every zone within its places; else exit 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlparse

HERE = Path(__file__).parent
ROOT = HERE.parent
MATCH = "mun-mci-2099-12-10"
LIVE = "mun-mci-live"  # the seed again, kicking off 30 minutes after the run starts
KINDS = ("bare-write", "locked-write", "submit", "bare-read", "read", "bare-page", "board",
         "board-officer")  # fmt: skip


@dataclass
class Sample:
    kind: str
    mode: str  # "throughput" or "latency"
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    rates: list[float] = field(default_factory=list)  # of each round, once merged

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


class Client:
    """One kept-alive HTTP/1.1 connection."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, token: str, body: Any = None) -> tuple[int, bytes]:
        """`token`: an API token, or "sessionid=..." (a page's session cookie)."""
        data = b"" if body is None else json.dumps(body).encode()
        page = token.startswith("sessionid=")
        who = f"Cookie: {token}" if page else f"Authorization: Bearer {token}"
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"{who}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        for attempt in (1, 2):  # once more on a connection the server had closed
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            assert self.reader is not None
            try:
                self.writer.write(head.encode() + data)
                await self.writer.drain()
                return await self._answer(self.reader)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.writer.close()
                self.writer = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        status = int((await reader.readuntil(b"\r\n")).split()[1])
        length, chunked, close = 0, False, False
        while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value:
                chunked = True
            elif name == "connection" and value == "close":
                close = True
        if chunked:
            body = b""
            while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
                body += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        else:
            body = await reader.readexactly(length)
        if close and self.writer is not None:
            self.writer.close()
            self.writer = None
        return status, body


@dataclass
class Setup:
    port: int
    submitters: list[str]  # tokens
    readers: list[str]
    officer: str
    sessions: list[str]  # "sessionid=..." of media users who do not submit
    officer_session: str
    acknowledged: list[str] = field(default_factory=list)
    counter: int = 0


def _call_for(kind: str, setup: Setup, n: int) -> tuple[str, str, str, Any]:
    if kind in ("bare-write", "locked-write"):
        body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
        where = "/bench/bare" if kind == "bare-write" else "/bench/locked"
        return "POST", where, setup.submitters[n % len(setup.submitters)], body
    if kind == "submit":
        setup.counter += 1
        body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1,
                "id": f"w{setup.counter}"}  # fmt: skip
        token = setup.submitters[n % len(setup.submitters)]
        return "POST", f"/api/matches/{MATCH}/requests", token, body
    if kind == "bare-read":
        return "GET", "/bench/bare", setup.readers[n % len(setup.readers)], None
    if kind == "bare-page":
        return "GET", "/bench/page", setup.sessions[n % len(setup.sessions)], None
    if kind == "board":
        return "GET", f"/matches/{LIVE}/", setup.sessions[n % len(setup.sessions)], None
    if kind == "board-officer":
        return "GET", f"/matches/{LIVE}/", setup.officer_session, None
    return "GET", f"/api/matches/{MATCH}/requests", setup.readers[n % len(setup.readers)], None


async def run(kind: str, mode: str, setup: Setup, clients: int, seconds: float,
              pace: float) -> Sample:  # fmt: skip
    sample = Sample(kind, mode)
    connections = [Client(setup.port) for _ in range(clients)]
    start = time.perf_counter()
    end = start + seconds

    async def one(n: int) -> None:
        client = connections[n]
        if mode == "latency":
            await asyncio.sleep(pace * n / clients)  # spread over the first period
        next_at = time.perf_counter()
        while (now := time.perf_counter()) < end:
            if mode == "latency" and now < next_at:
                await asyncio.sleep(next_at - now)
                continue
            next_at += pace
            method, path, token, body = _call_for(kind, setup, n)
            sent = time.perf_counter()
            status, answer = await client.call(method, path, token, body)
            sample.latencies.append(time.perf_counter() - sent)
            sample.statuses[status] = sample.statuses.get(status, 0) + 1
            if kind == "submit" and status == 201:
                setup.acknowledged.append(json.loads(answer)["id"])

    await asyncio.gather(*(one(n) for n in range(clients)))
    sample.seconds = time.perf_counter() - start
    for client in connections:
        if client.writer is not None:
            client.writer.close()
    return sample


# A media user and a token per broadcaster, and the home club's officer, in one process
# (the services the CLI's `user add` and `token create` call); their tokens, and a signed-in
# session of each (as the sign-in page makes one), as JSON.
USERS = """
import json
from importlib import import_module
from pitchpass.web.setup import configure
configure()
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from pitchpass.web.services.accounts import do_add_user, do_create_token
sessions = import_module(settings.SESSION_ENGINE)
def signed_in(user):
    session = sessions.SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"{{settings.SESSION_COOKIE_NAME}}={{session.session_key}}"
tokens, cookies = [], []
for n, org in enumerate({orgs!r}):
    user = do_add_user(f"u{{n}}", "media", org, f"bench-phrase-{{n}}-long")
    tokens.append(do_create_token(f"u{{n}}"))
    cookies.append(signed_in(user))
boss = do_add_user("boss", "officer", "man-united", "bench-phrase-boss")
print(json.dumps([[*tokens, do_create_token("boss")], [*cookies, signed_in(boss)]]))
"""


def _cli(env: dict[str, str], *args: str, module: bool = True) -> str:
    command = [sys.executable, *(["-m", "pitchpass"] if module else []), *args]
    done = subprocess.run(command, env=env, text=True, capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"pitchpass {' '.join(args)} failed: {done.stderr}")
    return done.stdout.strip()


def _fresh_database(url: str) -> None:
    import psycopg

    parts = urlparse(url)
    name = parts.path.lstrip("/")
    admin = parts._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        db.execute(f'CREATE DATABASE "{name}"')


def prepare(url: str, home: Path) -> tuple[dict[str, str], list[str], list[str], str, list[str]]:
    """The database made again with the seed match; tokens of submitters and readers and
    of the home officer; the sessions of the readers and of the officer (the last)."""
    _fresh_database(url)
    env = dict(os.environ, PITCHPASS_HOME=str(home), DATABASE_URL=url)
    env |= {"PITCHPASS_API_RATE": "1000000/m", "PITCHPASS_API_WRITE_RATE": "1000000/m"}
    text = (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    text = text.replace("mun-mci-2017-12-10", MATCH).replace(
        "kickoff: 2017-12-10T16:30:00+00:00", "kickoff: 2099-12-10T16:30:00+00:00"
    )
    scenario = home / "future.yaml"
    home.mkdir(parents=True, exist_ok=True)
    scenario.write_text(text)
    _cli(env, "load", str(scenario))
    kickoff = datetime.now(UTC) + timedelta(minutes=30)
    live = (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    live = live.replace("mun-mci-2017-12-10", LIVE).replace(
        "kickoff: 2017-12-10T16:30:00+00:00", f"kickoff: {kickoff:%Y-%m-%dT%H:%M:%S+00:00}"
    )
    (home / "live.yaml").write_text(live)
    _cli(env, "load", str(home / "live.yaml"))
    import yaml

    orgs = [o["id"] for o in yaml.safe_load(text)["organisations"] if o["kind"] == "broadcaster"]
    tokens, cookies = json.loads(_cli(env, "-c", USERS.format(orgs=orgs[:24]), module=False))
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        db.execute("CREATE TABLE bench_bare (id serial PRIMARY KEY, body text NOT NULL)")
        db.execute("INSERT INTO bench_bare (body) VALUES ('{}')")
        db.execute("CREATE TABLE bench_turn (id integer PRIMARY KEY, n integer NOT NULL)")
        db.execute("INSERT INTO bench_turn VALUES (1, 0)")
    return env, tokens[:12], tokens[12:24], tokens[24], [*cookies[12:24], cookies[24]]


def serve(env: dict[str, str], port: int, workers: int) -> tuple[subprocess.Popen[str], IO[str]]:
    """The server, once it answers, and the file its log is written to."""
    server_env = dict(env, DJANGO_SETTINGS_MODULE="web_site")
    server_env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    # Its log (a JSON record a request) into a file: a pipe left unread would fill.
    log = tempfile.TemporaryFile("w+")  # noqa: SIM115  # open as long as the server runs
    server = subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "serve", "--port", str(port),
         "--workers", str(workers)],
        env=server_env, stdout=log, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    import socket

    deadline = time.monotonic() + 60
    while True:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server, log
        if server.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            raise SystemExit(f"the server did not start: {log.read()}")
        time.sleep(0.2)


def check(setup: Setup, samples: list[Sample]) -> list[str]:
    """What must hold after the rush: every answer a success, every acknowledged
    submission stored once, a decide within capacity."""
    failures = [f"{s.kind} ({s.mode}): answers {s.statuses}" for s in samples
                if set(s.statuses) - {200, 201}]  # fmt: skip

    async def listed() -> list[dict[str, Any]]:
        """Every stored request, page after page (1,000 a page)."""
        found: list[dict[str, Any]] = []
        while True:
            path = f"/api/matches/{MATCH}/requests?limit=1000&offset={len(found)}"
            status, body = await Client(setup.port).call("GET", path, setup.officer)
            page = json.loads(body)
            found += page["items"]
            if status != 200 or len(found) >= page["count"] or not page["items"]:
                return found

    async def decide() -> tuple[int, bytes]:
        return await Client(setup.port).call("POST", f"/api/matches/{MATCH}/decide", setup.officer)

    ids = [r["id"] for r in asyncio.run(listed())]
    if len(ids) != len(set(ids)):
        failures.append("a request is stored twice")
    missing = set(setup.acknowledged) - set(ids)
    if missing:
        failures.append(f"{len(missing)} acknowledged submissions are not stored")
    status, body = asyncio.run(decide())
    if status != 200:
        failures.append(f"decide answered {status}")
    else:
        over = [u for u in json.loads(body)["usage"] if u["used"] > u["capacity"]]
        if over:
            failures.append(f"over capacity: {over}")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="postgres://postgres@127.0.0.1:5432/pitchpass_bench")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--cache",
        default="redis://127.0.0.1:6379/3",
        help="PITCHPASS_CACHE_URL of the server (where the API's rates are counted)",
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between a client's calls")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-web.md")
    parser.add_argument("--port", type=int, default=8790, help="the server's, on 127.0.0.1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env, submitters, readers, officer, sessions = prepare(args.database, Path(folder))
        env["PITCHPASS_CACHE_URL"] = args.cache
        port = args.port
        server, server_log = serve(env, port, args.workers)
        setup = Setup(port, submitters, readers, officer, sessions[:-1], sessions[-1])
        for step in ("decide", "publish"):  # the live match's grants published
            status, body = asyncio.run(
                Client(port).call("POST", f"/api/matches/{LIVE}/{step}", officer)
            )
            if status != 200:
                raise SystemExit(f"{step} of {LIVE} answered {status}: {body[:300]!r}")
        samples: list[Sample] = []
        load_before = os.getloadavg()[0]
        try:
            for kind in KINDS:  # warm up: each worker's first calls import and connect
                asyncio.run(run(kind, "throughput", setup, args.clients, 1.0, args.pace))
            for round_number in range(args.rounds):
                for mode in ("throughput", "latency"):
                    for kind in KINDS:
                        sample = asyncio.run(
                            run(kind, mode, setup, args.clients, args.seconds, args.pace)
                        )
                        samples.append(sample)
                        print(f"round {round_number + 1} {mode:10} {kind:10} "
                              f"{sample.rate:7.1f}/s p50 {sample.quantile(0.5):6.1f} ms "
                              f"p99 {sample.quantile(0.99):6.1f} ms {sample.statuses}",
                              flush=True)  # fmt: skip
            failures = check(setup, samples)
        finally:
            server.terminate()
            server.wait(timeout=60)
            server_log.seek(0)
            log = server_log.read()
        load_after = os.getloadavg()[0]
    args.output.write_text(report(args, samples, failures, (load_before, load_after), setup))
    print(f"wrote {args.output}")
    if failures or "Traceback" in log:
        print("\n".join(failures) or log[-3000:], file=sys.stderr)
        raise SystemExit(1)


def report(args: argparse.Namespace, samples: list[Sample], failures: list[str],
           load: tuple[float, float], setup: Setup) -> str:  # fmt: skip
    def merged(kind: str, mode: str) -> Sample:
        runs = [s for s in samples if s.kind == kind and s.mode == mode]
        whole = Sample(kind, mode, sum(s.seconds for s in runs))
        for s in runs:
            whole.latencies += s.latencies
        whole.rates = [s.rate for s in runs]
        return whole

    rows = {(k, mode): merged(k, mode) for k in KINDS for mode in ("throughput", "latency")}
    rate = {k: statistics.median(rows[k, "throughput"].rates) for k in KINDS}

    def ratio(kind: str, baseline: str) -> tuple[float, list[float]]:
        """The median of the rounds' ratios: each round's figure against its own round's
        baseline, measured seconds apart (this machine's speed drifts between rounds)."""
        pairs = zip(rows[kind, "throughput"].rates, rows[baseline, "throughput"].rates, strict=True)
        each = [a / b for a, b in pairs]
        return statistics.median(each), each

    submit_ratio, submit_rounds = ratio("submit", "bare-write")
    read_ratio, read_rounds = ratio("read", "bare-read")
    board_ratio, board_rounds = ratio("board", "bare-page")
    officer_ratio, officer_rounds = ratio("board-officer", "bare-page")
    locked_ratio, _ = ratio("locked-write", "bare-write")
    behind_lock, _ = ratio("submit", "locked-write")

    def shares(each: list[float]) -> str:
        return f" (rounds: {', '.join(f'{r:.0%}' for r in each)})"

    p99 = {k: rows[k, "latency"].quantile(0.99) for k in KINDS}

    def verdict(ok: bool) -> str:
        return "met" if ok else "**not met**"

    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    lines = [
        "# The API under a rush: results",
        "",
        f"Written by `benchmarks/web.py` (do not edit by hand). Machine: {machine}, Python "
        f"{platform.python_version()}, PostgreSQL on 127.0.0.1; the server `pitchpass serve "
        f"--workers {args.workers}` (gunicorn, 4 threads a worker; rates counted in "
        f"`{args.cache}`) and the clients on the same machine; load average {load[0]:.2f} "
        f"before, {load[1]:.2f} after. {args.clients} "
        f"clients; {args.rounds} rounds of {args.seconds:g} s per kind and mode, the kinds "
        "interleaved in each round. Throughput: the median of the rounds, each client calling "
        f"again as soon as it is answered. Latency: each client calling every {args.pace:g} s, "
        "all rounds together.",
        "",
        "| kind | calls/s (median) | rounds | p50 ms | p99 ms (paced) | p50 ms (paced) "
        "| p99 ms (paced) by round |",
        "| --- | ---: | --- | ---: | ---: | ---: | --- |",
    ]
    for k in KINDS:
        t, lat = rows[k, "throughput"], rows[k, "latency"]
        rounds = ", ".join(f"{r:.0f}" for r in t.rates)
        by_round = ", ".join(
            f"{s.quantile(0.99):.0f}" for s in samples if s.kind == k and s.mode == "latency"
        )
        cells = [k, f"{rate[k]:.1f}", rounds, f"{t.quantile(0.5):.1f}",
                 f"{lat.quantile(0.99):.1f}", f"{lat.quantile(0.5):.1f}", by_round]  # fmt: skip
        lines.append(f"| {' | '.join(cells)} |")
    lines += [
        "",
        "| goal (issue 10, unless named) | figure | |",
        "| --- | --- | --- |",
    ]
    goals = [
        (
            "submissions >= 30% of the bare write",
            f"{submit_ratio:.0%}{shares(submit_rounds)}",
            submit_ratio >= 0.3,
        ),
        (
            "reads >= 50% of the bare read",
            f"{read_ratio:.0%}{shares(read_rounds)}",
            read_ratio >= 0.5,
        ),
        (
            "the board page (a broadcaster's) >= 20% of the bare page (issue 26)",
            f"{board_ratio:.0%}{shares(board_rounds)}",
            board_ratio >= 0.2,
        ),
        (
            "the board page (the home officer's) >= 20% of the bare page (issue 26)",
            f"{officer_ratio:.0%}{shares(officer_rounds)}",
            officer_ratio >= 0.2,
        ),
        *(
            (f"p99 < 100 ms at {args.clients} clients ({k})", f"{p99[k]:.1f} ms", p99[k] < 100)
            for k in ("submit", "read")
        ),
        (
            "no lost or doubled request, no failed call, no zone over capacity",
            f"{len(setup.acknowledged)} submissions acknowledged; "
            + ("; ".join(failures) or "all stored once, all answers 2xx, decide within capacity"),
            not failures,
        ),
    ]
    lines += [f"| {goal} | {figure} | {verdict(ok)} |" for goal, figure, ok in goals]
    lines += [
        "",
        "Every submission to a match waits for the one before it to commit (the match lock, "
        "and the audit chain's head). The locked write, which does no more than wait its turn "
        "on one row, insert and commit, made "
        f"{rate['locked-write']:.1f} calls/s, {locked_ratio:.0%} of the bare write; "
        f"submissions made {behind_lock:.0%} of the locked write (what is left is each call's "
        "own work, on 2 cores shared with PostgreSQL, Redis and the clients). Shares are the "
        "median of the rounds' own ratios. "
        f"The bare write's own p99 (paced) was {p99['bare-write']:.1f} ms, the locked "
        f"write's {p99['locked-write']:.1f} ms (each round's p99 is in the table).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
