"""Benchmark: the season page of the 380-match season with its rules (issue 27, section 5:
first view at most 2 s, later views at most 0.3 s), against a bare signed-in page and
against what each view cost before its report was kept under a version (the whole season
exported and hashed to find it), all measured in the same run. Writes
benchmarks/RESULTS-season-page.md.

    .venv/bin/python benchmarks/season_page.py [--rounds 5]

One process, a fresh SQLite database (a temporary PITCHPASS_HOME): the season loaded with
`store.load` (not timed) and a league admin signed in through Django's test client. Each
round, interleaved: `first`, the page with its report's cache emptied (the season decided,
reported and drawn); `later`, the page again (the report kept); `bare`, the notices page
(a signed-in page that reads next to nothing); `old key`, `season_document` and its
SHA-256, which every view paid before to find the kept report. Medians of the rounds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FIRST_TARGET, LATER_TARGET = 2.0, 0.3  # seconds


def measure(rounds: int) -> dict[str, Any]:
    os.environ["PITCHPASS_HOME"] = tempfile.mkdtemp()
    os.environ.setdefault("PITCHPASS_SECRET_KEY", "bench-only")
    sys.path.insert(0, str(HERE))
    from decide_season import season_document, with_season_rules
    from pitchpass.web.setup import configure, migrate

    configure()
    migrate()
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.test import Client

    from pitchpass.web.persistence import models as m
    from pitchpass.web.persistence import store
    from pitchpass.web.persistence.fixtures_store import season_document as stored_season
    from pitchpass.web.services.accounts import do_add_user

    store.load(with_season_rules(season_document()))
    do_add_user("admin", "admin", None, "pw-for-bench-only-7")
    client = Client()
    client.force_login(User.objects.get(username="admin"))
    competition = m.Competition.objects.get()
    page = f"/competitions/{competition.key}/season/"

    def timed(work: Any) -> float:
        started = time.perf_counter()
        work()
        return time.perf_counter() - started

    def get(path: str) -> int:
        answer = client.get(path)
        assert answer.status_code == 200, answer.status_code
        return len(answer.content)

    def old_key() -> None:
        document = stored_season(competition)
        hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()

    samples: dict[str, list[float]] = {"first": [], "later": [], "bare": [], "old key": []}
    size = 0
    for n in range(rounds):
        cache.clear()
        samples["first"].append(timed(lambda: get(page)))
        samples["later"].append(timed(lambda: get(page)))
        samples["bare"].append(timed(lambda: get("/notices/")))
        samples["old key"].append(timed(old_key))
        size = get(page)
        print(f"round {n + 1}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in samples.items()))
    return {"samples": samples, "size": size, "matches": competition.matches.count()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-season-page.md")
    args = parser.parse_args()
    before = os.getloadavg()[0]
    found = measure(args.rounds)
    after = os.getloadavg()[0]
    samples = found["samples"]
    median = {k: statistics.median(v) for k, v in samples.items()}
    later_vs_bare = statistics.median(
        later / bare for later, bare in zip(samples["later"], samples["bare"], strict=True)
    )
    old_vs_later = statistics.median(
        old / later for old, later in zip(samples["old key"], samples["later"], strict=True)
    )

    def row(name: str, what: str) -> str:
        low, high = min(samples[name]), max(samples[name])
        return f"| {what} | {median[name]:.3f} | {low:.3f}-{high:.3f} |"

    first_met = "met" if median["first"] <= FIRST_TARGET else "NOT met"
    later_met = "met" if median["later"] <= LATER_TARGET else "NOT met"
    text = "\n".join(
        [
            "# The season page",
            "",
            "Written by `benchmarks/season_page.py` (do not edit by hand) on"
            f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; load average"
            f" {before:.2f} before, {after:.2f} after.",
            "",
            f"The {found['matches']}-match season with its rules, a league admin's page on"
            f" SQLite, one process; {args.rounds} interleaved rounds, medians (seconds).",
            "",
            "| what | seconds | lowest-highest |",
            "|---|---|---|",
            row("first", "first view: the report's cache emptied (decide, report, plot)"),
            row("later", "later view: the report kept, found by its version (one query)"),
            row("bare", "bare: the notices page, signed in"),
            row("old key", "what each view paid before to find the kept report"),
            "",
            f"A later view takes {later_vs_bare:.1f} times a bare page; before, finding the"
            f" kept report alone took {old_vs_later:.0f} times a later view now (medians of the"
            f" rounds' ratios). The page is {found['size'] / 1000:.0f} KB (508 KB before: the"
            " long tables are paged, 50 rows).",
            "",
            f"Targets (issue 27, section 5): later views at most {LATER_TARGET:g} s:"
            f" **{later_met}** (median {median['later']:.3f} s); the first view at most"
            f" {FIRST_TARGET:g} s: **{first_met}** (median {median['first']:.2f} s: it is the"
            " season's joint decide, which section 3's speed goal has not reached).",
            "",
        ]
    )
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
