"""Small scenario documents for tests: one match, a few zones, requests built by `req`."""

from __future__ import annotations

import copy
from typing import Any

from pitchpass.core import decide_document

KICKOFF = "2024-05-01T15:00:00+00:00"
IN_TIME = "2024-04-20T10:00:00+00:00"

BASE: dict[str, Any] = {
    "pitchpass": 1,
    "competition": {"id": "league", "name": "League", "partners": ["p1", "p2"]},
    "venues": [
        {
            "id": "ground",
            "name": "The Ground",
            "zones": [
                {"id": "tunnel", "capacity": 4},
                {
                    "id": "away-room",
                    "capacity": 2,
                    "via": ["tunnel"],
                    "occupant": "away",
                    "closed": ["first-half", "second-half"],
                },
                {"id": "pitch", "capacity": 10},
            ],
        }
    ],
    "organisations": [
        {"id": "h", "name": "Host TV", "kind": "broadcaster"},
        {"id": "p1", "name": "Partner One", "kind": "broadcaster"},
        {"id": "p2", "name": "Partner Two", "kind": "broadcaster"},
        {"id": "home-fc", "name": "Home FC", "kind": "club"},
        {"id": "away-fc", "name": "Away FC", "kind": "club"},
        {"id": "prod", "name": "Docs Ltd", "kind": "producer"},
        {"id": "agency", "name": "Photo Agency", "kind": "agency"},
    ],
    "matches": [
        {
            "id": "m1",
            "venue": "ground",
            "home": "home-fc",
            "away": "away-fc",
            "kickoff": KICKOFF,
            "host": "h",
        }
    ],
}


def req(
    request_id: str,
    by: str,
    zone: str = "tunnel",
    phases: tuple[str, ...] = ("post-match",),
    crew: int = 1,
    submitted: str = IN_TIME,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": request_id,
        "match": "m1",
        "by": by,
        "zone": zone,
        "phases": list(phases),
        "crew": crew,
        "submitted": submitted,
        **extra,
    }


def scenario(*requests: dict[str, Any], **top: Any) -> dict[str, Any]:
    """BASE with these requests; `top` replaces top-level sections (policy, incidents, ...)."""
    document = copy.deepcopy(BASE)
    document["requests"] = list(requests)
    document.update(top)
    return document


def zone(document: dict[str, Any], zone_id: str) -> dict[str, Any]:
    """The zone of the first venue with this id, to change in place."""
    return next(z for z in document["venues"][0]["zones"] if z["id"] == zone_id)


def decided(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """request id -> its decision in `decide --json` output."""
    out = decide_document(document)
    return {d["request"]: d for m in out["matches"] for d in m["decisions"]}


def statuses(document: dict[str, Any]) -> dict[str, str]:
    return {rid: d["status"] for rid, d in decided(document).items()}


def codes(decision: dict[str, Any]) -> list[str]:
    return sorted(r["code"] for r in decision["reasons"])
