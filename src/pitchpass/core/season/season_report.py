"""The season report (docs/scenario-extensions.md, "The season report"): what a decided
document gives each organisation, each minimum's pairs with their debts, each rotation's
turns and spread, and each quota's use. Counted from the decisions, with the same rules
of counting as the engine (season_rules)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.decide import Decision, MatchResult
from pitchpass.core.model import Match, Minimum, Scenario, SeasonRules
from pitchpass.core.season.debts import Debt, walk
from pitchpass.core.season.season_rules import (
    TELEVISING,
    TOGETHER,
    amount,
    in_rotation,
    outcomes,
    owing_clubs,
    quota_keys,
    subject,
)

RULED_OUT = {ReasonCode.LATE, ReasonCode.CLOSED, ReasonCode.NO_CONSENT, ReasonCode.NO_SHOWS}


def season_report(scenario: Scenario, results: Sequence[MatchResult]) -> dict[str, Any]:
    rules = scenario.policy.season or SeasonRules()
    decided = [(result.match, d) for result in results for d in result.decisions]
    rotations = _rotations(scenario, rules, decided)
    return {
        "organisations": _organisations(scenario, decided, rotations),
        "quotas": _quotas(scenario, rules, decided),
        "minimums": _minimums(scenario, rules, decided),
        "rotations": rotations,
    }


def _granted(d: Decision) -> bool:
    return d.status is Status.GRANTED


def _organisations(
    scenario: Scenario, decided: list[tuple[Match, Decision]], rotations: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    out = []
    for org in scenario.organisations:
        own = [(m, d) for m, d in decided if d.request.by == org.id]
        if not own:
            continue
        zones: dict[str, list[int]] = {}
        for _, d in own:
            counted = zones.setdefault(d.request.zone, [0, 0])
            counted[0] += _granted(d)
            counted[1] += 1
        turns = [  # None: not one of the rotation's organisations
            next((t["turns"] for t in rotation["turns"] if t["organisation"] == org.id), None)
            for rotation in rotations
        ]
        out.append(
            {
                "organisation": org.id,
                "name": org.name,
                "granted": sum(1 for _, d in own if _granted(d)),
                "asked": len(own),
                "zones": [
                    {"zone": z, "granted": n[0], "asked": n[1]} for z, n in sorted(zones.items())
                ],
                "turns": turns,
                "strikes": sum(
                    1 for _, d in own if any(r.code is ReasonCode.NO_SHOWS for r in d.reasons)
                ),
            }
        )
    return out


def _quotas(
    scenario: Scenario, rules: SeasonRules, decided: list[tuple[Match, Decision]]
) -> list[dict[str, Any]]:
    use: dict[tuple[int, str, str], list[int]] = {}  # key -> [used, refused for it]
    counted_for = []
    for match, d in decided:
        org = scenario.organisation(d.request.by)
        keys = quota_keys(rules.quotas, d.request, org, match, scenario.competition.partners)
        counted_for.append((d, keys))
        for key in keys:
            tally = use.setdefault(key, [0, 0])
            if _granted(d):
                tally[0] += amount(rules.quotas[key[0]], d.request)
    for d, keys in counted_for:  # refused for a quota: one it had no room left in
        if _granted(d) or not any(r.code is ReasonCode.QUOTA for r in d.reasons):
            continue
        for key in keys:
            quota = rules.quotas[key[0]]
            if use[key][0] + amount(quota, d.request) > quota.at_most:
                use[key][1] += 1
    return [
        {
            "quota": number,
            "for": who,
            "per": rules.quotas[number].per,
            "period": period,
            "counts": rules.quotas[number].counts,
            "zones": sorted(zones) if (zones := rules.quotas[number].zones) else None,
            "used": tally[0],
            "at_most": rules.quotas[number].at_most,
            "refused": tally[1],
        }
        for (number, who, period), tally in sorted(use.items())
    ]


def _subjects(scenario: Scenario, minimum: Minimum, club: str, matches: list[Match]) -> list[str]:
    """Whom the club owes the minimum: under `to: televising`, each broadcaster that
    televises one of the matches at which it owes (docs/section-k.md)."""
    if minimum.to == TOGETHER:
        return [TOGETHER] if scenario.competition.partners else []
    partners = scenario.competition.partners
    if minimum.to == TELEVISING:
        return [
            o.id for o in scenario.organisations
            if o.id != club and any(o.id in m.televising for m in matches)
        ]  # fmt: skip
    return [
        o.id for o in scenario.organisations
        if o.id != club and subject(minimum.to, o, partners) is not None
    ]  # fmt: skip


def _minimums(
    scenario: Scenario, rules: SeasonRules, decided: list[tuple[Match, Decision]]
) -> list[dict[str, Any]]:
    ordered = sorted(scenario.matches, key=lambda m: (m.kickoff, m.id))
    # Each decision's pairs worked out once: (pair, match) -> the pair's outcomes there.
    keyed = outcomes(scenario, rules, [(d.request, _granted(d), _codes(d)) for _, d in decided])
    out = []
    for number, minimum in enumerate(rules.minimums):
        owes: dict[str, list[Match]] = {}  # club -> the matches at which it may owe, in order
        for match in ordered:
            for club in owing_clubs(minimum, match):
                owes.setdefault(club, []).append(match)
        occasions = minimum.counts == "occasions"
        for club, matches in owes.items():
            for who in _subjects(scenario, minimum, club, matches):
                at = [(x.id, keyed.get(((number, club, who), x.id), [])) for x in matches]
                asked = sum(min(len(mine), 1) if occasions else len(mine) for _, mine in at)
                count, debts = walk(minimum, at)
                owed = sum(1 for debt in debts if debt.paid_at is None)
                out.append(
                    {
                        "minimum": minimum.name,
                        "club": club,
                        "to": who,
                        "at_least": minimum.at_least,
                        "counts": minimum.counts,
                        "asked": asked,  # grants that could count: short of these, none can
                        "too_few_asked": asked < minimum.at_least,  # it could not be met
                        "granted": count,
                        "met": count >= minimum.at_least,
                        "short": max(0, minimum.at_least - count),
                        "debts": [_debt_json(x) for x in debts],
                        "owed": owed,
                    }
                )
    return out


def _debt_json(debt: Debt) -> dict[str, Any]:
    return {"opened_at": debt.opened_at, "request": debt.request, "paid_at": debt.paid_at,
            "refused": list(debt.refused)}  # fmt: skip


def _codes(d: Decision) -> frozenset[ReasonCode]:
    return frozenset(r.code for r in d.reasons)


def _rotations(
    scenario: Scenario, rules: SeasonRules, decided: list[tuple[Match, Decision]]
) -> list[dict[str, Any]]:
    out = []
    for rotation in rules.rotations:
        turns: dict[str, int] = {}
        for _, d in decided:
            if not in_rotation(rotation, d.request, d.tier):
                continue
            ruled_out = any(r.code in RULED_OUT for r in d.reasons)  # docs/contract.md 2
            if d.request.locked or not ruled_out:
                turns[d.request.by] = turns.get(d.request.by, 0) + _granted(d)
        order = {o.id: n for n, o in enumerate(scenario.organisations)}
        listed = sorted(turns.items(), key=lambda kv: order[kv[0]])
        out.append(
            {
                "zone": rotation.zone,
                "phase": rotation.phase,
                "tier": rotation.tier,
                "turns": [{"organisation": o, "turns": n} for o, n in listed],
                "spread": (max(turns.values()) - min(turns.values())) if turns else 0,
            }
        )
    return out


def rotation_label(rotation: dict[str, Any]) -> str:
    """A rotation of the report as its tables head it: "tunnel, post-match (partners)"."""
    return f"{rotation['zone']}, {rotation['phase']} ({rotation['tier']})"
