"""A brute-force oracle for the season rules (docs/scenario-extensions.md, "Season rules").

Written from that section and docs/section-k.md alone, independently of
``pitchpass.core``: it enumerates *every* set of the document's eligible, non-locked
requests, keeps those that fit every match and every quota, and takes the greatest by
the contract's order (minimums, each rotation's sorted turns, tier counts, the 0/1
vector in the policy's order; Section K's `rank` puts the host's and the televising
broadcasters' grants before the minimums ranked after them). Reasons are worked out
from their definitions on the answer. Small documents only (about 12 eligible
requests in all). Each match's own decision comes from the docs/contract.md oracle.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from typing import Any

try:
    from .oracle import (
        capacity_at,
        eligibility_reasons,
        footprint,
        oracle_decide,
        policy_of,
        tier_of,
        to_datetime,
        venue_of,
    )
except ImportError:  # tests/core is not a package: pytest puts it on sys.path
    from oracle import (  # type: ignore[no-redef]
        capacity_at,
        eligibility_reasons,
        footprint,
        oracle_decide,
        policy_of,
        tier_of,
        to_datetime,
        venue_of,
    )

Doc = dict[str, Any]
Key = tuple[Any, ...]


def _whom(who: str, org: str, doc: Doc) -> str | None:
    partners = (doc.get("competition") or {}).get("partners") or []
    kinds = {o["id"]: o["kind"] for o in doc["organisations"]}
    if who == "each":
        return org
    if who == "partners":
        return org if org in partners else None
    if who == "partners together":
        return "together" if org in partners else None
    if who.startswith("kind:"):
        return org if kinds[org] == who[5:] else None
    return org if org == who else None


def _period(per: str, match: dict[str, Any]) -> str:
    if per == "match":
        return match["id"]
    if per == "day":
        return to_datetime(match["kickoff"]).date().isoformat()
    return "season"


def oracle_season(doc: Doc) -> dict[str, dict[str, Any]]:
    """request id -> {"status", "codes": sorted reason codes, "quota": [(used, at_most,
    needed)] sorted} for the whole document decided under its season rules."""
    season = doc["policy"]["season"]
    quotas = season.get("quotas") or []
    minimums = season.get("minimums") or []
    rotations = season.get("rotations") or []
    most = policy_of(doc)["within_tier"] == "most-granted"
    matches = {m["id"]: m for m in doc["matches"]}
    zones = {m["id"]: {z["id"]: z for z in venue_of(m, doc)["zones"]} for m in doc["matches"]}
    requests = doc.get("requests") or []
    tier = {r["id"]: tier_of(r["by"], matches[r["match"]], doc) for r in requests}
    eligible = {
        r["id"]: r.get("locked", False)
        or not eligibility_reasons(r, matches[r["match"]], zones[r["match"]], doc)
        for r in requests
    }
    locked = [r for r in requests if r.get("locked", False)]
    free = sorted(
        (r for r in requests if eligible[r["id"]] and not r.get("locked", False)),
        key=lambda r: (tier[r["id"]][0], to_datetime(r["submitted"]), r["id"]),
    )

    def quota_of(r: dict[str, Any]) -> list[tuple[Key, int, int]]:
        """(key, amount, at_most) of each quota r counts towards."""
        out = []
        for n, q in enumerate(quotas):
            if "zones" in q and r["zone"] not in q["zones"]:
                continue
            who = _whom(q["for"], r["by"], doc)
            if who is not None:
                out.append(((n, who, _period(q["per"], matches[r["match"]])),
                            r["crew"] if q["counts"] == "places" else 1, q["at_most"]))  # fmt: skip
        return out

    def pairs_of(r: dict[str, Any]) -> list[Key]:
        """(minimum, owing club, subject) of each pair a grant of r counts for
        (docs/section-k.md: `by`, `to: televising`)."""
        match = matches[r["match"]]
        out = []
        for n, m in enumerate(minimums):
            m = _section_k(m)
            if not any(r["zone"] == c["zone"] and set(r["phases"]) & set(c["phases"])
                       for c in m["cells"]):  # fmt: skip
                continue
            side = m.get("by", "home")
            if side == "occupant":
                side = zones[r["match"]][r["zone"]].get("occupant") or "home"
            club = match[side]
            if r["by"] == club:
                continue
            if m["to"] == "televising":
                who = r["by"] if r["by"] in _televising(match) else None
            else:
                who = _whom(m["to"], r["by"], doc)
            if who is not None:
                out.append((n, club, who))
        return out

    def pair_count(granted: list[dict[str, Any]]) -> Counter[Key]:
        """Each pair's count: its grants, or under `counts: occasions` its matches with a
        grant."""
        seen: dict[Key, set[str]] = {}
        count: Counter[Key] = Counter()
        for r in granted:
            for p in pairs_of(r):
                if _section_k(minimums[p[0]]).get("counts") == "occasions":
                    seen.setdefault(p, set()).add(r["match"])
                else:
                    count[p] += 1
        for p, at in seen.items():
            count[p] = len(at)
        return count

    def rotations_of(r: dict[str, Any]) -> list[int]:
        return [
            n for n, rot in enumerate(rotations)
            if tier[r["id"]][1] == rot["tier"] and r["zone"] == rot["zone"]
            and rot["phase"] in r["phases"]
        ]  # fmt: skip

    after_televising = any(
        _section_k(m).get("rank", "after-televising") == "after-televising" for m in minimums
    )
    askers = [
        sorted({r["by"] for r in requests if eligible[r["id"]] and n in rotations_of(r)})
        for n in range(len(rotations))
    ]

    def feasible(chosen: list[dict[str, Any]]) -> bool:
        used: Counter[Key] = Counter()
        for r in [*locked, *chosen]:
            for cell, n in footprint(r, zones[r["match"]]).items():
                used[(r["match"], *cell)] += n
        for (m, z, p), n in used.items():
            if n > capacity_at(zones[m][z], p):
                return False
        total: Counter[Key] = Counter()
        caps: dict[Key, int] = {}
        for r in locked:
            for key, amount, at_most in quota_of(r):
                total[key] += amount
                caps[key] = at_most
        from_locked = dict(total)
        for r in chosen:
            for key, amount, at_most in quota_of(r):
                total[key] += amount
                caps[key] = at_most
        for key, n in total.items():
            if n > caps[key] and n > from_locked.get(key, 0):
                return False
            if from_locked.get(key, 0) > caps[key] and n > from_locked[key]:
                return False
        return True

    def score(chosen: list[dict[str, Any]], bits: tuple[int, ...]) -> tuple[Any, ...]:
        granted = [*locked, *chosen]
        counts = pair_count(granted)
        met: Counter[str] = Counter()  # by rank: "first", "after-televising"
        for p, n in counts.items():
            minimum = _section_k(minimums[p[0]])
            met[minimum.get("rank", "after-televising")] += min(n, minimum["at_least"])
        # docs/section-k.md: with a minimum ranked after-televising, the grants of each
        # match's host and televising broadcasters come before those minimums.
        own = 0
        if after_televising:
            own = sum(1 for r in chosen if r["by"] == matches[r["match"]].get("host")
                      or r["by"] in _televising(matches[r["match"]]))  # fmt: skip
        leximin = []
        for n in range(len(rotations)):
            turns = Counter(r["by"] for r in granted if n in rotations_of(r))
            leximin.append(tuple(sorted(turns[o] for o in askers[n])))
        tiers: Counter[int] = Counter(tier[r["id"]][0] for r in chosen)
        by_tier = tuple(tiers[k] for k in range(len(policy_of(doc)["tiers"]) + 1)) if most else ()
        return (met["first"], own, met["after-televising"], tuple(leximin), by_tier, bits)

    best: tuple[Any, ...] | None = None
    answer: list[dict[str, Any]] = []
    for bits in itertools.product((0, 1), repeat=len(free)):
        chosen = [r for r, b in zip(free, bits, strict=True) if b]
        if not feasible(chosen):
            continue
        key = score(chosen, bits)
        if best is None or key > best:
            best, answer = key, chosen
    granted = {r["id"] for r in [*locked, *answer]}

    plain_doc = copy.deepcopy(doc)
    del plain_doc["policy"]["season"]
    plain = {
        d["request"]
        for m in oracle_decide(plain_doc)["matches"]
        for d in m["decisions"]
        if d["status"] == "granted"
    }
    # What the answer counts.
    used: Counter[Key] = Counter()
    for r in requests:
        if r["id"] in granted:
            for key, amount, _ in quota_of(r):
                used[key] += amount
    count = pair_count([r for r in requests if r["id"] in granted])
    cells: Counter[Key] = Counter()
    for r in requests:
        if r["id"] in granted:
            for cell, n in footprint(r, zones[r["match"]]).items():
                cells[(r["match"], *cell)] += n

    out: dict[str, dict[str, Any]] = {}
    took: dict[Key, set[str]] = {}  # (match, zone, phase) -> codes of the grants the rules made
    for r in requests:
        codes: list[str] = []
        if r["id"] in granted and not r.get("locked", False) and r["id"] not in plain:
            if any(count[p] <= minimums[p[0]]["at_least"] for p in pairs_of(r)):
                codes += ["minimum"] * len({p[0] for p in pairs_of(r)
                                            if count[p] <= minimums[p[0]]["at_least"]})  # fmt: skip
            codes += ["rotation"] * len(rotations_of(r))
            for cell in footprint(r, zones[r["match"]]):
                took.setdefault((r["match"], *cell), set()).update(codes)
        out[r["id"]] = {"status": "granted" if r["id"] in granted else "refused",
                        "codes": codes, "quota": []}  # fmt: skip
    for r in requests:
        if r["id"] in granted or not eligible[r["id"]]:
            continue
        entry = out[r["id"]]
        for key, amount, at_most in quota_of(r):
            if used[key] + amount > at_most:
                entry["codes"].append("quota")
                entry["quota"].append((used[key], at_most, amount))
        if r["id"] not in plain or entry["quota"]:  # refused by a quota: that is the cause
            continue
        short = [
            (r["match"], *cell) for cell, n in footprint(r, zones[r["match"]]).items()
            if cells[(r["match"], *cell)] + n > capacity_at(zones[r["match"]][cell[0]], cell[1])
        ]  # fmt: skip
        by_rules = set().union(*(took.get(c, set()) for c in short))
        before = len(entry["codes"])
        if "minimum" in by_rules:
            entry["codes"].append("minimum")
        own = rotations_of(r)
        if own:
            entry["codes"] += ["rotation"] * len(own)
        elif "rotation" in by_rules:
            rots = {
                n for g in requests if g["id"] in granted and g["match"] == r["match"]
                and not g.get("locked", False) and g["id"] not in plain
                and set(footprint(g, zones[g["match"]])) & {c[1:] for c in short}
                for n in rotations_of(g)
            }  # fmt: skip
            entry["codes"] += ["rotation"] * len(rots)
        if len(entry["codes"]) == before:  # no rule above: the one at one remove
            entry["codes"].append("season")
    for entry in out.values():
        entry["codes"] = sorted(entry["codes"])
        entry["quota"] = sorted(entry["quota"])
    return out


def _section_k(minimum: dict[str, Any]) -> dict[str, Any]:
    """A minimum with what `section: K` stands for filled in (fields given win)."""
    if minimum.get("section") != "K":
        return minimum
    return {"to": "televising", "by": "occupant", "counts": "occasions",
            "debts": "club-refusal", "rank": "after-televising", **minimum}  # fmt: skip


def _televising(match: dict[str, Any]) -> list[str]:
    """The broadcasters televising a match: `televised_by`, else its host."""
    if "televised_by" in match:
        return list(match["televised_by"])
    return [match["host"]] if match.get("host") else []


def oracle_quotas_over(doc: Doc, held: list[str]) -> list[tuple[int, int, list[str]]]:
    """Each quota period that the requests of `held` use past its `at_most`: (used,
    at_most, the ids counted, in document order), sorted; written from the contract's
    "Quotas" alone."""
    quotas = (doc["policy"].get("season") or {}).get("quotas") or []
    matches = {m["id"]: m for m in doc["matches"]}
    counted: dict[Key, list[dict[str, Any]]] = {}
    for r in doc.get("requests") or []:
        if r["id"] not in held:
            continue
        for n, q in enumerate(quotas):
            if "zones" in q and r["zone"] not in q["zones"]:
                continue
            who = _whom(q["for"], r["by"], doc)
            if who is not None:
                counted.setdefault((n, who, _period(q["per"], matches[r["match"]])), []).append(r)
    out = []
    for (n, _, _), rows in counted.items():
        q = quotas[n]
        used = sum(r["crew"] if q["counts"] == "places" else 1 for r in rows)
        if used > q["at_most"]:
            out.append((used, q["at_most"], [r["id"] for r in rows]))
    return sorted(out)
