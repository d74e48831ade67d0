"""Deciding many matches on all cores: matches are independent, so each process takes a share.

Used by the CLI (and so by the benchmark) for big scenarios such as a whole season; a
few matches are decided in-process, where starting workers would cost more than it saves.
Workers send back only what the parent does not already have (statuses, reasons, counts,
who caught what), not the scenario's own objects: pickling those cost more than deciding.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pitchpass.core import MatchResult, Scenario, decide, decide_json
from pitchpass.core.codes import Mode, Status
from pitchpass.core.deciding.decide import Decision, Usage
from pitchpass.core.deciding.places import capacities
from pitchpass.core.deciding.reasons import Reason
from pitchpass.core.explaining.coverage import Coverage, Source
from pitchpass.core.explaining.report import match_json

MIN_MATCHES_FOR_POOL = 64
CHUNK = 8  # matches per task: small enough to balance contended and easy matches
_R = TypeVar("_R")
_shared: Scenario | None = None  # the scenario, inherited by forked workers (not pickled)

Packed = tuple[
    str,
    tuple[tuple[str, str, tuple[Reason, ...]], ...],
    tuple[int, ...],
    tuple[tuple[str | None, tuple[Source, ...]], ...],
]


def decide_all(
    scenario: Scenario, match_ids: Sequence[str] | None = None, workers: int | None = None
) -> tuple[MatchResult, ...]:
    """Every match's result (or those named), in document order."""
    ids = _ids(scenario, match_ids)
    if not _worth_a_pool(scenario, ids, workers):
        return decide(scenario, ids)
    parts = _in_pool(scenario, ids, _decide_chunk, workers)
    return tuple(_unpack(scenario, packed) for part in parts for packed in part)


def decide_all_json(
    scenario: Scenario, match_ids: Sequence[str] | None = None, workers: int | None = None
) -> dict[str, Any]:
    """`decide --json`'s output; in a pool, the workers build the JSON of their matches."""
    ids = _ids(scenario, match_ids)
    if not _worth_a_pool(scenario, ids, workers):
        return decide_json(decide(scenario, ids))
    parts = _in_pool(scenario, ids, _decide_chunk_json, workers)
    return {"matches": [match for part in parts for match in part]}


def decide_all_json_bytes(
    scenario: Scenario,
    match_ids: Sequence[str] | None = None,
    workers: int | None = None,
    done: Callable[[int], None] | None = None,
) -> bytes:
    """`decide --json`'s output as the bytes json.dumps(indent=2, ensure_ascii=False)
    writes, and a newline, by orjson (the output holds text and whole numbers, no float);
    in a pool each worker writes its own matches: bytes cost far less to send back than
    the objects."""
    return b"".join(decide_all_json_pieces(scenario, match_ids, workers, done))


def decide_all_json_pieces(
    scenario: Scenario,
    match_ids: Sequence[str] | None = None,
    workers: int | None = None,
    done: Callable[[int], None] | None = None,
) -> list[bytes]:
    """`decide_all_json_bytes` in pieces to write one after the other."""
    pieces: list[bytes] = []
    write_all_json(scenario, pieces.append, match_ids, workers, done)
    return pieces


def write_all_json(
    scenario: Scenario,
    write: Callable[[bytes], Any],
    match_ids: Sequence[str] | None = None,
    workers: int | None = None,
    done: Callable[[int], None] | None = None,
) -> None:
    """`decide_all_json_bytes`, each piece given to `write` as soon as it is made, in
    order: a federation's output is hundreds of megabytes, never held whole."""
    ids = _ids(scenario, match_ids)
    if not _worth_a_pool(scenario, ids, workers):
        write(document_bytes([match_bytes(r) for r in decide(scenario, ids)]))
        return
    head, _, tail = document_pieces([b""])  # a pool has matches: never the empty list
    write(head)
    first = [True]

    def each(part: list[bytes]) -> None:
        for match in part:
            if not first[0]:
                write(b",\n    ")
            first[0] = False
            write(match)

    _in_pool(scenario, ids, _decide_chunk_bytes, workers, done, each)
    write(tail)


def _ids(scenario: Scenario, match_ids: Sequence[str] | None) -> list[str]:
    return [m.id for m in scenario.matches] if match_ids is None else list(match_ids)


