"""Deciding a season or a federation across machines (issue 12, section 3): the matches
in batches of whole groups that no season rule links (core.season_rules.independent_groups,
each group decided alone decides as the whole), each batch a task on a Dask cluster, the
scenario sent to every worker once. The output is byte for byte `decide --json`'s.

`--cluster ADDRESS`: `local:N` starts a cluster of N worker processes on this machine for
the run; any other address is a running Dask scheduler's (`tcp://host:8786`), whose
workers must have pitchpass installed. Dask was chosen over Ray by measurement:
benchmarks/cluster.py, RESULTS-cluster.md.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

from pitchpass.cli.parallel import document_bytes, match_bytes
from pitchpass.core import Scenario
from pitchpass.core.deciding.decide import decide
from pitchpass.core.season.season_rules import independent_groups, part_of

BATCHES_PER_WORKER = 4  # enough to balance slow and quick batches, few enough to cost little


class ClusterUnavailable(Exception):
    """The cluster could not be used: Dask missing, or no scheduler at the address."""


def batches(scenario: Scenario, workers: int) -> list[list[str]]:
    """Match ids in batches of whole independent groups, in document order, about
    BATCHES_PER_WORKER batches a worker (a group bigger than that is a batch of its own)."""
    groups = independent_groups(scenario)
    size = max(1, math.ceil(len(scenario.matches) / max(1, workers * BATCHES_PER_WORKER)))
    out: list[list[str]] = []
    for group in groups:
        if out and len(out[-1]) + len(group) <= size:
            out[-1].extend(group)
        else:
            out.append(list(group))
    return out


def decide_batch(scenario: Scenario, ids: list[str]) -> list[tuple[str, bytes]]:
    """A worker's task: its batch decided alone, each match's JSON."""
    return [(r.match.id, match_bytes(r)) for r in decide(part_of(scenario, ids))]


def part_document(document: dict[str, Any], ids: list[str]) -> bytes:
    """The scenario document with only these matches, their requests and incidents, as
    JSON: one bytes object is sent to a worker far faster than the objects it stands for."""
    import orjson

    wanted = set(ids)
    part = {
        **document,
        **{
            key: [x for x in document.get(key) or [] if _match_of(x, key) in wanted]
            for key in ("matches", "requests", "incidents")
        },
    }
    return orjson.dumps(part, default=str)


def _match_of(item: Any, key: str) -> Any:
    if not isinstance(item, dict):
        return None
    return item.get("id") if key == "matches" else item.get("match")


def decide_part(text: bytes) -> list[tuple[str, bytes]]:
    """A worker's task: a part document read and decided, each match's JSON."""
    import orjson

    from pitchpass.core import load_document

    return [(r.match.id, match_bytes(r)) for r in decide(load_document(orjson.loads(text)))]


def decide_on_cluster(
    scenario: Scenario,
    address: str,
    match_ids: list[str] | None = None,
    done: Callable[[int], None] | None = None,
    document: dict[str, Any] | None = None,
) -> bytes:
    """`decide --json`'s output, decided on the cluster at `address`. With the `document`
    the scenario was read from, each batch is sent as its part of it (JSON) and read on its
    worker; else as its part of the scenario's objects."""
    with _client(address) as client:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        parts = batches(scenario, workers)
        if document is not None:
            futures = [
                client.submit(decide_part, part_document(document, ids), pure=False)
                for ids in parts
            ]
        else:
            futures = [
                client.submit(decide_batch, part_of(scenario, ids), ids, pure=False)
                for ids in parts
            ]
        found: dict[str, bytes] = {}
        from dask.distributed import as_completed

        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            answered = future.result()
            found.update(answered)
            if done is not None:
                done(len(answered))
    wanted = [m.id for m in scenario.matches] if match_ids is None else match_ids
    return document_bytes([found[i] for i in wanted])


@contextlib.contextmanager
def _client(address: str) -> Iterator[Any]:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ClusterUnavailable(
            "Dask is not installed: pip install 'pitchpass[cluster]'"
        ) from None
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or not 1 <= int(count) <= 64:
            raise ClusterUnavailable(f'"{address}": write local:N with N from 1 to 64')
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=int(count), threads_per_worker=1, processes=True,
            dashboard_address=None, silence_logs=50,
        )  # fmt: skip
        with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
            yield client
        return
    try:
        client = Client(address, timeout="10s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterUnavailable(f"no Dask scheduler at {address}: {error}") from None
    with client:
        yield client
