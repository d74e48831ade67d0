"""The pure core of pitchpass: scenarios in, decisions, reasons, coverage and what-if out.

No Django, database, terminal or clock here; the CLI and the web app are adapters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pitchpass.core.deciding.decide import Decision, MatchResult, decide, decide_match
from pitchpass.core.explaining.report import decide_json
from pitchpass.core.explaining.whatif import (
    CapacityChange,
    Changes,
    apply_changes,
    parse_capacity,
    what_if,
    what_if_json,
)
from pitchpass.core.model import Scenario
from pitchpass.core.reading.problems import Problem, ScenarioInvalid, SolverFailed
from pitchpass.core.reading.scenario import (
    Frame,
    check_document,
    check_request,
    load_document,
    read_frame,
)

__all__ = [
    "CapacityChange", "Changes", "Decision", "Frame", "MatchResult", "Problem", "Scenario",
    "ScenarioInvalid", "SolverFailed", "apply_changes", "check_document", "check_request",
    "decide", "decide_document", "decide_json", "decide_match", "load_document",
    "parse_capacity", "read_frame", "what_if", "what_if_document", "what_if_json",
]  # fmt: skip


def decide_document(document: dict[str, Any]) -> dict[str, Any]:
    """A scenario document in, the `decide --json` output out."""
    return decide_json(decide(load_document(document)))


def what_if_document(
    document: dict[str, Any],
    grant: Iterable[str] = (),
    refuse: Iterable[str] = (),
    capacity: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """A scenario document and changes in (capacity keys "zone" or "zone@phase"), the
    `what-if --json` output out."""
    changes = Changes(
        tuple(grant),
        tuple(refuse),
        tuple(parse_capacity(f"{key}={n}") for key, n in (capacity or {}).items()),
    )
    return what_if_json(what_if(load_document(document), changes))
