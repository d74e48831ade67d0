"""Benchmark: scans per second at a zone door (issue 11, section 3), against the least a
locked scan can cost, measured in the same run. Writes benchmarks/RESULTS-doors.md.

    .venv/bin/python benchmarks/door_scans.py [--scans 400] [--history 4000]

For each database (SQLite in a temporary PITCHPASS_HOME; PostgreSQL at 127.0.0.1:5432 in a
fresh database `bench_doors`, dropped and made again; skipped if it cannot be reached), in
a process of its own: the seed match is loaded, decided and published, and a steward scans
the published crews of the tunnel at its door in the post-match phase, each crew in, then
out, and so on, through the service the API calls (`doors.do_check_in`, in-process: no
HTTP). Each scan is admitted. The baseline, `bare`, is what any locked scan must do: in a
transaction, lock the match row and insert one scan row.

Rates are taken twice: on an empty door (`fresh`), and after `--history` admitted scans
already stored at that door (`busy`), since each scan counts who is inside from the
door's admitted scans. The ratio of each to the bare rate measured just before it is the
figure; absolute rates are noted only to show the machine's scale.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
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


def measure(scans: int, history: int) -> dict[str, Any]:
    """In this process (Django set up for the database in the environment)."""
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    from django.contrib.auth.models import User
    from django.db import connection, transaction

    from pitchpass.core.parse import parse_text
    from pitchpass.web.persistence import models as m
    from pitchpass.web.persistence import store
    from pitchpass.web.persistence.changes import lock_match
    from pitchpass.web.services import decisions, doors
    from pitchpass.web.services.accounts import do_add_user

    store.load(parse_text(SEED.read_text(), SEED.name))
    do_add_user("officer", "officer", "man-united", "pw-for-bench-only-7")
    do_add_user("steward", "steward", None, "pw-for-bench-only-7")
    officer, steward = User.objects.get(username="officer"), User.objects.get(username="steward")
    decisions.do_decide(officer, MATCH)
    decisions.do_publish(officer, MATCH)
    match = m.Match.objects.get(key=MATCH)
    doors.ensure_passes(match)
    codes = list(
        m.Pass.objects.filter(request__match=match, request__zone__key=ZONE)
        .order_by("request__position")
        .values_list("code", flat=True)
    )
    clock = [match.kickoff + timedelta(minutes=115)]  # in the post-match phase

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

    def rate(work: Any, n: int) -> float:
        work()  # warm
        started = time.perf_counter()
        for _ in range(n):
            work()
        return n / (time.perf_counter() - started)

    out: dict[str, Any] = {"vendor": connection.vendor, "crews": len(codes)}
    out["bare_fresh"] = rate(bare, scans)
    out["fresh"] = rate(scan, scans)
    stored = m.Scan.objects.filter(match=match, zone=ZONE, result="admitted").count()
    while stored < history:  # fill the door's history by the service itself
        scan()
        stored += 1
    out["history"] = stored
    out["bare_busy"] = rate(bare, scans)
    out["busy"] = rate(scan, scans)
    return out


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


def _run(env: dict[str, str], scans: int, history: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", "--scans", str(scans)]
    command += ["--history", str(history)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=400)
    parser.add_argument("--history", type=int, default=4000)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-doors.md")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.scans, args.history)))
        return
    results = []
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {"PITCHPASS_HOME": home, "PITCHPASS_SECRET_KEY": "bench-only"}
        results.append(_run(env, args.scans, args.history))
        if _postgres():
            results.append(_run({**env, "DATABASE_URL": PG_BENCH}, args.scans, args.history))
    lines = [
        "# Scans at a zone door",
        "",
        "Written by `benchmarks/door_scans.py` (do not edit by hand). Machine: " + _machine() + ".",
        f"Each rate over {args.scans} scans, in-process through `doors.do_check_in` (no HTTP);",
        "`bare` locks the match and inserts one scan row, measured just before in the same run.",
        "",
        "| database | door | scans/s | bare scans/s | share of bare |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        for state, bare, label in (
            ("fresh", "bare_fresh", "empty"),
            ("busy", "bare_busy", f"{r['history']:,} admitted scans stored"),
        ):
            lines.append(
                f"| {r['vendor']} | {label} | {r[state]:,.0f} | {r[bare]:,.0f} |"
                f" {r[state] / r[bare]:.0%} |"
            )
    lines.append("")
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
