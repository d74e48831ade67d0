"""A naive oracle for the match-day rules (the waitlist, its promotion, no-shows and the
no-show bar), written only from docs/scenario-extensions.md ("Match day") on top of the
docs/contract.md oracle (oracle.py), independently of ``pitchpass.core``. Plain dicts in."""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

try:
    from .oracle import (
        DEFAULT_TIERS,
        eligibility_reasons,
        oracle_decide,
        phases_of,
        tier_of,
        to_datetime,
        venue_of,
    )
except ImportError:  # tests/core is not a package: pytest puts it on sys.path
    from oracle import (  # type: ignore[no-redef]
        DEFAULT_TIERS,
        eligibility_reasons,
        oracle_decide,
        phases_of,
        tier_of,
        to_datetime,
        venue_of,
    )

Doc = dict[str, Any]


def _match(doc: Doc, match_id: str) -> dict[str, Any]:
    return next(m for m in doc["matches"] if m["id"] == match_id)


def oracle_waitlist(doc: Doc, match_id: str, waiting: list[str], minute: float | None) -> list[str]:
    """The ids on the waitlist, in its order."""
    match = _match(doc, match_id)
    zones = {z["id"]: z for z in venue_of(match, doc)["zones"]}
    ends = {p["id"]: p["end"] for p in phases_of(doc)}
    on = []
    for r in doc.get("requests") or []:
        if r["match"] != match_id or r["id"] not in waiting or r.get("locked"):
            continue
        if eligibility_reasons(r, match, zones, doc):
            continue
        if minute is not None and all(ends[p] <= minute for p in r["phases"]):
            continue
        on.append(r)
    on.sort(key=lambda r: (tier_of(r["by"], match, doc)[0], to_datetime(r["submitted"]), r["id"]))
    return [r["id"] for r in on]


def oracle_promote(
    doc: Doc, match_id: str, held: list[str], waiting: list[str], minute: float | None
) -> list[str]:
    """The ids promoted, in the waitlist's order."""
    return list(oracle_offers(doc, match_id, held, waiting, minute))


def oracle_offers(
    doc: Doc, match_id: str, held: list[str], waiting: list[str], minute: float | None
) -> dict[str, list[str]]:
    """The requests promoted, in the waitlist's order, each with the phases offered: a
    request on the waitlist asks, at `minute`, only for its phases not ended yet."""
    listed = oracle_waitlist(doc, match_id, waiting, minute)
    ends = {p["id"]: p["end"] for p in phases_of(doc)}
    again = copy.deepcopy(doc)
    kept = []
    for r in again.get("requests") or []:
        if r["match"] != match_id:
            kept.append(r)
        elif r["id"] in held:
            kept.append({**r, "locked": True})
        elif r["id"] in listed:
            if minute is not None:
                r = {**r, "phases": [p for p in r["phases"] if ends[p] > minute]}
            kept.append(r)
    again["requests"] = kept
    result = oracle_decide(again)
    mine = next(m for m in result["matches"] if m["match"] == match_id)
    granted = {d["request"] for d in mine["decisions"] if d["status"] == "granted"}
    asked = {r["id"]: r["phases"] for r in kept}
    return {rid: asked[rid] for rid in listed if rid in granted}


def oracle_releases(
    doc: Doc,
    grants: list[dict[str, Any]],
    scans: list[dict[str, Any]],
    minute: float,
    since: dict[str, float] | None = None,
    released: dict[str, list[str]] | None = None,
) -> list[tuple[str, str, float]]:
    """Releases due at `minute`, as (request, phase, release minute), from the contract
    ("Releases"): per phase, release_before minutes before it starts but not sooner than
    release_grace after the grant; none for an exempt tier, a phase already released,
    one whose time is at or after its end, one ended by `minute`, or a crew that went in
    by that time. scans: {"request", "direction", "minute"}, admitted ones."""
    rules = (doc.get("policy") or {}).get("match_day") or {}
    before = rules.get("release_before", 5)
    grace = rules.get("release_grace", 60)
    tiers = (doc.get("policy") or {}).get("tiers", DEFAULT_TIERS)
    exempt = rules.get("release_exempt")
    if exempt is None:
        exempt = [t["name"] for t in tiers if t["rule"] == "host"]
    match = doc["matches"][0]
    phases = {p["id"]: p for p in phases_of(doc)}
    out = []
    for r in grants:
        if tier_of(r["by"], match, doc)[1] in exempt:
            continue
        for phase_id in r["phases"]:
            if phase_id in (released or {}).get(r["id"], []):
                continue
            phase = phases[phase_id]
            when = phase["start"] - before
            if since is not None and r["id"] in since:
                when = max(when, since[r["id"]] + grace)
            if when >= phase["end"] or when > minute or minute >= phase["end"]:
                continue
            came = [
                s for s in scans
                if s["request"] == r["id"] and s["direction"] == "in" and s["minute"] <= when
            ]  # fmt: skip
            if not came:
                out.append((r["id"], phase_id, when))
    return out


