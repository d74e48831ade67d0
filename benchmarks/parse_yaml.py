"""Benchmark: reading the season's scenario as YAML with PyYAML's own parser (the
baseline) and with libyaml's parser in C (what `pitchpass` uses where PyYAML has it),
in the same run, best of N. Writes benchmarks/RESULTS-parse.md.

    .venv/bin/python benchmarks/parse_yaml.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import yaml

from decide_season import season_document
from pitchpass.core.reading import parse

HERE = Path(__file__).parent


def best_of(repeat: int, text: str, loader: type) -> float:
    parse.LOADER = loader
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        parse.parse_text(text, "season.yaml")
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    document = season_document()
    text = yaml.safe_dump(document, sort_keys=False)
    python = best_of(args.repeat, text, parse._Loader)
    libyaml = best_of(args.repeat, text, parse._CLoader)
    same = parse.parse_text(text, "season.yaml") == document
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    size = f"{len(document['requests']):,} requests, {len(text) / 1e6:.1f} MB of YAML"
    ratio = f"{libyaml / python:.2f} ({python / libyaml:.1f}x faster)"
    report = f"""# Reading a season's YAML

Written by `benchmarks/parse_yaml.py` (do not edit by hand). Machine: {machine},
Python {platform.python_version()}, PyYAML {yaml.__version__}; best of {args.repeat}, both
in the same run.

| parser | the season ({size}) | ratio |
|---|---|---|
| PyYAML in Python (the baseline) | {python:.2f} s | 1.00 |
| libyaml in C (used by pitchpass) | {libyaml:.2f} s | {ratio} |

The document read (libyaml) is the one the generator wrote: {same}.
"""
    (HERE / "RESULTS-parse.md").write_text(report)
    print(report)


if __name__ == "__main__":
    main()
