"""What each season rule counts (docs/scenario-extensions.md, "Season rules"): a quota's
periods, a minimum's pairs, a rotation's requests. The engine (season_decide) and the
report (season_report) both ask here, so they count alike."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pitchpass.core.codes import ReasonCode
from pitchpass.core.deciding.linked import linked_groups
from pitchpass.core.deciding.policy import occupant_club, tier_of
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
from pitchpass.core.season.debts import MatchOutcome, walk

TOGETHER = "partners together"
TELEVISING = "televising"  # a minimum's `to`: the broadcasters televising each match
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
    partners: frozenset[str], occupant: str | None = None,
) -> list[PairKey]:  # fmt: skip
    """The (minimum, club, subject) pairs a grant of `request` counts for; `occupant`: that
    of the request's zone (home, away or None), for a minimum owed `by: occupant`. A
    club's own requests count for nothing it owes."""
    keys = []
    for number, minimum in enumerate(minimums):
        if not in_cells(minimum, request):
            continue
        club = owing_club(minimum, match, occupant)
        if request.by == club:
            continue
        if minimum.to == TELEVISING:  # docs/section-k.md: only those televising this match
            who = org.id if org.id in match.televising else None
        else:
            who = subject(minimum.to, org, partners)
        if who is not None:
            keys.append((number, club, who))
    return keys


def owing_club(minimum: Minimum, match: Match, occupant: str | None) -> str:
    """The club that owes a minimum at a match (docs/section-k.md, `by`): the home club;
    the away club; or the club whose room the zone is, the home club's for a zone of no
    occupant."""
    if minimum.by == "away":
        return match.away
    if minimum.by == "occupant":
        return occupant_club(occupant, match.home, match.away) or match.home
    return match.home


def _televising_pairs(scenario: Scenario, rules: SeasonRules, match: Match) -> list[PairKey]:
    """The pairs of each minimum `to: televising` owed at the match: each club that owes it
    there (by its rooms among the minimum's cells: `by`), to each broadcaster televising
    it."""
    venue = scenario.venue(match.venue)
    zones = {z.id: z.occupant for z in venue.zones}
    out: list[PairKey] = []
    for number, minimum in enumerate(rules.minimums):
        if minimum.to != TELEVISING:
            continue
        clubs = dict.fromkeys(
            owing_club(minimum, match, zones[zone]) for zone, _ in minimum.cells if zone in zones
        )
        out += [(number, club, who) for club in clubs for who in match.televising if who != club]
    return out


def owes_at(minimum: Minimum, club: str, who: str, match: Match) -> bool:
    """Whether `club` owes the minimum to `who` at the match: it plays there on the side
    that `by` names (home, away, or either for `by: occupant`), and under `to:
    televising`, `who` televises it."""
    if club not in owing_clubs(minimum, match):
        return False
    return minimum.to != TELEVISING or who in match.televising


def owing_clubs(minimum: Minimum, match: Match) -> tuple[str, ...]:
    """The clubs that may owe the minimum at the match, as `by` says."""
    return {"home": (match.home,), "away": (match.away,)}.get(minimum.by, (match.home, match.away))


def occupant_of(scenario: Scenario, request: Request) -> str | None:
    """The occupant (home, away or None) of the zone a request asks for."""
    return scenario.venue(scenario.match(request.match).venue).zone(request.zone).occupant


def pair_counts(
    minimums: tuple[Minimum, ...], hits: Iterable[tuple[PairKey, str]]
) -> dict[PairKey, int]:
    """Each pair's count of the grants `hits` ((pair, match id), one for each grant that
    counts for the pair): one for each grant, or for `counts: occasions`, one for each
    match with a grant (docs/section-k.md)."""
    counts: dict[PairKey, int] = {}
    seen: set[tuple[PairKey, str]] = set()
    for pair, match_id in hits:
        if minimums[pair[0]].counts == "occasions":
            if (pair, match_id) in seen:
                continue
            seen.add((pair, match_id))
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def in_rotation(rotation: Rotation, request: Request, tier: str) -> bool:
    return (
        tier == rotation.tier and request.zone == rotation.zone and rotation.phase in request.phases
    )


def names_of(scenario: Scenario) -> dict[str, str]:
    """Each organisation's name by its id: what the texts of the season rules say."""
    return {o.id: o.name for o in scenario.organisations}


def _kicked_off(match: Match) -> tuple[datetime, str]:
    return (match.kickoff, match.id)