def _worth_a_pool(scenario: Scenario, ids: list[str], workers: int | None) -> bool:
    # Linux only: forking after OR-Tools is loaded is not safe on macOS. Season rules link
    # the matches: they are decided together, in one process (core.season_decide).
    return (
        scenario.policy.season is None
        and (workers or os.cpu_count() or 1) >= 2
        and len(ids) >= MIN_MATCHES_FOR_POOL
        and sys.platform == "linux"
    )


def _in_pool(
    scenario: Scenario,
    ids: list[str],
    task: Callable[[list[str]], _R],
    workers: int | None,
    done: Callable[[int], None] | None = None,
    each: Callable[[_R], None] | None = None,
) -> list[_R]:
    """`task` of each chunk of `ids` on all cores, in order; `done(n)` told as each
    chunk of n matches comes back (a progress bar); `each(part)` given each chunk's answer
    in order as it comes, instead of keeping them all (then nothing is returned)."""
    if scenario.policy.within_tier is Mode.MOST_GRANTED:
        import pitchpass.core.deciding.solver  # noqa: F401 - imported once here, not once per worker

    global _shared
    _shared = scenario
    try:
        # Fork: the workers share the parsed scenario and the imported solver with the parent.
        context = multiprocessing.get_context("fork")
        chunks = [ids[i : i + CHUNK] for i in range(0, len(ids), CHUNK)]
        with context.Pool(workers or os.cpu_count() or 1) as pool:
            if done is None and each is None:
                return pool.map(task, chunks, chunksize=1)
            parts = []
            for chunk, part in zip(chunks, pool.imap(task, chunks, chunksize=1), strict=True):
                if each is None:
                    parts.append(part)
                else:
                    each(part)
                if done is not None:
                    done(len(chunk))
            return parts
    finally:
        _shared = None


def _decide_chunk(ids: list[str]) -> list[Packed]:
    assert _shared is not None
    return [_pack(result) for result in decide(_shared, ids)]


def _decide_chunk_json(ids: list[str]) -> list[dict[str, Any]]:
    assert _shared is not None
    return [match_json(result) for result in decide(_shared, ids)]


def _decide_chunk_bytes(ids: list[str]) -> list[bytes]:
    """Each match's JSON as it stands in the list of matches (indented 4 more)."""
    assert _shared is not None
    return [match_bytes(result) for result in decide(_shared, ids)]


def match_bytes(result: MatchResult) -> bytes:
    """A match's JSON as it stands in `decide --json`'s list of matches (indented 4 more),
    the bytes json.dumps(indent=2, ensure_ascii=False) writes."""
    import orjson

    value = match_json(result)
    try:
        text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except orjson.JSONEncodeError:  # a number beyond 64 bits: json writes any
        text = json.dumps(value, indent=2, ensure_ascii=False).encode()
    return text.replace(b"\n", b"\n    ")


def document_bytes(matches: list[bytes]) -> bytes:
    """`decide --json`'s whole output from its matches' `match_bytes`, in order."""
    return b"".join(document_pieces(matches))


def document_pieces(matches: list[bytes]) -> list[bytes]:
    """`document_bytes` in pieces, the matches' own bytes among them (not copied)."""
    if not matches:
        return [b'{\n  "matches": []\n}\n']
    pieces = [b'{\n  "matches": [\n    ']
    for n, match in enumerate(matches):
        if n:
            pieces.append(b",\n    ")
        pieces.append(match)
    pieces.append(b"\n  ]\n}\n")
    return pieces


def _pack(result: MatchResult) -> Packed:
    return (
        result.match.id,
        tuple((d.status.value, d.tier, d.reasons) for d in result.decisions),
        tuple(u.used for u in result.usage),
        tuple((c.phase, c.covered_by) for c in result.incidents),
    )


def _unpack(scenario: Scenario, packed: Packed) -> MatchResult:
    match_id, decisions, used, incidents = packed
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    cells = capacities(venue, scenario.phases)  # the order `usage` is listed in
    return MatchResult(
        match,
        tuple(
            Decision(request, Status(status), tier, reasons)
            for request, (status, tier, reasons) in zip(
                scenario.requests_of(match_id), decisions, strict=True
            )
        ),
        tuple(
            Usage(zone, phase, n, capacity)
            for ((zone, phase), capacity), n in zip(cells.items(), used, strict=True)
        ),
        tuple(
            Coverage(incident, phase, sources)
            for incident, (phase, sources) in zip(
                scenario.incidents_of(match_id), incidents, strict=True
            )
        ),
    )
