"""Benchmark: the room hint (issue 28, section 3), in-process. Writes
benchmarks/RESULTS-room-hint.md.

    .venv/bin/python benchmarks/room_hint.py [--views 5] [--rounds 5]

The hint is what the request form asks as it is filled in (`GET /matches/M/room/`, on a
change, and 400 ms after the crew is typed): the places a request would find as the match
stands. Worked out, it reads the match and decides it; its places are then kept in
Django's cache under the match's version (decisions._kept_places). This measures both as
the match grows, for the home officer (every request counts), against the bare
signed-in page (`/bench/page`, `benchmarks/web_urls.py`) in the same round:

- first: the cache emptied before each ask (a new version of the match: worked out);
- again: asked again for the same version (read back from the cache).

Matches of 50, 500 and 3,000 requests (tests/e2e/test_scale.big_match), loaded in turn
into a fresh SQLite database (a temporary PITCHPASS_HOME); the kinds interleaved in each
round; the figure is the median of the rounds.
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
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parent
SIZES = (50, 500, 3000)


def measure(views: int, rounds: int) -> dict[str, Any]:
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client

    sys.path.insert(0, str(ROOT / "tests" / "e2e"))
    from test_scale import MATCH, big_match

    from pitchpass.web.persistence import store
    from pitchpass.web.services.accounts import do_add_user

    settings.ALLOWED_HOSTS = ["*"]
    with connection.cursor() as cursor:  # what /bench/page reads
        cursor.execute("CREATE TABLE bench_bare (id integer PRIMARY KEY, body text NOT NULL)")
        cursor.execute("INSERT INTO bench_bare (id, body) VALUES (1, '{}')")

    def seconds(work: Any) -> float:
        started = time.perf_counter()
        for _ in range(views):
            work()
        return (time.perf_counter() - started) / views

    out: dict[str, Any] = {"load_before": os.getloadavg()[0], "sizes": {}}
    asked = {"zone": "tunnel", "phases": ["post-match"], "crew": "1"}
    for size in SIZES:
        store.load(big_match(size), replace=True)
        if not User.objects.filter(username="officer").exists():
            do_add_user("officer", "officer", "man-united", "pw-for-bench-only-7")
        client = Client()
        client.force_login(User.objects.get(username="officer"))

        def hint(client: Any = client) -> None:
            assert client.get(f"/matches/{MATCH}/room/", asked).status_code == 200

        def first(client: Any = client) -> None:
            cache.clear()
            hint()

        def bare(client: Any = client) -> None:
            assert client.get("/bench/page").status_code == 200

        hint()
        bare()  # warm
        out["sizes"][size] = [
            {"first": seconds(first), "again": seconds(hint), "bare": seconds(bare)}
            for _ in range(rounds)
        ]
    out["load_after"] = os.getloadavg()[0]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-room-hint.md")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.views, args.rounds)))
        return
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {"PITCHPASS_HOME": home, "PITCHPASS_SECRET_KEY": "bench-only"}
        env |= {"DJANGO_SETTINGS_MODULE": "web_site"}  # pitchpass's URLs and /bench/page
        env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
        command = [sys.executable, __file__, "--child", "--views", str(args.views)]
        command += ["--rounds", str(args.rounds)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the measuring process failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    lines = [
        "# The room hint: worked out, and read back from the cache",
        "",
        f"Written by `benchmarks/room_hint.py` (do not edit by hand). {platform.machine()},"
        f" {os.cpu_count()} cores, Python {platform.python_version()}; load"
        f" {result['load_before']:.1f} to {result['load_after']:.1f}. In-process (Django's"
        f" test client, SQLite), the home officer's hint; {args.rounds} rounds of"
        f" {args.views} asks of each kind, interleaved. Times are the median of the rounds;"
        " each ratio is a hint's time over the bare signed-in page's in the same round"
        " (median, lowest and highest).",
        "",
        "| requests in the match | bare page ms | first ask ms | first / bare |"
        " asked again ms | again / bare |",
        "|---:|---:|---:|---|---:|---|",
    ]
    for size, rounds in result["sizes"].items():
        cells = [f"{int(size):,}", f"{statistics.median(r['bare'] for r in rounds) * 1000:,.1f}"]
        for kind in ("first", "again"):
            ratios = sorted(r[kind] / r["bare"] for r in rounds)
            cells.append(f"{statistics.median(r[kind] for r in rounds) * 1000:,.1f}")
            cells.append(
                f"{statistics.median(ratios):,.1f}x ({ratios[0]:,.1f}x-{ratios[-1]:,.1f}x)"
            )
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
