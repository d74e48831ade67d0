"""Benchmark: `pitchpass decide SEASON --json` end to end (issue 12, section 3), from JSON and
from YAML, against reading the same file with Python's own parsers in the same run.
Writes benchmarks/RESULTS-cli.md.

    .venv/bin/python benchmarks/cli_season.py [--repeat 7]

The season is decide_season.py's (380 matches, 16,294 requests, seed 2017), written once
as JSON and as YAML into a temporary folder. Each run is a fresh process, its output sent
to /dev/null; the figure is the best of `--repeat` (the median is shown too). Baselines,
timed the same way: `python -c pass` (the interpreter alone), and a process that only
reads the file (`json.load`, and PyYAML's C loader for YAML). The goals of issue 12 are
<= 0.6 s from JSON and <= 1.5 s from YAML on 2 cores. A second table splits one in-process
run into its steps, to say what the rest of the time is.
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
GOALS = {"json": 0.6, "yaml": 1.5}


def _federation(season: dict[str, Any], matches: int) -> dict[str, Any]:
    """`matches` matches: the season again and again under new ids (each copy a season's
    requests and incidents), cut at `matches`."""
    out = {**season, "matches": [], "requests": [], "incidents": []}
    copy = 0
    while len(out["matches"]) < matches:
        taken = season["matches"][: matches - len(out["matches"])]
        ids = {m["id"] for m in taken}
        out["matches"] += [{**m, "id": f"{m['id']}-{copy}"} for m in taken]
        for part in ("requests", "incidents"):
            out[part] += [
                {**x, "id": f"{x['id']}-{copy}", "match": f"{x['match']}-{copy}"}
                for x in season[part]
                if x["match"] in ids
            ]
        copy += 1
    return out


def _run_once(command: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Seconds, and the peak memory (MB) of the process and its reaped children."""
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"{command} failed ({status})")
    return seconds, usage.ru_maxrss // 1024


def _timed(command: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - started)
    return times


def _steps(path: Path) -> dict[str, float]:
    """One in-process run, step by step (a fresh interpreter)."""
    code = f"""
import gc, json, time
t0 = time.perf_counter()
import pitchpass.cli
t1 = time.perf_counter()
from pathlib import Path
from typing import Any
from pitchpass.cli.files import read_document
from pitchpass.core import check_document
gc.disable()
document = read_document(Path({str(path)!r}))
t2 = time.perf_counter()
scenario, _, _ = check_document(document)
gc.enable(); gc.freeze()
t3 = time.perf_counter()
import pitchpass.core.deciding.solver
t4 = time.perf_counter()
from pitchpass.cli.parallel import decide_all_json_bytes
decide_all_json_bytes(scenario)
t5 = time.perf_counter()
print(json.dumps({{"import the command": t1 - t0, "parse the file": t2 - t1,
    "check and build the scenario": t3 - t2, "import the solver": t4 - t3,
    "decide and write the JSON (2 processes)": t5 - t4}}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    steps: dict[str, float] = json.loads(done.stdout)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-cli.md")
    parser.add_argument(
        "--federation", default="5000", help="match counts of federations, e.g. 5000,20000"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    import yaml

    from decide_season import season_document

    command = str(Path(sys.executable).with_name("pitchpass"))
    rows: list[tuple[str, list[float], list[float], str]] = []
    steps: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        document = json.loads(json.dumps(season_document(), default=str))
        files = {"json": Path(folder) / "season.json", "yaml": Path(folder) / "season.yaml"}
        files["json"].write_text(json.dumps(document))
        files["yaml"].write_text(yaml.safe_dump(document, sort_keys=False))
        bare = _timed([sys.executable, "-c", "pass"], args.repeat)
        readers = {
            "json": f"import json; json.load(open({str(files['json'])!r}))",
            "yaml": f"import yaml; yaml.load(open({str(files['yaml'])!r}), yaml.CSafeLoader)",
        }
        for kind, path in files.items():
            cli = _timed([command, "decide", str(path), "--json"], args.repeat)
            read = _timed([sys.executable, "-c", readers[kind]], args.repeat)
            rows.append((kind, cli, read, f"{path.stat().st_size / 1e6:.1f} MB"))
            steps[kind] = _steps(path)
        big: list[tuple[int, int, float, int]] = []
        env = {**os.environ, "PITCHPASS_MAX_FILE_MB": "1000", "PITCHPASS_PROGRESS": "0"}
        for count in [int(n) for n in args.federation.split(",") if n.strip()]:
            federation = _federation(document, count)
            path = Path(folder) / f"federation-{count}.json"
            path.write_text(json.dumps(federation))
            requests = len(federation["requests"])
            del federation
            runs = [_run_once([command, "decide", str(path), "--json"], env) for _ in range(3)]
            big.append((count, requests, min(t for t, _ in runs), max(m for _, m in runs)))
            path.unlink()
    lines = [
        "# `pitchpass decide SEASON --json`, end to end",
        "",
        "Written by `benchmarks/cli_season.py` (do not edit by hand): the season of",
        "decide_season.py (380 matches, 16,294 requests), each run a fresh process, output to",
        f"/dev/null; best of {args.repeat} (median in brackets). Machine: {os.cpu_count()} cores,",
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}.",
        f"The interpreter alone (`python -c pass`): {min(bare) * 1000:.0f} ms.",
        "",
        "| file | size | `pitchpass decide --json` | only reading the file | ratio | goal |",
        "|---|---|---|---|---|---|",
    ]
    for kind, cli, read, size in rows:
        met = "met" if min(cli) <= GOALS[kind] else "not met"
        lines.append(
            f"| {kind} | {size} | {min(cli):.2f} s ({statistics.median(cli):.2f}) |"
            f" {min(read):.2f} s ({statistics.median(read):.2f}) |"
            f" {min(cli) / min(read):.1f}x | <= {GOALS[kind]} s: {met} |"
        )
    if big:
        lines += [
            "",
            "A federation: the season copied under new ids (JSON), best of 3 runs; peak memory",
            "of the command and its pool's workers (the largest). Goals: 5,000 matches <= 5 s,",
            "20,000 <= 20 s, memory growing linearly and under 1 GB at 20,000.",
            "",
            "| matches | requests | seconds | peak memory | per request | time goal |",
            "|---|---|---|---|---|---|",
        ]
        for count, requests, seconds, memory in big:
            goal = count / 1000
            met = "met" if seconds <= goal else "not met"
            lines.append(
                f"| {count:,} | {requests:,} | {seconds:.2f} s | {memory:,} MB |"
                f" {memory * 1024 / requests:.1f} KB | <= {goal:g} s: {met} |"
            )
    lines += ["", "One run in-process, step by step (seconds):", ""]
    names = list(next(iter(steps.values())))
    lines += ["| step | " + " | ".join(steps) + " |", "|---|" + "---|" * len(steps)]
    lines += [f"| {n} | " + " | ".join(f"{steps[k][n]:.3f}" for k in steps) + " |" for n in names]
    lines.append("")
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
