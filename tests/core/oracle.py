"""A brute-force test oracle for the decisions of docs/contract.md (version 1).

Written only from SCENARIO.md, the contract as the team was given it (docs/contract.md says it in
the project's words), independently of ``pitchpass.core``, and kept
deliberately naive so that it is obviously correct:

* ``most-granted`` enumerates *every* subset of the eligible, non-locked requests of a match;
* ``first-come`` walks the (tier, submitted, id) order literally.

It works on a plain, *valid* scenario document (a dict as loaded from YAML or JSON;
datetimes may be ``datetime`` objects or ISO strings with a timezone) and returns exactly the
``decide --json`` shape. It does no validation: feed it valid documents only. Scenarios must be
small (at most ~12 eligible requests per match) because the search is exponential.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

DEFAULT_DEADLINE = "5d"
DEFAULT_WITHIN_TIER = "most-granted"
DEFAULT_TIERS: list[dict[str, str]] = [
    {"name": "host", "rule": "host"},
    {"name": "partner", "rule": "partner"},
    {"name": "club", "rule": "club"},
    {"name": "other", "rule": "any"},
]
DEFAULT_PHASES: list[dict[str, Any]] = [
    {"id": "arrival", "start": -120, "end": -60},
    {"id": "pre-match", "start": -60, "end": 0},
    {"id": "first-half", "start": 0, "end": 47},
    {"id": "half-time", "start": 47, "end": 62},
    {"id": "second-half", "start": 62, "end": 112},
    {"id": "post-match", "start": 112, "end": 180},
]
UNRANKED = "unranked"

Doc = dict[str, Any]


# --------------------------------------------------------------------------- small helpers


def to_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


def deadline_delta(text: Any) -> timedelta:
    m = re.fullmatch(r"\s*(\d+)\s*([mhd])\s*", str(text))
    if m is None:
        raise ValueError(f"bad deadline {text!r}")
    n, unit = int(m.group(1)), m.group(2)
    return {"m": timedelta(minutes=n), "h": timedelta(hours=n), "d": timedelta(days=n)}[unit]


def policy_of(doc: Doc) -> dict[str, Any]:
    """The policy with every absent key defaulted (each key on its own)."""
    given = doc.get("policy") or {}
    return {
        "deadline": given.get("deadline", DEFAULT_DEADLINE),
        "within_tier": given.get("within_tier", DEFAULT_WITHIN_TIER),
        "tiers": given.get("tiers", DEFAULT_TIERS),
    }


def phases_of(doc: Doc) -> list[dict[str, Any]]:
    return doc.get("phases") or DEFAULT_PHASES


def capacity_at(zone: dict[str, Any], phase: str) -> int:
    cap = zone["capacity"]
    if isinstance(cap, dict):
        return int(cap[phase]) if phase in cap else int(cap["default"])
    return int(cap)


def rule_matches(rule: str, org_id: str, match: dict[str, Any], doc: Doc) -> bool:
    if rule == "host":
        return match.get("host") is not None and org_id == match.get("host")
    if rule == "partner":
        return org_id in ((doc.get("competition") or {}).get("partners") or [])
    if rule == "club":
        return org_id in (match["home"], match["away"])
    if rule == "any":
        return True
    if rule.startswith("org:"):
        return org_id == rule[len("org:") :]
    if rule.startswith("kind:"):
        kinds = {o["id"]: o.get("kind") for o in doc.get("organisations") or []}
        return kinds.get(org_id) == rule[len("kind:") :]
    raise ValueError(f"unknown tier rule {rule!r}")


def tier_of(org_id: str, match: dict[str, Any], doc: Doc) -> tuple[int, str]:
    """(index, name) of the first matching tier; unranked is below every tier."""
    tiers = policy_of(doc)["tiers"]
    for index, tier in enumerate(tiers):
        if rule_matches(str(tier["rule"]), org_id, match, doc):
            return index, str(tier["name"])
    return len(tiers), UNRANKED


def footprint(
    request: dict[str, Any], zones: dict[str, dict[str, Any]]
) -> Counter[tuple[str, str]]:
    """Places taken: crew in the zone and in each zone of its via (not followed further)."""
    places: Counter[tuple[str, str]] = Counter()
    crew = int(request["crew"])
    for zone_id in [request["zone"], *(zones[request["zone"]].get("via") or [])]:
        for phase in request["phases"]:
            places[(zone_id, phase)] += crew
    return places


def usage_of(
    requests: list[dict[str, Any]], zones: dict[str, dict[str, Any]]
) -> Counter[tuple[str, str]]:
    used: Counter[tuple[str, str]] = Counter()
    for r in requests:
        used.update(footprint(r, zones))
    return used


def fits(requests: list[dict[str, Any]], zones: dict[str, dict[str, Any]]) -> bool:
    used = usage_of(requests, zones)
    return all(n <= capacity_at(zones[z], p) for (z, p), n in used.items())


def venue_of(match: dict[str, Any], doc: Doc) -> dict[str, Any]:
    return next(v for v in doc["venues"] if v["id"] == match["venue"])


# --------------------------------------------------------------------------- eligibility


def eligibility_reasons(
    request: dict[str, Any],
    match: dict[str, Any],
    zones: dict[str, dict[str, Any]],
    doc: Doc,
) -> list[dict[str, Any]]:
    reasons: list[dict[str, Any]] = []
    cutoff = to_datetime(match["kickoff"]) - deadline_delta(policy_of(doc)["deadline"])
    if to_datetime(request["submitted"]) > cutoff:
        reasons.append({"code": "late", "text": "submitted after the deadline"})
    zone = zones[request["zone"]]
    for zone_id in [request["zone"], *(zone.get("via") or [])]:
        closed = zones[zone_id].get("closed") or []
        for phase in request["phases"]:
            if phase in closed:
                reasons.append(
                    {
                        "code": "closed",
                        "zone": zone_id,
                        "phase": phase,
                        "text": f"{zone_id} is closed in {phase}",
                    }
                )
    occupant = zone.get("occupant")
    if occupant is not None:
        club = match[occupant]
        if request["by"] != club and club not in (request.get("consent") or []):
            reasons.append({"code": "no-consent", "text": f"{club} has not consented"})
    if request.get("no_shows", 0) > 0:  # the no-show bar, worked out before the decide
        reasons.append({"code": "no-shows", "text": "barred by its organisation's no-shows"})
    return reasons


# --------------------------------------------------------------------------- choice


def choose_most_granted(
    ordered: list[dict[str, Any]],
    tier_index: dict[str, int],
    n_tiers: int,
    locked: list[dict[str, Any]],
    zones: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    """Brute force over all subsets; maximise (per-tier counts, 0/1 vector in order)."""
    best_key: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    best: list[dict[str, Any]] = []
    for bits in itertools.product((0, 1), repeat=len(ordered)):
        chosen = [r for r, b in zip(ordered, bits, strict=True) if b]
        if not fits(locked + chosen, zones):
            continue
        counts = [0] * (n_tiers + 1)  # policy tiers, then unranked
        for r in chosen:
            counts[tier_index[r["id"]]] += 1
        key = (tuple(counts), bits)
        if best_key is None or key > best_key:
            best_key, best = key, chosen
    return best


def choose_first_come(
    ordered: list[dict[str, Any]],
    locked: list[dict[str, Any]],
    zones: dict[str, dict[str, Any]],
) -> list[dict[str, Any]]:
    granted: list[dict[str, Any]] = []
    for r in ordered:
        if fits(locked + granted + [r], zones):
            granted.append(r)
    return granted


# --------------------------------------------------------------------------- decide


def incident_minute(incident: dict[str, Any], match: dict[str, Any]) -> float:
    if incident.get("minute") is not None:
        return float(incident["minute"])
    delta = to_datetime(incident["at"]) - to_datetime(match["kickoff"])
    return delta.total_seconds() / 60.0


def phase_at(minute: float, phases: list[dict[str, Any]]) -> str | None:
    for phase in phases:
        if phase["start"] <= minute < phase["end"]:
            return str(phase["id"])
    return None


def decide_match(match: dict[str, Any], doc: Doc) -> dict[str, Any]:
    policy = policy_of(doc)
    phases = phases_of(doc)
    venue = venue_of(match, doc)
    zones = {z["id"]: z for z in venue["zones"]}
    requests = [r for r in doc.get("requests") or [] if r["match"] == match["id"]]
    n_tiers = len(policy["tiers"])

    tiers = {r["id"]: tier_of(r["by"], match, doc) for r in requests}
    tier_index = {rid: t[0] for rid, t in tiers.items()}
    locked = [r for r in requests if r.get("locked")]
    ineligible = {
        r["id"]: reasons
        for r in requests
        if not r.get("locked") and (reasons := eligibility_reasons(r, match, zones, doc))
    }
    eligible = [r for r in requests if not r.get("locked") and r["id"] not in ineligible]
    ordered = sorted(
        eligible, key=lambda r: (tier_index[r["id"]], to_datetime(r["submitted"]), r["id"])
    )
    if policy["within_tier"] == "first-come":
        chosen = choose_first_come(ordered, locked, zones)
    elif policy["within_tier"] == "most-granted":
        chosen = choose_most_granted(ordered, tier_index, n_tiers, locked, zones)
    else:
        raise ValueError(f"unknown within_tier {policy['within_tier']!r}")
    granted = locked + chosen
    granted_ids = {r["id"] for r in granted}
    used = usage_of(granted, zones)

    decisions = []
    for r in requests:
        reasons: list[dict[str, Any]] = []
        if r["id"] in granted_ids:
            status = "granted"
        else:
            status = "refused"
            if r["id"] in ineligible:
                reasons = ineligible[r["id"]]
            else:
                for (z, p), needed in footprint(r, zones).items():
                    cap = capacity_at(zones[z], p)
                    if used[(z, p)] + needed > cap:
                        reasons.append(
                            {
                                "code": "capacity",
                                "zone": z,
                                "phase": p,
                                "used": used[(z, p)],
                                "capacity": cap,
                                "needed": needed,
                                "text": f"{z}, {p}: {used[(z, p)]} of {cap} places taken",
                            }
                        )
        decisions.append(
            {"request": r["id"], "status": status, "tier": tiers[r["id"]][1], "reasons": reasons}
        )

    usage = [
        {
            "zone": z["id"],
            "phase": p["id"],
            "used": used[(z["id"], p["id"])],
            "capacity": capacity_at(z, p["id"]),
        }
        for z in venue["zones"]
        for p in phases
    ]

    incidents = []
    for inc in doc.get("incidents") or []:
        if inc["match"] != match["id"]:
            continue
        phase = phase_at(incident_minute(inc, match), phases)
        covered: list[dict[str, Any]] = []
        for r in requests:
            if (
                r["id"] in granted_ids
                and int(r.get("cameras", 1)) >= 1
                and r["zone"] == inc["zone"]
                and phase is not None
                and phase in r["phases"]
            ):
                covered.append({"source": "request", "id": r["id"], "org": r["by"]})
        for cam in venue.get("cameras") or []:
            if cam["zone"] == inc["zone"] and (not cam.get("phases") or phase in cam["phases"]):
                covered.append({"source": "camera", "id": cam["id"], "org": cam.get("operator")})
        incidents.append(
            {"incident": inc["id"], "zone": inc["zone"], "phase": phase, "covered_by": covered}
        )

    return {"match": match["id"], "decisions": decisions, "usage": usage, "incidents": incidents}


def oracle_decide(doc: Doc) -> dict[str, Any]:
    """``pitchpass decide --json`` of a valid scenario document."""
    return {"matches": [decide_match(m, doc) for m in doc.get("matches") or []]}


# --------------------------------------------------------------------------- what-if


def apply_what_if(doc: Doc, grant: list[str], refuse: list[str], capacity: dict[str, int]) -> Doc:
    """The document with the what-if changes applied (the input is not modified).

    ``ZONE=N`` replaces the zone's capacity (int or map) by N in every venue with that zone;
    ``ZONE@PHASE=N`` overrides one phase (an int capacity c becomes {default: c, PHASE: N}).
    """
    new = copy.deepcopy(doc)
    new["requests"] = [r for r in new.get("requests") or [] if r["id"] not in set(refuse)]
    for r in new["requests"]:
        if r["id"] in set(grant):
            r["locked"] = True
    for key, value in capacity.items():
        zone_id, _, phase = key.partition("@")
        for venue in new["venues"]:
            for zone in venue["zones"]:
                if zone["id"] != zone_id:
                    continue
                if not phase:
                    zone["capacity"] = value
                elif isinstance(zone["capacity"], dict):
                    zone["capacity"] = {**zone["capacity"], phase: value}
                else:
                    zone["capacity"] = {"default": zone["capacity"], phase: value}
    return new


def locked_within_capacity(doc: Doc) -> bool:
    """The validation rule: locked requests alone never exceed a capacity."""
    for match in doc.get("matches") or []:
        zones = {z["id"]: z for z in venue_of(match, doc)["zones"]}
        locked = [
            r for r in doc.get("requests") or [] if r["match"] == match["id"] and r.get("locked")
        ]
        if not fits(locked, zones):
            return False
    return True


def oracle_what_if(
    doc: Doc, grant: list[str], refuse: list[str], capacity: dict[str, int]
) -> dict[str, Any]:
    """``pitchpass what-if --json``: diff of deciding as is and with the changes."""
    before = oracle_decide(doc)
    after = oracle_decide(apply_what_if(doc, grant, refuse, capacity))

    def statuses(result: dict[str, Any]) -> dict[str, str]:
        return {d["request"]: d["status"] for m in result["matches"] for d in m["decisions"]}

    def coverings(result: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        return {i["incident"]: i["covered_by"] for m in result["matches"] for i in m["incidents"]}

    s0, s1 = statuses(before), statuses(after)
    changes = []
    for r in doc.get("requests") or []:
        rid = r["id"]
        new_status = "removed" if rid in set(refuse) else s1[rid]
        if s0[rid] != new_status:
            changes.append({"request": rid, "before": s0[rid], "after": new_status})
    c0, c1 = coverings(before), coverings(after)
    incidents = [
        {"incident": i["id"], "before": c0[i["id"]], "after": c1[i["id"]]}
        for i in doc.get("incidents") or []
        if c0[i["id"]] != c1[i["id"]]
    ]
    return {"changes": changes, "incidents": incidents, "result": after}
