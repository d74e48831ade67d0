"""Benchmark: the season with its rules at 1x, 2x and 4x the benchmark season (issue 27,
section 3: at most 1 s at 1x, 5 s at 4x, and never "nothing decided"), beside the same
documents without rules, exact and first-come, measured in the same rounds. Writes
benchmarks/RESULTS-season-scale.md.

    .venv/bin/python benchmarks/season_scale.py [--rounds 5] [--sizes 1 2 4]

The season at N times: N copies of decide_season.season_document() with SEASON_RULES, a
year apart, every id suffixed with its copy (`~k`), in one competition: its season rules
link N times as many matches (quotas per season bind N times as hard). One process; the
documents are built and loaded before the clock. Each round decides every size with
rules (exact), then without rules exact and first-come (`decide`, the core's), in turn;
medians of the rounds, and for each run whether the solver's time limit passed first
(the best choice kept, marked unproven: docs/scenario-extensions.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
TARGETS = {1: 1.0, 4: 5.0}  # seconds, with rules


def scaled(document: dict[str, Any], copies: int) -> dict[str, Any]:
    """`copies` copies of the document, a year apart, ids suffixed `~k`."""
    matches, requests, incidents = [], [], []
    for k in range(copies):
        later = timedelta(weeks=52 * k)
        for x in document["matches"]:
            when = datetime.fromisoformat(x["kickoff"]) + later
            matches.append({**x, "id": f"{x['id']}~{k}", "kickoff": when.isoformat()})
        for r in document["requests"]:
            sent = datetime.fromisoformat(r["submitted"]) + later
            requests.append({**r, "id": f"{r['id']}~{k}", "match": f"{r['match']}~{k}",
                             "submitted": sent.isoformat()})  # fmt: skip
        for i in document["incidents"]:
            incidents.append({**i, "id": f"{i['id']}~{k}", "match": f"{i['match']}~{k}"})
    return {**document, "matches": matches, "requests": requests, "incidents": incidents}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-season-scale.md")
    args = parser.parse_args()
    from decide_season import season_document, with_season_rules
    from pitchpass.core import load_document
    from pitchpass.core.codes import Mode, Status
    from pitchpass.core.deciding.decide import decide

    base = season_document()
    kinds = ("rules", "exact", "first-come")
    scenarios: dict[tuple[int, str], Any] = {}
    for size in args.sizes:
        plain = load_document(scaled(base, size))
        scenarios[size, "rules"] = load_document(with_season_rules(scaled(base, size)))
        scenarios[size, "exact"] = plain
        policy = dataclasses.replace(plain.policy, within_tier=Mode.FIRST_COME)
        scenarios[size, "first-come"] = dataclasses.replace(plain, policy=policy)
    before = os.getloadavg()[0]
    samples: dict[tuple[int, str], list[float]] = {key: [] for key in scenarios}
    granted: dict[tuple[int, str], int] = {}
    unproven: dict[tuple[int, str], list[str]] = {}
    for n in range(args.rounds):
        for size in args.sizes:
            for kind in kinds:
                started = time.perf_counter()
                results = decide(scenarios[size, kind])
                samples[size, kind].append(time.perf_counter() - started)
                granted[size, kind] = sum(
                    1 for r in results for d in r.decisions if d.status is Status.GRANTED
                )
                unproven[size, kind] = list(
                    dict.fromkeys(u.text() for r in results for u in r.unproven)
                )
                print(f"round {n + 1}, {size}x {kind}: {samples[size, kind][-1]:.2f} s", flush=True)
    after = os.getloadavg()[0]
    median = {key: statistics.median(v) for key, v in samples.items()}
    lines = [
        "# The season with its rules, at scale",
        "",
        "Written by `benchmarks/season_scale.py` (do not edit by hand) on"
        f" {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; load average"
        f" {before:.2f} before, {after:.2f} after.",
        "",
        f"`decide` in one process, {args.rounds} interleaved rounds, medians in seconds (lowest"
        " to highest beside); the solver's time limit is 60 s for each lexicographic choice.",
        "",
        "| size | matches | with rules (exact) | without rules, exact | without rules, first-come"
        " | rules / first-come | granted with rules | proven |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size in args.sizes:
        ratio = statistics.median(
            a / b for a, b in zip(samples[size, "rules"], samples[size, "first-come"], strict=True)
        )
        cells = [
            f"{median[size, k]:.2f} ({min(samples[size, k]):.2f}-{max(samples[size, k]):.2f})"
            for k in kinds
        ]
        proven = "yes" if not unproven[size, "rules"] else "**no**: best found kept"
        lines.append(
            f"| {size}x | {len(scenarios[size, 'rules'].matches)} | {' | '.join(cells)} |"
            f" {ratio:.0f}x | {granted[size, 'rules']} | {proven} |"
        )
    lines += ["", "Growth with rules (median against 1x):" if 1 in args.sizes else ""]
    if 1 in args.sizes:
        lines += [
            f"- {size}x: {median[size, 'rules'] / median[1, 'rules']:.1f} times 1x"
            for size in args.sizes
            if size != 1
        ]
    lines += [""]
    for size in args.sizes:
        for said in unproven[size, "rules"]:
            lines.append(f"- {size}x, the last round: {said}")
    lines += [""]
    for size, target in TARGETS.items():
        if size in args.sizes:
            met = "met" if median[size, "rules"] <= target else "NOT met"
            lines.append(
                f"Target (issue 27, section 3): {size}x with rules in at most {target:g} s:"
                f" **{met}** (median {median[size, 'rules']:.2f} s)."
            )
    lines += [""]
    text = "\n".join(lines)
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
