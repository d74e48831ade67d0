"""What each season rule counts (docs/scenario-extensions.md, "Season rules"): a quota's
periods, a minimum's pairs, a rotation's requests. The engine (season_decide) and the
report (season_report) both ask here, so they count alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from pitchpass.core.linked import linked_groups
from pitchpass.core.model import (
    Match,
    Minimum,
    Organisation,
    Quota,
    Request,
    Rotation,
    Scenario,
    SeasonRules,
)
from pitchpass.core.policy import tier_of

TOGETHER = "partners together"
QuotaKey = tuple[int, str, str]  # (the quota's index, its subject, the period)
PairKey = tuple[int, str, str]  # (the minimum's index, the club, the subject)


def subject(who: str, org: Organisation, partners: frozenset[str]) -> str | None:
    """Whom a rule for `who` counts `org`'s requests against: its own id, `partners
    together`, or None when the rule is not for it."""
    if who == "each":
        return org.id
    if who == "partners":
        return org.id if org.id in partners else None
    if who == TOGETHER:
        return TOGETHER if org.id in partners else None
    if who.startswith("kind:"):
        return org.id if org.kind == who[len("kind:") :] else None
    return org.id if org.id == who else None


def period(quota: Quota, match: Match) -> str:
    if quota.per == "match":
        return match.id
    if quota.per == "day":
        return match.kickoff.date().isoformat()  # in the kick-off's own UTC offset
    return "season"


def amount(quota: Quota, request: Request) -> int:
    return request.crew if quota.counts == "places" else 1


def quota_keys(
    quotas: tuple[Quota, ...], request: Request, org: Organisation, match: Match,
    partners: frozenset[str],
) -> list[QuotaKey]:  # fmt: skip
    keys = []
    for number, quota in enumerate(quotas):
        if quota.zones is not None and request.zone not in quota.zones:
            continue
        who = subject(quota.who, org, partners)
        if who is not None:
            keys.append((number, who, period(quota, match)))
    return keys


def quota_name(quota: Quota, key: QuotaKey, names: Mapping[str, str] | None = None) -> str:
    """A quota in words, for the subject and period of `key` (organisations by their
    `names`, as `names_of` gives them)."""
    who = describe(key[1], names)
    who += f" in {', '.join(sorted(quota.zones))}" if quota.zones else ""
    return {"season": f"season quota of {who}", "match": f"match quota of {who}"}.get(
        quota.per, f"quota of {who} for {key[2]}"
    )


@dataclass(frozen=True)
class Over:
    """A quota that the requests held would take past its limit."""

    key: QuotaKey
    used: int
    at_most: int
    requests: tuple[str, ...]  # the held requests that count towards it, in document order

    def text(self, rules: SeasonRules, names: Mapping[str, str] | None = None) -> str:
        quota = rules.quotas[self.key[0]]
        name = quota_name(quota, self.key, names)
        return f"{name}: {self.used} of {self.at_most} {quota.counts}"


def quotas_over(
    scenario: Scenario, held: Collection[str], newly: Collection[str] | None = None
) -> list[Over]:
    """The quotas that the requests of `held` (granted: published, and about to be) use
    past their `at_most`, with what they use and who counts; with `newly`, only those
    that one of `newly` counts towards (a publish answers for its own grants, not for an
    overrun it did not make). What a publish checks again under the competition's lock:
    the season may have used a quota since the run."""
    rules = scenario.policy.season
    if rules is None:
        return []
    partners = scenario.competition.partners
    wanted = set(held)
    used: dict[QuotaKey, int] = {}
    who: dict[QuotaKey, list[str]] = {}
    for r in scenario.requests:
        if r.id not in wanted:
            continue
        match, org = scenario.match(r.match), scenario.organisation(r.by)
        for key in quota_keys(rules.quotas, r, org, match, partners):
            used[key] = used.get(key, 0) + amount(rules.quotas[key[0]], r)
            who.setdefault(key, []).append(r.id)
    mine = None if newly is None else set(newly)
    return [
        Over(key, n, rules.quotas[key[0]].at_most, tuple(who[key]))
        for key, n in used.items()
        if n > rules.quotas[key[0]].at_most and (mine is None or mine & set(who[key]))
    ]


def in_cells(minimum: Minimum, request: Request) -> bool:
    return any(
        request.zone == zone and not phases.isdisjoint(request.phases)
        for zone, phases in minimum.cells
    )


def pair_keys(
    minimums: tuple[Minimum, ...], request: Request, org: Organisation, match: Match,
    partners: frozenset[str],
) -> list[PairKey]:  # fmt: skip
    """The (minimum, club, subject) pairs a grant of `request` counts for."""
    keys = []
    for number, minimum in enumerate(minimums):
        if request.by == match.home or not in_cells(minimum, request):
            continue
        who = subject(minimum.to, org, partners)
        if who is not None:
            keys.append((number, match.home, who))
    return keys


def in_rotation(rotation: Rotation, request: Request, tier: str) -> bool:
    return (
        tier == rotation.tier and request.zone == rotation.zone and rotation.phase in request.phases
    )


def names_of(scenario: Scenario) -> dict[str, str]:
    """Each organisation's name by its id: what the texts of the season rules say."""
    return {o.id: o.name for o in scenario.organisations}


def describe(who: str, names: Mapping[str, str] | None = None) -> str:
    """A rule's subject in words: an organisation by its name (its id without `names`)."""
    if who == TOGETHER:
        return "the partners together"
    return (names or {}).get(who, who)


def independent_groups(scenario: Scenario) -> list[list[str]]:
    """The scenario's matches in groups that no season rule links (docs/scenario-extensions.md,
    "Season rules"): two matches are in one group when some request of each counts for the
    same day or season quota period, the same minimum pair or the same rotation, whatever
    it is decided. Each group decided on its own decides as the whole scenario does. Groups
    in order of their first match, matches in document order; without season rules every
    match is a group of its own."""
    rules = scenario.policy.season
    ids = [m.id for m in scenario.matches]
    if rules is None:
        return [[i] for i in ids]
    partners = scenario.competition.partners

    def links_of(match: Match) -> list[object]:
        links: list[object] = []
        for r in scenario.requests_of(match.id):
            org = scenario.organisation(r.by)
            links += [
                ("quota", key) for key in quota_keys(rules.quotas, r, org, match, partners)
                if rules.quotas[key[0]].per != "match"
            ]  # fmt: skip
            links += [("pair", key) for key in pair_keys(rules.minimums, r, org, match, partners)]
            links += [
                ("rotation", n) for n, rotation in enumerate(rules.rotations)
                if r.zone == rotation.zone and rotation.phase in r.phases
            ]  # fmt: skip
        return links

    return [[m.id for m in group] for group in linked_groups(scenario.matches, links_of)]


def part_of(scenario: Scenario, match_ids: Collection[str]) -> Scenario:
    """The scenario with only these matches, their requests and incidents."""
    wanted = set(match_ids)
    return dataclasses.replace(
        scenario,
        matches=tuple(m for m in scenario.matches if m.id in wanted),
        requests=tuple(r for r in scenario.requests if r.match in wanted),
        incidents=tuple(i for i in scenario.incidents if i.match in wanted),
    )


@dataclass(frozen=True)
class QuotaUse:
    name: str  # the quota in words, for one subject and period
    used: int
    at_most: int
    counts: str  # requests | places


@dataclass(frozen=True)
class MinimumOwed:
    name: str  # the minimum's name
    club: str
    to: str  # whom it is owed (an organisation, or the partners together)
    met: int
    at_least: int
    home_left: int  # the club's home matches from this one on (this one included)


@dataclass(frozen=True)
class Turns:
    zone: str
    phase: str
    tier: str
    turns: tuple[tuple[str, int], ...]  # (organisation, turns taken), most first


@dataclass(frozen=True)
class Standing:
    """Where the season stands for one match: what the places held (`locked`) count."""

    quotas: tuple[QuotaUse, ...]
    minimums: tuple[MinimumOwed, ...]
    rotations: tuple[Turns, ...]


def standing(scenario: Scenario, match_id: str) -> Standing:
    """Where the season stands for the match, counted as the engine counts (quota_keys,
    pair_keys, in_rotation) over the requests held (`locked`: published grants and offers,
    at every match of the document): each quota that a request of this match counts
    towards, with its use; each minimum owed by the match's home club to whom this
    match's requests could meet it, with the club's home matches left; each rotation's
    turns. Empty without season rules."""
    rules = scenario.policy.season
    if rules is None:
        return Standing((), (), ())
    partners = scenario.competition.partners
    match = scenario.match(match_id)
    held = [r for r in scenario.requests if r.locked]
    used: dict[QuotaKey, int] = {}
    met: dict[PairKey, int] = {}
    turns: list[dict[str, int]] = [{} for _ in rules.rotations]
    for r in held:
        at, org = scenario.match(r.match), scenario.organisation(r.by)
        for key in quota_keys(rules.quotas, r, org, at, partners):
            used[key] = used.get(key, 0) + amount(rules.quotas[key[0]], r)
        for key in pair_keys(rules.minimums, r, org, at, partners):
            met[key] = met.get(key, 0) + 1
        tier = tier_of(r, org, at, scenario.policy, partners)[1]
        for n, rotation in enumerate(rules.rotations):
            if in_rotation(rotation, r, tier):
                turns[n][r.by] = turns[n].get(r.by, 0) + 1
    quotas: dict[QuotaKey, QuotaUse] = {}
    pairs: dict[PairKey, MinimumOwed] = {}
    home_left = sum(
        1 for m in scenario.matches if m.home == match.home and m.kickoff >= match.kickoff
    )
    names = names_of(scenario)
    for r in scenario.requests_of(match_id):
        org = scenario.organisation(r.by)
        for key in quota_keys(rules.quotas, r, org, match, partners):
            quota = rules.quotas[key[0]]
            quotas[key] = QuotaUse(
                quota_name(quota, key, names), used.get(key, 0), quota.at_most, quota.counts
            )
        for key in pair_keys(rules.minimums, r, org, match, partners):
            minimum = rules.minimums[key[0]]
            pairs[key] = MinimumOwed(minimum.name, describe(key[1], names),
                                     describe(key[2], names), met.get(key, 0),
                                     minimum.at_least, home_left)  # fmt: skip
    spread = tuple(
        Turns(rot.zone, rot.phase, rot.tier,
              tuple((describe(org, names), k) for org, k in
                    sorted(turns[n].items(), key=lambda item: (-item[1], item[0]))))
        for n, rot in enumerate(rules.rotations)
    )  # fmt: skip
    return Standing(tuple(quotas.values()), tuple(pairs.values()), spread)
