"""The JSON of docs/contract.md's "Output of --json": keys in the contract's order, lists in
document order. Other tools compare it byte for byte in meaning: keep it stable."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pitchpass.core.deciding.decide import MatchResult
from pitchpass.core.explaining.coverage import Coverage


def decide_json(results: Iterable[MatchResult]) -> dict[str, Any]:
    return {"matches": [match_json(result) for result in results]}


def match_json(result: MatchResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "match": result.match.id,
        "decisions": [
            {
                "request": d.request.id,
                "status": d.status.value,
                "tier": d.tier,
                "reasons": [reason.as_json() for reason in d.reasons],
            }
            for d in result.decisions
        ],
        "usage": [
            {"zone": u.zone, "phase": u.phase, "used": u.used, "capacity": u.capacity}
            for u in result.usage
        ],
        "incidents": [coverage_json(c) for c in result.incidents],
    }
    if result.unproven:  # only where the solver's time limit passed (docs: "Unproven")
        out["unproven"] = [
            {"objective": u.objective, "found": u.found, "most": u.most,
             "seconds": round(u.seconds, 1), "message": u.text()}
            for u in result.unproven
        ]  # fmt: skip
    return out


def unproven_texts(results: Iterable[MatchResult]) -> list[str]:
    """Each choice kept unproven when the solver's time limit passed, said once (a group
    of linked matches says it at each of them)."""
    return list(dict.fromkeys(u.text() for r in results for u in r.unproven))


def coverage_json(coverage: Coverage) -> dict[str, Any]:
    return {
        "incident": coverage.incident.id,
        "zone": coverage.incident.zone,
        "phase": coverage.phase,
        "covered_by": [source.as_json() for source in coverage.covered_by],
    }
