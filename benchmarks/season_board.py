"""Benchmark: an officer's board at the end of a season with rules (issue 27, section 1:
the rules bind on the desk, so every board, decide and what-if of such a match reads what
the season's other matches hold), against a bare signed-in page in the same rounds.
Writes benchmarks/RESULTS-season-board.md.

    .venv/bin/python benchmarks/season_board.py [--rounds 5] [--output FILE]

The 380-match season with its rules, loaded with every match but the last published as
the season decided jointly grants it (about 14,000 places held), into a fresh SQLite
database (a temporary PITCHPASS_HOME; not timed). The home club's officer of the last
match, through Django's test client, each round interleaved: `board`, its board before
any decide; `decide`, a decide of it (the board's button: the season's held places read,
the match decided under the rules); `board, run`, its board with that run (which also
checks the run's fingerprint of the season); `bare`, the notices page. Medians of the
rounds, and each against the bare page as the median of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def measure(rounds: int) -> dict[str, Any]:
    os.environ["PITCHPASS_HOME"] = tempfile.mkdtemp()
    os.environ.setdefault("PITCHPASS_SECRET_KEY", "bench-only")
    sys.path.insert(0, str(HERE))
    from decide_season import season_document, with_season_rules
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    from django.contrib.auth.models import User
    from django.test import Client

    from pitchpass.core import load_document
    from pitchpass.core.codes import Status
    from pitchpass.core.deciding.decide import decide
    from pitchpass.web.persistence import models as m
    from pitchpass.web.persistence import store
    from pitchpass.web.services.accounts import do_add_user

    document = with_season_rules(season_document())
    granted = {
        d.request.id
        for result in decide(load_document(document))
        for d in result.decisions
        if d.status is Status.GRANTED
    }
    last = document["matches"][-1]["id"]
    for r in document["requests"]:
        if r["id"] in granted and r["match"] != last:
            r["locked"] = True
    store.load(document)
    match = m.Match.objects.get(key=last)
    do_add_user("officer", "officer", match.home.key, "pw-for-bench-only-7")
    client = Client()
    client.force_login(User.objects.get(username="officer"))
    board = f"/matches/{last}/"

    def timed(work: Any) -> float:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started

    def get(path: str) -> None:
        answer = client.get(path)
        assert answer.status_code == 200, answer.status_code

    def decide_it() -> None:
        answer = client.post(f"/matches/{last}/decide/")
        assert answer.status_code == 302, answer.status_code

    samples: dict[str, list[float]] = {"board": [], "decide": [], "board, run": [], "bare": []}
    for n in range(rounds):
        m.DecisionRun.objects.filter(match=match).delete()  # the board before any decide
        samples["board"].append(timed(lambda: get(board)))
        samples["decide"].append(timed(decide_it))
        samples["board, run"].append(timed(lambda: get(board)))
        samples["bare"].append(timed(lambda: get("/notices/")))
        print(f"round {n + 1}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in samples.items()))
    held = m.Request.objects.filter(locked=True).count()
    return {"samples": samples, "held": held, "matches": m.Match.objects.count()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-season-board.md")
    args = parser.parse_args()
    before = os.getloadavg()[0]
    found = measure(args.rounds)
    after = os.getloadavg()[0]
    samples = found["samples"]

    def row(name: str, what: str) -> str:
        values = samples[name]
        ratio = statistics.median(v / b for v, b in zip(values, samples["bare"], strict=True))
        return (
            f"| {what} | {statistics.median(values):.3f} | {min(values):.3f}-{max(values):.3f}"
            f" | {ratio:.0f}x |"
        )

    text = "\n".join(
        [
            "# An officer's board at the end of a season with rules",
            "",
            "Written by `benchmarks/season_board.py` (do not edit by hand) on"
            f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; load average"
            f" {before:.2f} before, {after:.2f} after.",
            "",
            f"The {found['matches']}-match season with its rules, every match but the last"
            f" published ({found['held']:,} places held), SQLite, one process; the last"
            f" match's home officer; {args.rounds} interleaved rounds, medians (seconds).",
            "",
            "| what | seconds | lowest-highest | against the bare page |",
            "|---|---|---|---|",
            row("board", "the board, not decided yet"),
            row("decide", "Decide (the season's held places read, the match decided)"),
            row("board, run", "the board with that run (its season fingerprint checked)"),
            row("bare", "bare: the notices page, signed in"),
            "",
        ]
    )
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
