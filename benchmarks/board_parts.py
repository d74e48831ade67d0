"""Benchmark: what the match board's time is made of (issue 26, section 5), in-process.
Writes benchmarks/RESULTS-board.md.

    .venv/bin/python benchmarks/board_parts.py [--views 30] [--rounds 5]

The seed match is loaded into a fresh SQLite database (a temporary PITCHPASS_HOME),
decided and published, kick-off 30 minutes away (its match-day header counts the doors),
with the home officer and a broadcaster's user signed in (Django's test client: the
whole page as a browser gets it, with the middleware, but no HTTP server). For each of
the two boards, interleaved in each round:

- board: GET /matches/M/, the whole page;
- template: the board's template alone, rendered from the values the page computed once
  (what the page costs if every service answered at no cost);
- bare: GET /bench/page (`benchmarks/web_urls.py`, as in `benchmarks/web.py`): a
  signed-in page that reads one row and renders a small template.

Each figure is the median over the rounds of views per second; the shares are of the
bare page's rate in the same round, median with the lowest and highest. The template's
share is the most the board could reach with this template and markup, however fast
the rest became (the goal of issue 26 is 20%).
"""

from __future__ import annotations

import argparse
import json
import os
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


def measure(views: int, rounds: int) -> dict[str, Any]:
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.db import connection
    from django.template.loader import render_to_string
    from django.test import Client
    from django.utils import timezone

    from pitchpass.core.reading.parse import parse_text
    from pitchpass.web.http import pages
    from pitchpass.web.persistence import models as m
    from pitchpass.web.persistence import store
    from pitchpass.web.services import decisions
    from pitchpass.web.services.accounts import do_add_user

    settings.ALLOWED_HOSTS = ["*"]
    store.load(parse_text(SEED.read_text(), SEED.name))
    do_add_user("officer", "officer", "man-united", "pw-for-bench-only-7")
    do_add_user("bt", "media", "bt-sport", "pw-for-bench-only-7")
    officer = User.objects.get(username="officer")
    decisions.do_decide(officer, MATCH)
    decisions.do_publish(officer, MATCH)
    m.Match.objects.filter(key=MATCH).update(kickoff=timezone.now() + timedelta(minutes=30))
    with connection.cursor() as cursor:  # what /bench/page reads
        cursor.execute("CREATE TABLE bench_bare (id integer PRIMARY KEY, body text NOT NULL)")
        cursor.execute("INSERT INTO bench_bare (id, body) VALUES (1, '{}')")

    def rate(work: Any) -> float:
        work()  # warm
        started = time.perf_counter()
        for _ in range(views):
            work()
        return views / (time.perf_counter() - started)

    def parts(who: str) -> dict[str, Any]:
        client = Client()
        client.force_login(User.objects.get(username=who))
        seen: dict[str, Any] = {}
        real = pages.render

        def keep(request: Any, name: str, values: Any, **more: Any) -> Any:
            seen.update(request=request, values=values)
            return real(request, name, values, **more)

        pages.render = keep  # type: ignore[assignment]
        answer = client.get(f"/matches/{MATCH}/")
        pages.render = real  # type: ignore[assignment]
        assert answer.status_code == 200, answer.status_code

        def board() -> None:
            assert client.get(f"/matches/{MATCH}/").status_code == 200

        def template() -> None:
            render_to_string("pitchpass/board.html", seen["values"], seen["request"])

        def bare() -> None:
            assert client.get("/bench/page").status_code == 200

        each = [
            {"bare": rate(bare), "board": rate(board), "template": rate(template)}
            for _ in range(rounds)
        ]
        return {"bytes": len(answer.content), "rounds": each}

    out: dict[str, Any] = {"load_before": os.getloadavg()[0]}
    for who in ("officer", "bt"):
        out[who] = parts(who)
    out["load_after"] = os.getloadavg()[0]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-board.md")
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
        "# What the match board's time is made of",
        "",
        f"Written by `benchmarks/board_parts.py` (do not edit by hand). {os.cpu_count()} cores,"
        f" load {result['load_before']:.1f} to {result['load_after']:.1f}.",
        f"In-process (Django's test client, SQLite); {args.rounds} rounds of {args.views} views"
        " each, interleaved. Shares are of the bare signed-in page's rate in the same round:"
        " the median, with the lowest and highest.",
        "",
        "| board | size | bare page/s | board/s | board share | template alone/s"
        " | template share (the most the board could reach) |",
        "|---|---|---|---|---|---|---|",
    ]
    for who, label in (("bt", "a broadcaster's"), ("officer", "the home officer's")):
        rounds = result[who]["rounds"]

        def share(part: str, rounds: list[dict[str, float]] = rounds) -> str:
            each = sorted(r[part] / r["bare"] for r in rounds)
            return f"{statistics.median(each):.0%} ({each[0]:.0%}-{each[-1]:.0%})"

        def median(part: str, rounds: list[dict[str, float]] = rounds) -> str:
            return f"{statistics.median(r[part] for r in rounds):,.0f}"

        lines.append(
            f"| {label} | {result[who]['bytes'] / 1000:.0f} KB | {median('bare')} |"
            f" {median('board')} | {share('board')} | {median('template')} |"
            f" {share('template')} |"
        )
    lines.append("")
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