def oracle_release_time(
    doc: Doc, grant: dict[str, Any], phase_id: str, since: dict[str, float] | None
) -> float | None:
    """When the grant's place in the phase is released, as in oracle_releases (None: never,
    its time would come at or after the phase's end)."""
    rules = (doc.get("policy") or {}).get("match_day") or {}
    phase = {p["id"]: p for p in phases_of(doc)}[phase_id]
    when = phase["start"] - rules.get("release_before", 5)
    if since is not None and grant["id"] in since:
        when = max(when, since[grant["id"]] + rules.get("release_grace", 60))
    return None if when >= phase["end"] else when


def oracle_late_scans(
    doc: Doc,
    grant: dict[str, Any],
    released: list[str],
    scans: list[dict[str, Any]],
    minute: float,
    since: dict[str, float] | None,
) -> tuple[list[str], list[str]]:
    """For a grant whose phases `released` were released: those it had lost by `minute`
    (their release time at or before it), and those a scan in by their release time shows
    were released wrongly."""
    lost, wrong = [], []
    for phase_id in grant["phases"]:
        if phase_id not in released:
            continue
        when = oracle_release_time(doc, grant, phase_id, since)
        if when is None or when <= minute:
            lost.append(phase_id)
        came = any(
            s["request"] == grant["id"] and s["direction"] == "in" and s["minute"] <= when
            for s in scans
        ) if when is not None else False  # fmt: skip
        if came:
            wrong.append(phase_id)
    return lost, wrong


def oracle_upcoming(
    doc: Doc,
    grants: list[dict[str, Any]],
    scans: list[dict[str, Any]],
    minute: float,
    since: dict[str, float] | None = None,
    released: dict[str, list[str]] | None = None,
) -> list[tuple[str, str, float]]:
    """Releases still to come after `minute`, soonest first (ties in the grants' order,
    then their phases'):
    every phase not exempt nor released already whose release time (as in
    oracle_releases) is later than `minute` and before the phase's end, of a crew none of
    which went in by `minute`."""
    rules = (doc.get("policy") or {}).get("match_day") or {}
    before = rules.get("release_before", 5)
    grace = rules.get("release_grace", 60)
    tiers = (doc.get("policy") or {}).get("tiers", DEFAULT_TIERS)
    exempt = rules.get("release_exempt")
    if exempt is None:
        exempt = [t["name"] for t in tiers if t["rule"] == "host"]
    match = doc["matches"][0]
    phases = {p["id"]: p for p in phases_of(doc)}
    found = []
    for n, r in enumerate(grants):
        if tier_of(r["by"], match, doc)[1] in exempt:
            continue
        came = any(
            s["request"] == r["id"] and s["direction"] == "in" and s["minute"] <= minute
            for s in scans
        )
        for k, phase_id in enumerate(r["phases"]):
            if came or phase_id in (released or {}).get(r["id"], []):
                continue
            when = phases[phase_id]["start"] - before
            if since is not None and r["id"] in since:
                when = max(when, since[r["id"]] + grace)
            if minute < when < phases[phase_id]["end"]:
                found.append((when, n, k, r["id"], phase_id))
    return [(rid, phase_id, when) for when, _, _, rid, phase_id in sorted(found)]


def oracle_barred(events: list[tuple[str, datetime, str, str]], limit: int) -> dict[str, int]:
    """events: (by, moment, "no-show" | "request", request id)."""
    if limit == 0:
        return {}
    out: dict[str, int] = {}
    for by in sorted({e[0] for e in events}):
        mine = sorted(
            (e for e in events if e[0] == by), key=lambda e: (e[1], e[2] != "no-show", e[3])
        )
        count = 0
        for _, _, kind, request in mine:
            if kind == "no-show":
                count += 1
            elif count >= limit:
                out[request] = count
                count = 0
    return out


def oracle_waiting(
    rows: dict[str, dict[str, Any]], published: list[dict[str, Any]] | None
) -> list[str]:
    """rows: request -> {"locked", "current", "offer"}; published: the run's decisions
    ({"request", "status", "reasons": [{"code"}]}), None before a publish."""
    if published is None:
        return []
    out = []
    for d in published:
        row = rows.get(d["request"])
        if d["status"] != "refused" or row is None:
            continue
        if row["locked"] or not row["current"] or row["offer"] is not None:
            continue
        if any(r["code"] == "override" for r in d["reasons"]):
            continue
        out.append(d["request"])
    return out
