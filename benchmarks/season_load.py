"""Benchmark: loading the 380-match season with its rules into the desk's database
(issue 27, section 5: at most 10 s), against the least such a load must write, measured
in the same run. Writes benchmarks/RESULTS-season-load.md.

    .venv/bin/python benchmarks/season_load.py [--rounds 5]

Each round, in a fresh process with a fresh SQLite database (a temporary PITCHPASS_HOME,
migrated before the clock starts): `store.load` of decide_season.season_document() with
decide_season.SEASON_RULES (380 matches, 16,294 requests), the document parsed before;
then, in another fresh database, `bare`: the same organisations, competition, venues,
zones, matches and requests written with one bulk insert of each (no validation, no
consent, no audit), the floor any load through the ORM could reach. The rounds
interleave load and bare; the figures are medians, the share the median of the rounds'
own ratios (bare / load).
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
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TARGET_SECONDS = 10.0


def child(kind: str) -> None:
    """One timed load (`kind`: load or bare) into a fresh database; prints seconds."""
    os.environ["PITCHPASS_HOME"] = tempfile.mkdtemp()
    os.environ.setdefault("PITCHPASS_SECRET_KEY", "bench-only")
    sys.path.insert(0, str(HERE))
    from decide_season import season_document, with_season_rules
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    document = with_season_rules(season_document())
    if kind == "load":
        from pitchpass.web.persistence import store

        started = time.perf_counter()
        store.load(document)
    else:
        started = time.perf_counter()
        _bare(document)
    print(json.dumps({"seconds": time.perf_counter() - started}))


def _bare(document: dict[str, Any]) -> None:
    from django.db import transaction

    from pitchpass.web.persistence import models as m

    with transaction.atomic():
        orgs = m.Organisation.objects.bulk_create(
            m.Organisation(key=o["id"], name=o.get("name", o["id"]), kind=o["kind"], position=n)
            for n, o in enumerate(document["organisations"])
        )
        by_key = {o.key: o for o in orgs}
        competition = m.Competition.objects.create(
            key=document["competition"]["id"], name=document["competition"].get("name", "")
        )
        venues = {
            v["id"]: m.Venue.objects.create(key=v["id"], name=v.get("name", v["id"]), position=n)
            for n, v in enumerate(document["venues"])
        }
        zones = m.Zone.objects.bulk_create(
            m.Zone(venue=venues[v["id"]], key=z["id"], name=z.get("name", z["id"]),
                   capacity=z["capacity"] if isinstance(z["capacity"], int) else None,
                   position=n)
            for v in document["venues"] for n, z in enumerate(v["zones"])
        )  # fmt: skip
        zone_of = {(z.venue_id, z.key): z for z in zones}
        matches = m.Match.objects.bulk_create(
            m.Match(key=x["id"], competition=competition, venue=venues[x["venue"]],
                    home=by_key[x["home"]], away=by_key[x["away"]],
                    kickoff=datetime.fromisoformat(x["kickoff"]), position=n)
            for n, x in enumerate(document["matches"])
        )  # fmt: skip
        match_of = {x.key: x for x in matches}
        m.Request.objects.bulk_create(
            (
                m.Request(match=match_of[r["match"]], key=r["id"], by=by_key[r["by"]],
                          zone=zone_of[match_of[r["match"]].venue_id, r["zone"]],
                          phases=r["phases"], crew=r["crew"], cameras=r.get("cameras", 1),
                          submitted=datetime.fromisoformat(r["submitted"]), position=n)
                for n, r in enumerate(document["requests"])
            ),
            batch_size=500,
        )  # fmt: skip


def _run(kind: str) -> float:
    out = subprocess.run(
        [sys.executable, __file__, "--child", kind], capture_output=True, text=True, check=True
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", choices=["load", "bare"])
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-season-load.md")
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    before = os.getloadavg()[0]
    rounds = []
    for n in range(args.rounds):
        rounds.append((_run("load"), _run("bare")))
        print(f"round {n + 1}: load {rounds[-1][0]:.2f} s, bare {rounds[-1][1]:.2f} s", flush=True)
    after = os.getloadavg()[0]
    load = statistics.median(r[0] for r in rounds)
    bare = statistics.median(r[1] for r in rounds)
    share = statistics.median(r[1] / r[0] for r in rounds)
    met = "met" if load <= TARGET_SECONDS else "NOT met"
    text = "\n".join(
        [
            "# Loading the season",
            "",
            "Written by `benchmarks/season_load.py` (do not edit by hand) on"
            f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; load average"
            f" {before:.2f} before, {after:.2f} after.",
            "",
            "The 380-match season with its rules (16,294 requests) into a fresh SQLite"
            " database, each round in fresh processes, load and bare interleaved;"
            f" {args.rounds} rounds, medians.",
            "",
            "| what | seconds | lowest-highest |",
            "|---|---|---|",
            f"| `store.load` (validated, consent, audit of each match) | {load:.2f} |"
            f" {min(r[0] for r in rounds):.2f}-{max(r[0] for r in rounds):.2f} |",
            f"| bare: the same rows, one bulk insert of each kind | {bare:.2f} |"
            f" {min(r[1] for r in rounds):.2f}-{max(r[1] for r in rounds):.2f} |",
            "",
            f"The load takes {1 / share:.1f} times the bare insert (median of the rounds' ratios).",
            "",
            f"Target (issue 27, section 5): at most {TARGET_SECONDS:g} s: **{met}**"
            f" (median {load:.2f} s). The issue measured 66 s; at the start of the session"
            " that wrote this, 25-36 s.",
            "",
        ]
    )
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
