"""Benchmark: deciding across machines (issue 12, section 3), Dask against Ray, on a local
cluster of two worker processes, against the single machine's pool in the same run.
Writes benchmarks/RESULTS-cluster.md.

    .venv/bin/python benchmarks/cluster.py [--repeat 3]

Ray is measured only when it is installed (`pip install ray`; it is not one of pitchpass's
dependencies). Each engine's cluster is started once (its start-up timed apart); each
figure is then the best of `--repeat` runs of deciding the loaded scenario to
`decide --json`'s bytes: each batch of whole groups of matches no season rule links sent
to a worker as its part of the scenario document (JSON), read and decided there, the
answers gathered. Every engine's bytes are checked to be the single machine's. On one
2-core machine a cluster can only cost: what this measures is that cost, the price of
being able to add machines.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE), str(HERE.parent / "src")]

from cli_season import _federation  # noqa: E402
from decide_season import SEASON_RULES, machine, season_document  # noqa: E402

WORKERS = 2


def _best(work: Any, repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        out = work()
        times.append(time.perf_counter() - started)
    return min(times), out


def _dask(scenarios: dict[str, Any], documents: dict[str, Any], repeat: int) -> dict[str, Any]:
    from dask.distributed import Client, LocalCluster

    from pitchpass.cli.cluster import decide_on_cluster

    started = time.perf_counter()
    cluster = LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=50)  # fmt: skip
    with cluster, Client(cluster) as client:
        client.wait_for_workers(WORKERS)
        startup = time.perf_counter() - started
        out = {"startup": startup}
        for name, scenario in scenarios.items():
            address = cluster.scheduler_address
            out[name] = _best(
                lambda s=scenario, a=address, d=documents[name]: decide_on_cluster(
                    s, a, document=d
                ),
                repeat,
            )
    return out


def _ray(
    scenarios: dict[str, Any], documents: dict[str, Any], repeat: int
) -> dict[str, Any] | None:
    try:
        import ray
    except ImportError:
        return None
    from pitchpass.cli.cluster import batches, decide_part, part_document
    from pitchpass.cli.parallel import document_bytes

    started = time.perf_counter()
    ray.init(num_cpus=WORKERS, include_dashboard=False, logging_level="ERROR",
             log_to_driver=False)  # fmt: skip
    remote = ray.remote(num_cpus=1)(decide_part)
    first = next(iter(documents.values()))
    ray.get([remote.remote(part_document(first, [])) for _ in range(WORKERS)])  # workers up
    out: dict[str, Any] = {"startup": time.perf_counter() - started}

    def run(scenario: Any, document: Any) -> bytes:
        ids = batches(scenario, WORKERS)
        parts = ray.get([remote.remote(part_document(document, batch)) for batch in ids])
        found = dict(pair for part in parts for pair in part)
        return document_bytes([found[m.id] for m in scenario.matches])

    for name, scenario in scenarios.items():
        out[name] = _best(lambda s=scenario, d=documents[name]: run(s, d), repeat)
    ray.shutdown()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--federation", type=int, default=5000, help="matches")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-cluster.md")
    args = parser.parse_args()
    from pitchpass.cli.parallel import decide_all_json_bytes
    from pitchpass.core import load_document

    season = season_document()
    documents = {
        "season (380 matches)": season,
        f"federation ({args.federation:,} matches)": _federation(season, args.federation),
        "season with rules (380 matches, one linked group)": {
            **season, "policy": {**season["policy"], "season": SEASON_RULES}
        },
    }  # fmt: skip
    scenarios = {name: load_document(doc) for name, doc in documents.items()}
    import pitchpass.core.deciding.solver  # noqa: F401 - imported before the clock, as the CLI does

    single = {
        name: _best(lambda s=s: decide_all_json_bytes(s), args.repeat)
        for name, s in scenarios.items()
    }
    print("single machine done", file=sys.stderr)
    dask = _dask(scenarios, documents, args.repeat)
    print("dask done", file=sys.stderr)
    ray = _ray(scenarios, documents, args.repeat)
    print("ray done" if ray else "ray not installed", file=sys.stderr)
    engines = {"Dask": dask, **({"Ray": ray} if ray else {})}
    lines = [
        "# Deciding on a cluster: Dask and Ray against one machine",
        "",
        f"Written by `benchmarks/cluster.py` ({datetime.now(UTC):%Y-%m-%d %H:%M UTC}); do not "
        "edit by hand. Each engine runs a local cluster of "
        f"{WORKERS} worker processes on this one machine; times are the best of "
        f"{args.repeat}, the cluster already started (its start-up apart). *single machine* "
        "is `decide --json`'s own path in the same run (a pool of all cores; in one process "
        "with season rules). Every engine's output is checked byte for byte against it.",
        "",
        "## Machine",
        "",
        "| | |",
        "| --- | --- |",
        *[f"| {k} | {v} |" for k, v in machine().items() if k not in ("PuLP", "CBC")],
        f"| Python | {platform.python_version()} |",
        f"| load average after the run | {' / '.join(f'{x:.2f}' for x in os.getloadavg())} |",
        "",
        "## Runs",
        "",
        "| scenario | single machine | "
        + " | ".join(f"{e} | {e} / single" for e in engines)
        + " | same bytes |",
        "| --- | ---: | " + " | ".join("---: | ---:" for _ in engines) + " | --- |",
    ]
    all_same = True
    for name in scenarios:
        base, expected = single[name]
        cells, same = [], True
        for engine in engines.values():
            took, got = engine[name]
            same = same and got == expected
            cells.append(f"{took * 1000:.0f} ms | {took / base:.2f}x")
        all_same = all_same and same
        lines.append(
            f"| {name} | {base * 1000:.0f} ms | {' | '.join(cells)} | {'yes' if same else 'NO'} |"
        )
    lines += [
        "",
        "Start-up of the cluster (not in the figures above): "
        + ", ".join(f"{e} {engine['startup']:.1f} s" for e, engine in engines.items())
        + ".",
        "",
    ]
    if ray is None:
        lines += ["Ray was not installed in this run: only Dask is measured.", ""]
    else:
        first = next(iter(scenarios))
        once = {e: engine["startup"] + engine[first][0] for e, engine in engines.items()}
        ratios = ", ".join(
            f"{name.split(' (')[0]} {ray[name][0] / dask[name][0]:.2f}" for name in scenarios
        )
        lines += [
            "## The choice",
            "",
            f"`pitchpass decide --cluster` uses Dask. A run that starts its own cluster "
            f"(`--cluster local:N`) pays the start-up: the {first} then takes "
            + ", ".join(f"{e} {t:.1f} s" for e, t in once.items())
            + f". On a cluster already running, Ray's time over Dask's: {ratios}. Dask is "
            "also a small pure-Python dependency; Ray is not.",
            "",
        ]
    args.output.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)
    sys.exit(0 if all_same else 1)


if __name__ == "__main__":
    main()
