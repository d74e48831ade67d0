"""Deciding many matches on all cores: matches are independent, so each process takes a share.

Used by the CLI (and so by the benchmark) for big scenarios such as a whole season; a
few matches are decided in-process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence

from pitchpass.core import MatchResult, Scenario, decide

MIN_MATCHES_FOR_POOL = 64
_shared: Scenario | None = None  # the scenario, inherited by forked workers (not pickled)


def decide_all(
    scenario: Scenario, match_ids: Sequence[str] | None = None, workers: int | None = None
) -> tuple[MatchResult, ...]:
    ids = [m.id for m in scenario.matches] if match_ids is None else list(match_ids)
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(ids) < MIN_MATCHES_FOR_POOL or os.name != "posix":
        return decide(scenario, ids)
    import pitchpass.core.solver  # noqa: F401 - imported once here, not once in every worker

    global _shared
    _shared = scenario
    try:
        # Fork: the workers share the parsed scenario and the imported solver with the parent.
        context = multiprocessing.get_context("fork")
        chunks = [ids[i : i + 8] for i in range(0, len(ids), 8)]
        with context.Pool(workers) as pool:
            parts = pool.map(_decide_chunk, chunks, chunksize=1)
    finally:
        _shared = None
    return tuple(result for part in parts for result in part)


def _decide_chunk(ids: list[str]) -> tuple[MatchResult, ...]:
    assert _shared is not None
    return decide(_shared, ids)
