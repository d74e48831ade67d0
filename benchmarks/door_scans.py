"""Benchmark: scans per second at a zone door (issues 11 and 26), against the least a
locked scan can cost, measured in the same run. Writes benchmarks/RESULTS-doors.md.

    .venv/bin/python benchmarks/door_scans.py [--scans 200] [--rounds 5] [--history 20000]

For each database (SQLite in a temporary PITCHPASS_HOME; PostgreSQL at 127.0.0.1:5432 in a
fresh database `bench_doors`, dropped and made again; skipped if it cannot be reached), in
a process of its own: the seed match is loaded, decided and published, and a steward of
the venue scans the published crews of the tunnel at its door in the post-match phase,
each crew in, then out, and so on, through the service the API calls
(`doors.do_check_in`, in-process: no HTTP). Each scan is admitted. The baseline, `bare`,
is what any locked scan must do: in a transaction, lock the match row and insert one
scan row.

Two doors: an empty one (its scans removed before each round), and one with `--history`
admitted scans stored before the rounds (made in bulk, as the service would have counted
them, then the database's statistics taken, as autovacuum would), each round adding its
own. For each, `--rounds` rounds, each the bare rate then the scan rate over
`--scans` each, interleaved; the figure is the median of the rounds' ratios (scan rate /
bare rate of the same round), with the lowest and highest. The machine's load average is
noted at the start and end of each database's run.

A third row, `replay`, sends the SQL statements one scan made (captured once, as the
database got them) again in one transaction, interleaved with the bare rate likewise: what
the scan's database work costs without the ORM building each statement, the floor a scan
written in plain SQL could reach (measured, not product code: the project keeps the ORM).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent
SEED = ROOT / "scenarios" / "manchester-derby-2017.yaml"
MATCH = "mun-mci-2017-12-10"
ZONE, PHASE = "tunnel", "post-match"
PG_ADMIN = "postgres://postgres@127.0.0.1:5432/postgres"
PG_BENCH = "postgres://postgres@127.0.0.1:5432/bench_doors"


def measure(scans: int, history: int, rounds_wanted: int) -> dict[str, Any]:
    """In this process (Django set up for the database in the environment)."""
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    from django.contrib.auth.models import User
    from django.db import connection, transaction

    from pitchpass.core.reading.parse import parse_text
    from pitchpass.web.persistence import models as m
    from pitchpass.web.persistence import store
    from pitchpass.web.persistence.changes import lock_match
    from pitchpass.web.services import decisions, doors
    from pitchpass.web.services.accounts import do_add_user

    store.load(parse_text(SEED.read_text(), SEED.name))
    do_add_user("officer", "officer", "man-united", "pw-for-bench-only-7")
    try:  # a steward of the venue (assigned venues since issue 26)
        do_add_user("steward", "steward", None, "pw-for-bench-only-7", venues=["old-trafford"])
    except TypeError:  # before: any steward
        do_add_user("steward", "steward", None, "pw-for-bench-only-7")
    officer = User.objects.get(username="officer")
    # As the API has the steward: read with its profile and organisation (by its token).
    steward = User.objects.select_related("profile__organisation").get(username="steward")
    decisions.do_decide(officer, MATCH)
    decisions.do_publish(officer, MATCH)
    match = m.Match.objects.get(key=MATCH)
    doors.ensure_passes(match)
    codes = list(
        m.Pass.objects.filter(request__match=match, request__zone__key=ZONE)
        .order_by("request__position")
        .values_list("code", flat=True)
    )
    clock = [match.kickoff + timedelta(minutes=113)]  # in the post-match phase

    def tick() -> Any:
        clock[0] += timedelta(milliseconds=1)
        return clock[0]

    done = [0]

    def scan() -> None:
        n = done[0]
        code = codes[(n // 2) % len(codes)]
        direction = "in" if n % 2 == 0 else "out"
        body = {"code": code, "zone": ZONE, "phase": PHASE, "direction": direction}
        answer = doors.do_check_in(steward, MATCH, body, tick())
        if answer["result"] != "admitted":
            raise SystemExit(f"scan {n} of {code} was refused: {answer}")
        done[0] += 1

    def bare() -> None:
        with transaction.atomic():
            lock_match(match)
            m.Scan.objects.create(
                match=match, request="", zone="bare", phase=PHASE, direction="in",
                result="bare", text="bare", scanned=tick(), received=clock[0],
            )  # fmt: skip

    counts = {f.name for f in m.Scan._meta.get_fields()} >= {"crew_inside", "zone_inside"}
    requests = dict(m.Pass.objects.filter(code__in=codes).values_list("code", "request__key"))

    def empty_door() -> None:
        m.Scan.objects.filter(match=match, zone=ZONE).delete()
        done[0] = 0

    def stored(n: int) -> None:
        """`n` admitted scans at the door before now: each crew in, then out, in turn."""
        empty_door()
        rows = []
        for i in range(n):
            code = codes[(i // 2) % len(codes)]
            inside = 1 if i % 2 == 0 else 0
            more = {"crew_inside": inside, "zone_inside": inside} if counts else {}
            rows.append(
                m.Scan(
                    match=match, request=requests[code], zone=ZONE, phase=PHASE,
                    direction="in" if i % 2 == 0 else "out", result="admitted",
                    text="history", scanned=tick(), received=clock[0], **more,
                )
            )  # fmt: skip
        m.Scan.objects.bulk_create(rows, batch_size=2000)

    def rate(work: Any, n: int) -> float:
        work()  # warm
        started = time.perf_counter()
        for _ in range(n):
            work()
        return n / (time.perf_counter() - started)

    def analyze() -> None:
        """The planner's statistics as a door's would be after its scans (autovacuum's
        ANALYZE), not those of an empty table."""
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    out: dict[str, Any] = {"vendor": connection.vendor, "crews": len(codes)}
    out["load_before"] = os.getloadavg()[0]
    out["fresh"] = []
    for _ in range(rounds_wanted):
        empty_door()  # the round's own scans only: the door starts empty each time
        bare_rate = rate(bare, scans)
        out["fresh"].append((rate(scan, scans), bare_rate))
    stored(history)  # once: then each round adds its own scans (an even count: all out)
    analyze()
    out["busy"] = []
    for _ in range(rounds_wanted):
        bare_rate = rate(bare, scans)
        out["busy"].append((rate(scan, scans), bare_rate))
    out["history"] = history
    out["replay"] = []
    statements = _statements(scan)
    for _ in range(rounds_wanted):
        bare_rate = rate(bare, scans)
        out["replay"].append((rate(lambda: _replay(statements), scans), bare_rate))
    out["load_after"] = os.getloadavg()[0]
    return out


def _statements(scan: Any) -> list[str]:
    """The SQL one scan sends (as the database got it), without the transaction's own."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as seen:
        scan()
    skip = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")
    return [q["sql"] for q in seen.captured_queries if not q["sql"].startswith(skip)]


