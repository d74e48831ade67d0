"""A naive oracle for overrides and what-if with a base, written only from
docs/scenario-extensions.md on top of the docs/contract.md oracle (oracle.py), independently
of ``pitchpass.core``. Plain dicts in, the shapes of the core's JSON out.
"""

from __future__ import annotations

from typing import Any

try:
    from .oracle import (
        apply_what_if,
        eligibility_reasons,
        fits,
        oracle_decide,
        tier_of,
        venue_of,
    )
except ImportError:  # tests/core is not a package: pytest puts it on sys.path
    from oracle import (  # type: ignore[no-redef]
        apply_what_if,
        eligibility_reasons,
        fits,
        oracle_decide,
        tier_of,
        venue_of,
    )

Doc = dict[str, Any]
Override = dict[str, str]  # {"request", "status", "reason"}


def _match(doc: Doc, match_id: str) -> dict[str, Any]:
    return next(m for m in doc["matches"] if m["id"] == match_id)


def _requests(doc: Doc, match_id: str) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in doc.get("requests") or [] if r["match"] == match_id}


def set_aside(doc: Doc, match_id: str, request_id: str) -> list[str]:
    """Rule 5: the codes of the reasons no grant by hand sets aside."""
    match = _match(doc, match_id)
    zones = {z["id"]: z for z in venue_of(match, doc)["zones"]}
    request = {**_requests(doc, match_id)[request_id], "locked": False}
    reasons = eligibility_reasons(request, match, zones, doc)
    return [r["code"] for r in reasons if r["code"] not in ("late", "no-shows")]


def oracle_standing(
    doc: Doc, match_id: str, overrides: list[Override]
) -> tuple[list[Override], list[Override]]:
    """(kept, lapsed) by rules 1 to 7, in the order made."""
    match = _match(doc, match_id)
    zones = {z["id"]: z for z in venue_of(match, doc)["zones"]}
    requests = _requests(doc, match_id)
    locked = [r for r in requests.values() if r.get("locked")]
    kept: list[Override] = []
    lapsed: list[Override] = []
    for n, o in enumerate(overrides):
        later = any(p["request"] == o["request"] for p in overrides[n + 1 :])
        request = requests.get(o["request"])
        if later or request is None:  # rules 1 and 2
            lapsed.append(o)
        elif request.get("locked"):  # rules 3 and 4
            (lapsed if o["status"] == "refused" else kept).append(o)
        elif o["status"] == "refused":  # rule 7
            kept.append(o)
        else:
            grants = [
                requests[k["request"]]
                for k in kept
                if k["status"] == "granted" and not requests[k["request"]].get("locked")
            ]  # a locked request granted by hand holds its places once, as locked
            if set_aside(doc, match_id, o["request"]) or not fits(
                locked + grants + [request], zones
            ):  # rules 5 and 6
                lapsed.append(o)
            else:
                kept.append(o)
    return kept, lapsed


def _put_back(doc: Doc, match_id: str, result: dict[str, Any], refusals: dict[str, str]) -> None:
    """The requests refused by hand, at their place in document order."""
    match = _match(doc, match_id)
    by_id = {d["request"]: d for d in result["decisions"]}
    result["decisions"] = [
        {
            "request": rid,
            "status": "refused",
            "tier": tier_of(r["by"], match, doc)[1],
            "reasons": [{"code": "override", "text": refusals[rid]}],
        }
        if rid in refusals
        else by_id[rid]
        for rid, r in _requests(doc, match_id).items()
    ]


def oracle_overridden(doc: Doc, match_id: str, overrides: list[Override]) -> dict[str, Any]:
    """The match's decide output with the overrides that stand."""
    kept, _ = oracle_standing(doc, match_id, overrides)
    grants = [o["request"] for o in kept if o["status"] == "granted"]
    refusals = {o["request"]: o["reason"] for o in kept if o["status"] == "refused"}
    changed = apply_what_if(doc, grants, list(refusals), {})
    result = next(m for m in oracle_decide(changed)["matches"] if m["match"] == match_id)
    _put_back(doc, match_id, result, refusals)
    return result


def base_and_changes_fit(
    doc: Doc,
    match_id: str,
    overrides: list[Override],
    grant: list[str],
    refuse: list[str],
    capacity: dict[str, int],
) -> bool:
    """Whether the what-if can be made: the kept grants by hand no what-if change names,
    then its grants, each fit (rule 6) with its capacities."""
    kept, _ = oracle_standing(doc, match_id, overrides)
    named = set(grant) | set(refuse)
    changed = apply_what_if(doc, [], [], capacity)
    match = _match(changed, match_id)
    zones = {z["id"]: z for z in venue_of(match, changed)["zones"]}
    requests = _requests(changed, match_id)
    held = [r for r in requests.values() if r.get("locked")]
    base = [o["request"] for o in kept if o["status"] == "granted" and o["request"] not in named]
    for rid in base + grant:
        if not requests[rid].get("locked"):
            held.append(requests[rid])
    return fits(held, zones)


def oracle_what_if_with_base(
    doc: Doc,
    match_id: str,
    overrides: list[Override],
    grant: list[str],
    refuse: list[str],
    capacity: dict[str, int],
) -> dict[str, Any]:
    """What-if of one match whose before is the match with its overrides and whose
    after has the what-if's changes on top (what-if with a base, as the page says)."""
    kept, _ = oracle_standing(doc, match_id, overrides)
    named = set(grant) | set(refuse)
    refusals = {o["request"]: o["reason"] for o in kept if o["status"] == "refused"}
    base_grants = [o["request"] for o in kept if o["status"] == "granted"]
    before = oracle_overridden(doc, match_id, overrides)
    after_doc = apply_what_if(
        doc,
        [g for g in base_grants if g not in named] + grant,
        [r for r in refusals if r not in named] + refuse,
        capacity,
    )
    after = next(m for m in oracle_decide(after_doc)["matches"] if m["match"] == match_id)
    still = {k: v for k, v in refusals.items() if k not in grant}
    after_requests = _requests(after_doc, match_id)
    _put_back_partial(doc, match_id, after, still, after_requests)
    s0 = {d["request"]: d["status"] for d in before["decisions"]}
    s1 = {d["request"]: d["status"] for d in after["decisions"]}
    changes = []
    for rid in _requests(doc, match_id):
        new = s1.get(rid, "removed")
        if s0[rid] != new:
            changes.append({"request": rid, "before": s0[rid], "after": new})
    c0 = {i["incident"]: i["covered_by"] for i in before["incidents"]}
    c1 = {i["incident"]: i["covered_by"] for i in after["incidents"]}
    incidents = [{"incident": i, "before": c0[i], "after": c1[i]} for i in c0 if c0[i] != c1[i]]
    return {"changes": changes, "incidents": incidents, "result": {"matches": [after]}}


def _put_back_partial(
    doc: Doc,
    match_id: str,
    result: dict[str, Any],
    refusals: dict[str, str],
    present: dict[str, Any],
) -> None:
    """As `_put_back`, for a result that lacks the requests a what-if took out: those
    refused by hand come back refused; those it took out otherwise stay out."""
    match = _match(doc, match_id)
    by_id = {d["request"]: d for d in result["decisions"]}
    decisions = []
    for rid, r in _requests(doc, match_id).items():
        if rid in refusals:
            decisions.append(
                {
                    "request": rid,
                    "status": "refused",
                    "tier": tier_of(r["by"], match, doc)[1],
                    "reasons": [{"code": "override", "text": refusals[rid]}],
                }
            )
        elif rid in present:
            decisions.append(by_id[rid])
    result["decisions"] = decisions