def outcomes(
    scenario: Scenario, rules: SeasonRules,
    decided: Iterable[tuple[Request, bool, frozenset[ReasonCode]]],
) -> dict[tuple[PairKey, str], list[MatchOutcome]]:  # fmt: skip
    """(pair, match id) -> the pair's outcomes there, of these requests granted or refused
    (each request's pairs worked out once)."""
    partners = scenario.competition.partners
    out: dict[tuple[PairKey, str], list[MatchOutcome]] = {}
    for r, granted, codes in decided:
        at, org = scenario.match(r.match), scenario.organisation(r.by)
        for key in pair_keys(rules.minimums, r, org, at, partners, occupant_of(scenario, r)):
            out.setdefault((key, at.id), []).append(MatchOutcome(r.id, granted, codes))
    return out


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
            links += [("pair", key) for key in pair_keys(rules.minimums, r, org, match, partners,
                                                         occupant_of(scenario, r))]  # fmt: skip
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
    left: int  # the matches from this one on at which the club owes it (this one included)
    owed: int = 0  # make-up debts its published refusals opened, not paid yet (core.debts)
    counts: str = "requests"  # the minimum's `counts`: requests | occasions
    club_id: str = ""  # the owing club's id (`club` is its name)

    @property
    def short(self) -> int:
        """How many the club still owes (a make-up debt is one of these)."""
        return max(0, self.at_least - self.met)


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


def standing(
    scenario: Scenario, match_id: str, refused: Sequence[tuple[Request, frozenset[ReasonCode]]] = ()
) -> Standing:
    """Where the season stands for the match, counted as the engine counts (quota_keys,
    pair_keys, in_rotation) over the requests held (`locked`: published grants and offers,
    at every match of the document): each quota that a request of this match counts
    towards, with its use; each minimum that this match's requests could meet, with the
    matches left at which its club owes it and the make-up debts it owes as the season is
    published (core.debts over every match: the held grants, and `refused`, the published
    refusals with their reasons' codes); each rotation's turns. Empty without season
    rules."""
    rules = scenario.policy.season
    if rules is None:
        return Standing((), (), ())
    partners = scenario.competition.partners
    match = scenario.match(match_id)
    held = [r for r in scenario.requests if r.locked]
    used: dict[QuotaKey, int] = {}
    hits: list[tuple[PairKey, str]] = []
    turns: list[dict[str, int]] = [{} for _ in rules.rotations]
    for r in held:
        at, org = scenario.match(r.match), scenario.organisation(r.by)
        for key in quota_keys(rules.quotas, r, org, at, partners):
            used[key] = used.get(key, 0) + amount(rules.quotas[key[0]], r)
        hits += [(key, at.id) for key in pair_keys(rules.minimums, r, org, at, partners,
                                                    occupant_of(scenario, r))]  # fmt: skip
        tier = tier_of(r, org, at, scenario.policy, partners)[1]
        for n, rotation in enumerate(rules.rotations):
            if in_rotation(rotation, r, tier):
                turns[n][r.by] = turns[n].get(r.by, 0) + 1
    quotas: dict[QuotaKey, QuotaUse] = {}
    pairs: dict[PairKey, MinimumOwed] = {}
    met = pair_counts(rules.minimums, hits)
    later = [m for m in scenario.matches if m.kickoff >= match.kickoff]
    names = names_of(scenario)
    keys: list[PairKey] = []
    for r in scenario.requests_of(match_id):
        org = scenario.organisation(r.by)
        for key in quota_keys(rules.quotas, r, org, match, partners):
            quota = rules.quotas[key[0]]
            quotas[key] = QuotaUse(
                quota_name(quota, key, names), used.get(key, 0), quota.at_most, quota.counts
            )
        keys += pair_keys(rules.minimums, r, org, match, partners, occupant_of(scenario, r))
    # Owed to the broadcasters televising this match whether or not they asked here.
    keys += _televising_pairs(scenario, rules, match)
    # The whole season as published: a grant held at any match pays (a later match may
    # be published first), a refusal published at any match opens.
    ordered = sorted(scenario.matches, key=_kicked_off)
    found = outcomes(scenario, rules, [(r, True, frozenset()) for r in held]
                         + [(r, False, codes) for r, codes in refused])  # fmt: skip
    for key in dict.fromkeys(keys):
        minimum = rules.minimums[key[0]]
        left = sum(1 for m in later if owes_at(minimum, key[1], key[2], m))
        walked = [(m.id, found.get((key, m.id), [])) for m in ordered
              if key[1] in owing_clubs(minimum, m)]  # fmt: skip
        owed = sum(1 for debt in walk(minimum, walked)[1] if debt.paid_at is None)
        pairs[key] = MinimumOwed(minimum.name, describe(key[1], names), describe(key[2], names),
                                 met.get(key, 0), minimum.at_least, left, owed,
                                 minimum.counts, key[1])  # fmt: skip
    spread = tuple(
        Turns(rot.zone, rot.phase, rot.tier,
              tuple((describe(org, names), k) for org, k in
                    sorted(turns[n].items(), key=lambda item: (-item[1], item[0]))))
        for n, rot in enumerate(rules.rotations)
    )  # fmt: skip
    return Standing(tuple(quotas.values()), tuple(pairs.values()), spread)