def _replay(statements: list[str]) -> None:
    """The scan's statements sent again as plain SQL in one transaction: what the scan's
    database work costs without the ORM building each statement (not product code: the
    floor a hand-written SQL scan could reach)."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def _postgres() -> bool:
    """A fresh `bench_doors` database, or False if PostgreSQL cannot be reached."""
    try:
        import psycopg
    except ImportError:
        return False
    try:
        with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS bench_doors")
            conn.execute("CREATE DATABASE bench_doors")
    except psycopg.OperationalError:
        return False
    return True


def _run(env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", "--scans", str(args.scans)]
    command += ["--history", str(args.history), "--rounds", str(args.rounds)]
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, check=False, cwd=args.code
    )
    if done.returncode != 0:
        raise SystemExit(f"the measuring process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _machine() -> str:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.processor() or "unknown",
    )  # fmt: skip
    python = platform.python_version()
    return f"{os.cpu_count()} cores ({cpu}), Python {python}, {platform.system()}"


def _share(rounds: list[list[float]]) -> tuple[float, float, float, float, float]:
    """Median scan rate, median bare rate, and the median, lowest and highest share."""
    shares = sorted(scan / bare for scan, bare in rounds)
    return (
        statistics.median(scan for scan, _ in rounds),
        statistics.median(bare for _, bare in rounds),
        statistics.median(shares),
        shares[0],
        shares[-1],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--history", type=int, default=20000)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-doors.md")
    parser.add_argument(
        "--code", type=Path, default=None, help="another checkout's src/ (a baseline to compare)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.scans, args.history, args.rounds)))
        return
    results = []
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {"PITCHPASS_HOME": home, "PITCHPASS_SECRET_KEY": "bench-only"}
        if args.code is not None:  # that checkout's pitchpass before this one's
            env["PYTHONPATH"] = str(args.code.resolve())
        results.append(_run(env, args))
        if _postgres():
            results.append(_run({**env, "DATABASE_URL": PG_BENCH}, args))
    lines = [
        "# Scans at a zone door",
        "",
        "Written by `benchmarks/door_scans.py` (do not edit by hand). Machine: " + _machine() + ".",
        f"In-process through `doors.do_check_in` (no HTTP); {args.rounds} rounds per door, each",
        f"the bare rate then the scan rate over {args.scans} scans each, interleaved; `bare`",
        "locks the match and inserts one scan row. The share is the median of the rounds'",
        "ratios (median), with the lowest and highest; rates are medians, for the scale.",
        "The steward is read with its profile, as the API reads it with its token. The",
        "replay row sends one scan's own SQL again without the ORM (not product code).",
        "",
        "| database | door | scans/s | bare scans/s | share of bare | lowest-highest | load |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        load = f"{r['load_before']:.1f} to {r['load_after']:.1f}"
        for state, label in (
            ("fresh", "empty"),
            ("busy", f"{r['history']:,} admitted scans stored"),
            ("replay", "(the scan's SQL replayed without the ORM, stored door)"),
        ):
            if state not in r:  # a baseline checkout's run without the replay
                continue
            scan, bare, share, low, high = _share(r[state])
            lines.append(
                f"| {r['vendor']} | {label} | {scan:,.0f} | {bare:,.0f} | {share:.0%} |"
                f" {low:.0%}-{high:.0%} | {load} |"
            )
    lines.append("")
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
