"""Deciding a whole document jointly under its season rules (docs/scenario-extensions.md,
"Season rules"): quotas, minimums and rotations, exactly.

Each match is set up as on its own (tiers, eligibility, places). What needs no search is
settled first: a request that cannot fit alone, or whose quota has no room for it alone,
is refused; one that touches no contended zone and phase and no quota it could reach is
granted (granting more never worsens any objective, and it is in every best choice). The
rest is split into groups that the rules link (a contended zone and phase, a quota that
binds, a minimum not met yet, a rotation) and each group is one CP-SAT model, solved
lexicographically (solver.solve_lexicographic). A group no season rule touches is one
match's own, and is decided exactly as on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from pitchpass.core.codes import Mode, ReasonCode
from pitchpass.core.deciding.allocate import Item, first_come, most_granted
from pitchpass.core.deciding.decide import MatchResult, Setting, choose, finish, set_up
from pitchpass.core.deciding.linked import linked_groups
from pitchpass.core.deciding.places import Cell
from pitchpass.core.deciding.reasons import Reason
from pitchpass.core.model import Minimum, Request, Scenario, SeasonRules
from pitchpass.core.reading.problems import Unproven
from pitchpass.core.season.season_rules import (
    TELEVISING,
    PairKey,
    QuotaKey,
    amount,
    describe,
    in_rotation,
    names_of,
    occupant_of,
    pair_counts,
    pair_keys,
    quota_keys,
    quota_name,
)

LOWEST = -(1 << 63)
OWN_FIRST = (
    "the host's and the televising broadcasters' requests first (a minimum ranked after them)"
)
Constraint = tuple[str, list[int], list[int], int, int]  # name, variables, coefficients, low, high


@dataclass
class Candidate:
    """A request that may be granted (locked, or not ruled out), with what it counts for."""

    request: Request
    setting: Setting
    item: Item
    quotas: list[QuotaKey]
    pairs: list[PairKey]
    rotations: list[int]
    own: bool = False  # the match's host's or a broadcaster's televising it (section-k.md)


@dataclass
class Season:
    """The document's choice under its season rules, and what it counted."""

    rules: SeasonRules
    entries: dict[str, Candidate]
    granted: set[str]  # ids granted besides the locked
    plain: set[str]  # ids each match on its own would grant besides the locked
    used: dict[QuotaKey, int] = field(default_factory=dict)
    counts: dict[PairKey, int] = field(default_factory=dict)
    turns: list[dict[str, int]] = field(default_factory=list)  # per rotation: org -> turns
    by_match: dict[str, list[Candidate]] = field(default_factory=dict)
    linked_by: dict[str, list[str]] = field(default_factory=dict)  # request -> group's rules
    names: dict[str, str] = field(default_factory=dict)  # organisations' names, for texts
    # match -> where the solver's time limit passed before the choice was proven the best
    unproven: dict[str, list[Unproven]] = field(default_factory=dict)

    def at(self, match_id: str) -> list[Candidate]:
        """The entries of one match."""
        if not self.by_match:
            for e in self.entries.values():
                self.by_match.setdefault(e.setting.match.id, []).append(e)
        return self.by_match.get(match_id, [])


def decide_season(scenario: Scenario) -> tuple[MatchResult, ...]:
    settings = [set_up(scenario, m.id) for m in scenario.matches]
    season = solve_season(scenario, settings)
    more = season_reasons(scenario, season)
    return tuple(
        finish(scenario, s, season.granted, more, season.unproven.get(s.match.id, ()))
        for s in settings
    )


def solve_season(scenario: Scenario, settings: list[Setting]) -> Season:
    rules = scenario.policy.season or SeasonRules()
    partners = scenario.competition.partners
    entries: dict[str, Candidate] = {}
    plain: set[str] = set()
    for setting in settings:
        plain |= choose(scenario, setting)
        match = setting.match
        for r in setting.requests:
            if r.id not in setting.items:
                continue
            org = scenario.organisation(r.by)
            tier = setting.tiers[r.id][1]
            entries[r.id] = Candidate(
                r, setting, setting.items[r.id],
                quota_keys(rules.quotas, r, org, match, partners),
                pair_keys(rules.minimums, r, org, match, partners, occupant_of(scenario, r)),
                [n for n, rotation in enumerate(rules.rotations) if in_rotation(rotation, r, tier)],
                r.by == match.host or r.by in match.televising,
            )  # fmt: skip
    locked = [e for e in entries.values() if e.request.locked]
    left: dict[QuotaKey, int] = {}
    for e in locked:
        for key in e.quotas:
            left[key] = left.get(key, 0) - amount(rules.quotas[key[0]], e.request)

    def room_for(key: QuotaKey) -> int:
        return rules.quotas[key[0]].at_most + left.get(key, 0)

    candidates = [
        e for e in entries.values()
        if not e.request.locked
        and all(e.setting.room[c] >= e.item.crew for c in e.item.cells)
        and all(amount(rules.quotas[k[0]], e.request) <= room_for(k) for k in e.quotas)
    ]  # fmt: skip
    cell_demand: dict[tuple[str, Cell], int] = {}
    quota_demand: dict[QuotaKey, int] = {}
    for e in candidates:
        for c in e.item.cells:
            where = (e.setting.match.id, c)
            cell_demand[where] = cell_demand.get(where, 0) + e.item.crew
        for k in e.quotas:
            quota_demand[k] = quota_demand.get(k, 0) + amount(rules.quotas[k[0]], e.request)
    rooms = {s.match.id: s.room for s in settings}
    contended = {where for where, need in cell_demand.items() if need > rooms[where[0]][where[1]]}
    binding = {k for k, need in quota_demand.items() if need > room_for(k)}
    free: list[Candidate] = []
    searched: list[Candidate] = []
    for e in candidates:
        cells = {(e.setting.match.id, c) for c in e.item.cells}
        (searched if cells & contended or binding.intersection(e.quotas) else free).append(e)
    granted = {e.request.id for e in free}
    _, counts, turns = _tallied(rules, entries.values(), [*locked, *free])  # what is fixed
    # (pair, match) where a minimum counted in occasions has one already: more grants of
    # the pair there count nothing (docs/section-k.md, `counts: occasions`).
    occasions = {(p, e.setting.match.id) for e in [*locked, *free] for p in e.pairs}
    open_pairs = {
        pair for e in searched for pair in e.pairs
        if counts.get(pair, 0) < rules.minimums[pair[0]].at_least
    }  # fmt: skip
    active = {n for e in searched for n in e.rotations}
    televising_first = any(m.rank == "after-televising" for m in rules.minimums)
    links = _Links(contended, binding, open_pairs, active, televising_first)
    season = Season(rules, entries, granted, plain, names=names_of(scenario))
    for group in _groups(searched, links):
        unproven: list[Unproven] = []
        granted |= _solve(
            scenario, rules, group, links, (counts, occasions, turns), room_for, unproven
        )
        # The rules binding at each match, else those binding among the group's matches.
        at_match: dict[str, list[Candidate]] = {}
        for e in group:
            at_match.setdefault(e.setting.match.id, []).append(e)
        for match_id in at_match:
            season.unproven.setdefault(match_id, []).extend(unproven)
        whole = _rules_of(rules, group, links, season.names)
        for entries_here in at_match.values():
            said = _rules_of(rules, entries_here, links, season.names) or whole
            for e in entries_here:
                season.linked_by[e.request.id] = said
    _tally(season)
    return season


def _rules_of(
    rules: SeasonRules, group: list[Candidate], links: _Links, names: dict[str, str]
) -> list[str]:
    """The season rules that bind in a group, in words."""
    found: dict[str, None] = {}
    if links.televising_first and any(e.own for e in group):
        found[OWN_FIRST] = None
    for e in group:
        for k in e.quotas:
            if k in links.binding:
                quota = rules.quotas[k[0]]
                found[quota_name(quota, k, names)] = None
        for p in e.pairs:
            if p in links.open_pairs:
                said = f"of {describe(p[1], names)} for {describe(p[2], names)}"
                found[f'minimum "{rules.minimums[p[0]].name}" {said}'] = None
        for n in e.rotations:
            if n in links.active:
                rotation = rules.rotations[n]
                found[f"rotation of {rotation.zone}, {rotation.phase}"] = None
    return list(found)


@dataclass(frozen=True)
class _Links:
    contended: set[tuple[str, Cell]]
    binding: set[QuotaKey]
    open_pairs: set[PairKey]
    active: set[int]
    # A minimum ranked `after-televising`: the host's and the televising broadcasters'
    # grants come first at every match (docs/section-k.md, "The objective with rank").
    televising_first: bool = False

    def of(self, e: Candidate) -> list[object]:
        match_id = e.setting.match.id
        out: list[object] = [("cell", match_id, c) for c in e.item.cells
                             if (match_id, c) in self.contended]  # fmt: skip
        out += [("quota", k) for k in e.quotas if k in self.binding]
        out += [("pair", p) for p in e.pairs if p in self.open_pairs]
        out += [("rotation", n) for n in e.rotations if n in self.active]
        return out

    def seasonal(self, e: Candidate) -> bool:
        return any(link[0] != "cell" for link in self.of(e))  # type: ignore[index]


def _groups(searched: list[Candidate], links: _Links) -> list[list[Candidate]]:
    """The searched entries in groups the links join, each in the policy's order."""
    return [sorted(g, key=_order) for g in linked_groups(searched, links.of)]


def _order(e: Candidate) -> tuple[int, datetime, str]:
    return (e.item.rank, e.request.submitted, e.request.id)


def _solve(
    scenario: Scenario, rules: SeasonRules, group: list[Candidate], links: _Links,
    fixed: tuple[dict[PairKey, int], set[tuple[PairKey, str]], list[dict[str, int]]],
    room_for: Callable[[QuotaKey], int], unproven: list[Unproven],
) -> set[str]:  # fmt: skip
    """The group's choice; where the solver's time limit passed first, the best found,
    said in `unproven`. `fixed`: what the grants already made count (pairs' counts, the
    occasions they hold, rotations' turns)."""
    counts, occasions, turns = fixed
    own_first = links.televising_first and any(e.own for e in group)
    if not own_first and not any(links.seasonal(e) for e in group):  # as on its own
        setting = group[0].setting
        items = [e.item for e in group]
        if scenario.policy.within_tier is Mode.FIRST_COME:
            return first_come(setting.room, items)
        return most_granted(setting.room, items, setting.match.id, unproven)
    from pitchpass.core.deciding.solver import (
        solve_lexicographic,  # imports OR-Tools only when needed
    )

    names = [f"grant[{e.request.id}]" for e in group]
    constraints: list[Constraint] = []
    cells: dict[tuple[str, Cell], list[int]] = {}
    quotas: dict[QuotaKey, list[int]] = {}
    pairs: dict[PairKey, list[int]] = {}
    rotations: dict[int, dict[str, list[int]]] = {}
    for n, e in enumerate(group):
        match_id = e.setting.match.id
        for c in e.item.cells:
            if (match_id, c) in links.contended:
                cells.setdefault((match_id, c), []).append(n)
        for k in e.quotas:
            if k in links.binding:
                quotas.setdefault(k, []).append(n)
        for p in e.pairs:
            if p in links.open_pairs:
                pairs.setdefault(p, []).append(n)
        for r in e.rotations:
            rotations.setdefault(r, {}).setdefault(e.request.by, []).append(n)
    for (match_id, (zone, phase)), held in cells.items():
        room = group[held[0]].setting.room[zone, phase]
        constraints.append((f"places[{match_id}, {zone}, {phase}]", held,
                            [group[n].item.crew for n in held], LOWEST, room))  # fmt: skip
    for k, held in quotas.items():
        quota = rules.quotas[k[0]]
        constraints.append((f"quota[{k[0]}, {k[1]}, {k[2]}]", held,
                            [amount(quota, group[n].request) for n in held], LOWEST,
                            room_for(k)))  # fmt: skip
    objectives: list[tuple[str, tuple[int, ...]]] = []
    shortfall: list[int] = []  # the met parts of minimums ranked first
    after: list[int] = []  # of those ranked after the host and the televising broadcasters
    unary: list[tuple[list[int], list[int]]] = []  # counters in unary, the grants they count
    for p, held in pairs.items():
        if rules.minimums[p[0]].counts == "occasions":
            held = _occasions(names, group, p, held, occasions, constraints, unary)
        # No more of the minimum can be met here than there are grants to count for it.
        need = min(rules.minimums[p[0]].at_least - counts.get(p, 0), len(held))
        made = [_variable(names, f"minimum[{p[0]}, {p[1]}, {p[2]}, {k}]") for k in range(need)]
        constraints.append((f"minimum[{p[0]}, {p[1]}, {p[2]}]", [*made, *held],
                            [1] * len(made) + [-1] * len(held), LOWEST, 0))  # fmt: skip
        (after if rules.minimums[p[0]].rank == "after-televising" else shortfall).extend(made)
        unary.append((made, held))
    if shortfall:
        objectives.append(("minimums", tuple(shortfall)))
    if own_first:
        objectives.append(
            ("host and televising granted", tuple(n for n, e in enumerate(group) if e.own))
        )
    if after:
        objectives.append(("minimums after the televising", tuple(after)))
    for r in sorted(rotations):
        levels: dict[int, list[int]] = {}
        for org, held in rotations[r].items():
            # The turns above `base` in unary: y[j] is 1 exactly when the organisation has
            # base + j turns or more (they add up to its turns here, each at most the last).
            base = turns[r].get(org, 0)
            ys = [_variable(names, f"turns[{r}, {org}] >= {base + j}")
                  for j in range(1, len(held) + 1)]  # fmt: skip
            constraints.append((f"turns[{r}, {org}]", [*ys, *held],
                                [1] * len(ys) + [-1] * len(held), 0, 0))  # fmt: skip
            for j in range(1, len(ys)):
                constraints.append((f"turns[{r}, {org}] order {j}", [ys[j - 1], ys[j]],
                                    [1, -1], 0, 1))  # fmt: skip
            for j, y in enumerate(ys, start=1):
                levels.setdefault(base + j, []).append(y)
            unary.append((ys, held))
        objectives += [(f"rotation[{r}] turns >= {v}", tuple(levels[v])) for v in sorted(levels)]
    if scenario.policy.within_tier is Mode.MOST_GRANTED:
        ranks = sorted({e.item.rank for e in group})
        objectives += [
            (f"granted[tier {rank}]", tuple(n for n, e in enumerate(group) if e.item.rank == rank))
            for rank in ranks
        ]
    objectives += [(f"granted[{e.request.id}]", (n,)) for n, e in enumerate(group)]
    matches = sorted({e.setting.match.id for e in group})
    label = f"the season's {len(matches)} linked matches ({', '.join(matches[:3])}" + (
        ", ...)" if len(matches) > 3 else ")"
    )
    start = _first_come(group, len(names), constraints, unary)
    solved = solve_lexicographic(names, constraints, objectives, label, start=start)
    if solved.unproven is not None:
        unproven.append(solved.unproven)
    return {e.request.id for e, value in zip(group, solved.values, strict=False) if value}


def _occasions(
    names: list[str], group: list[Candidate], pair: PairKey, held: list[int],
    occasions: set[tuple[PairKey, str]], constraints: list[Constraint],
    unary: list[tuple[list[int], list[int]]],
) -> list[int]:  # fmt: skip
    """For a minimum counted in occasions: a variable for each match of the pair's grants
    `held` where it has none yet, 1 only when one of them there is granted (counted in
    unary, over its grants)."""
    at: dict[str, list[int]] = {}
    for n in held:
        match_id = group[n].setting.match.id
        if (pair, match_id) not in occasions:
            at.setdefault(match_id, []).append(n)
    made = []
    for match_id, there in at.items():
        occasion = _variable(names, f"occasion[{pair[0]}, {pair[1]}, {pair[2]}, {match_id}]")
        constraints.append((f"occasion[{pair[0]}, {pair[1]}, {pair[2]}, {match_id}] held",
                            [occasion, *there], [1] + [-1] * len(there), LOWEST, 0))  # fmt: skip
        unary.append(([occasion], there))
        made.append(occasion)
    return made


def _first_come(
    group: list[Candidate],
    size: int,
    constraints: list[Constraint],
    unary: list[tuple[list[int], list[int]]],
) -> list[int]:
    """A choice of the group's model that holds (kept should the solver find none in its
    time): its requests in the policy's order, each granted while every place and quota
    constraint it counts in has room; each counter in unary counts what that grants."""
    values = [0] * size
    bounded = [(variables, coeffs, high) for name, variables, coeffs, _low, high in constraints
               if name.startswith(("places[", "quota["))]  # fmt: skip
    weight_in: list[list[tuple[int, int]]] = [[] for _ in group]  # request -> (constraint, coeff)
    for c, (variables, coeffs, _high) in enumerate(bounded):
        for v, coeff in zip(variables, coeffs, strict=True):
            weight_in[v].append((c, coeff))
    used = [0] * len(bounded)
    for n in range(len(group)):  # the group is in the policy's order
        if all(used[c] + coeff <= bounded[c][2] for c, coeff in weight_in[n]):
            values[n] = 1
            for c, coeff in weight_in[n]:
                used[c] += coeff
    for counters, held in unary:
        count = min(len(counters), sum(values[n] for n in held))
        for j, v in enumerate(counters):
            values[v] = int(j < count)
    return values


def _variable(names: list[str], name: str) -> int:
    names.append(name)
    return len(names) - 1


def _tally(season: Season) -> None:
    """What the choice counts: quota use, minimum counts and rotation turns."""
    chosen = [
        e for e in season.entries.values() if e.request.locked or e.request.id in season.granted
    ]
    season.used, season.counts, season.turns = _tallied(
        season.rules, season.entries.values(), chosen
    )


def _tallied(
    rules: SeasonRules, entries: Iterable[Candidate], counted: Iterable[Candidate]
) -> tuple[dict[QuotaKey, int], dict[PairKey, int], list[dict[str, int]]]:
    """Quota use, minimum counts and rotation turns of the `counted` entries; each
    organisation that asked in a rotation (among `entries`) has its turns, 0 or more."""
    used: dict[QuotaKey, int] = {}
    hits: list[tuple[PairKey, str]] = []
    turns: list[dict[str, int]] = [{} for _ in rules.rotations]
    for e in entries:
        for n in e.rotations:
            turns[n].setdefault(e.request.by, 0)
    for e in counted:
        for k in e.quotas:
            used[k] = used.get(k, 0) + amount(rules.quotas[k[0]], e.request)
        hits += [(p, e.setting.match.id) for p in e.pairs]
        for n in e.rotations:
            turns[n][e.request.by] += 1
    return used, pair_counts(rules.minimums, hits), turns


def season_reasons(scenario: Scenario, season: Season) -> dict[str, tuple[Reason, ...]]:
    """The season's own reasons of each request that has some (contract, "Season rules")."""
    rules, names = season.rules, season.names
    out: dict[str, list[Reason]] = {}
    caused: dict[str, dict[Cell, set[ReasonCode]]] = {}  # match -> cell -> rules that took it
    entries = season.entries
    for e in entries.values():
        r = e.request
        if r.locked or r.id not in season.granted or r.id in season.plain:
            continue
        for number in sorted({p[0] for p in e.pairs if season.counts[p] <= _at_least(rules, p)}):
            p = next(p for p in e.pairs if p[0] == number)
            out.setdefault(r.id, []).append(_minimum_reason(rules, p, season.counts[p], names))
        for n in e.rotations:
            turn = _rotation_reason(rules, n, season.turns[n], True, names)
            out.setdefault(r.id, []).append(turn)
        codes = {reason.code for reason in out.get(r.id, [])}
        if codes:
            held = caused.setdefault(e.setting.match.id, {})
            for c in e.item.cells:
                held.setdefault(c, set()).update(codes)
    used_at = _used_cells(entries.values(), season)
    held_back: list[Candidate] = []
    quotas_at: dict[str, dict[str, None]] = {}  # match -> quotas that refused one it grants alone
    for e in entries.values():
        r = e.request
        if r.locked or r.id in season.granted:
            continue
        reasons = out.setdefault(r.id, [])
        for k in e.quotas:
            quota, need = rules.quotas[k[0]], amount(rules.quotas[k[0]], r)
            if season.used.get(k, 0) + need > quota.at_most:
                reasons.append(_quota_reason(rules, k, season.used.get(k, 0), need, names))
                if r.id in season.plain:
                    quotas_at.setdefault(e.setting.match.id, {})[quota_name(quota, k, names)] = None
        if r.id not in season.plain or reasons:  # a quota that refuses it is the cause
            continue
        match_id = e.setting.match.id
        used = used_at.get(match_id, {})
        short = [c for c in e.item.cells
                 if used.get(c, 0) + e.item.crew > e.setting.capacity[c]]  # fmt: skip
        codes = set().union(*(caused.get(match_id, {}).get(c, set()) for c in short))
        if ReasonCode.MINIMUM in codes:
            reasons.append(
                Reason(ReasonCode.MINIMUM, _took_for_minimum(scenario, e, short, season))
            )
        if e.rotations or ReasonCode.ROTATION in codes:
            for n in e.rotations or _rotations_at(e, short, season):
                reasons.append(_rotation_reason(rules, n, season.turns[n], False, names))
        if not reasons:  # a rule's effect at one remove
            held_back.append(e)
    for e in held_back:
        named = dict.fromkeys(
            [*quotas_at.get(e.setting.match.id, {}), *season.linked_by.get(e.request.id, [])]
        )
        out[e.request.id].append(
            Reason(
                ReasonCode.SEASON,
                "granted when its match is decided on its own; the season's rules gave its "
                f"places to others: {'; '.join(named)}",
            )
        )
    return {i: tuple(reasons) for i, reasons in out.items() if reasons}


def _at_least(rules: SeasonRules, pair: PairKey) -> int:
    return rules.minimums[pair[0]].at_least


def _used_cells(entries: Iterable[Candidate], season: Season) -> dict[str, dict[Cell, int]]:
    used: dict[str, dict[Cell, int]] = {}
    for e in entries:
        if e.request.locked or e.request.id in season.granted:
            at = used.setdefault(e.setting.match.id, {})
            for c in e.item.cells:
                at[c] = at.get(c, 0) + e.item.crew
    return used


def _granted_for(
    season: Season, match_id: str, cells: list[Cell], code: ReasonCode
) -> list[Candidate]:
    """The grants at the match that a season rule made and that hold one of `cells`."""
    return [
        g for g in season.at(match_id)
        if g.request.id in season.granted
        and g.request.id not in season.plain and not set(cells).isdisjoint(g.item.cells)
        and (g.pairs if code is ReasonCode.MINIMUM else g.rotations)
    ]  # fmt: skip


def _took_for_minimum(scenario: Scenario, e: Candidate, short: list[Cell], season: Season) -> str:
    grants = _granted_for(season, e.setting.match.id, short, ReasonCode.MINIMUM)
    pair = next(p for g in grants for p in g.pairs
                if season.counts[p] <= _at_least(season.rules, p))  # fmt: skip
    minimum = season.rules.minimums[pair[0]]
    return (
        f'its places went to meet the season minimum "{minimum.name}": '
        f"{_owed(minimum, pair, season.names)} a season"
    )


def _owed(minimum: Minimum, pair: PairKey, names: dict[str, str]) -> str:
    """A minimum's pair in words: "North FC grants Sky Sports at least 2", or under
    Section K's fields "... Sky Sports (televising) at least 2 occasions"."""
    who = describe(pair[2], names) + (" (televising)" if minimum.to == TELEVISING else "")
    unit = " occasions" if minimum.counts == "occasions" else ""
    return f"{describe(pair[1], names)} grants {who} at least {minimum.at_least}{unit}"


def _rotations_at(e: Candidate, short: list[Cell], season: Season) -> list[int]:
    grants = _granted_for(season, e.setting.match.id, short, ReasonCode.ROTATION)
    return sorted({n for g in grants for n in g.rotations})


def _minimum_reason(rules: SeasonRules, pair: PairKey, count: int, names: dict[str, str]) -> Reason:
    minimum = rules.minimums[pair[0]]
    counted = "met" if minimum.counts == "occasions" else "granted"
    return Reason(
        ReasonCode.MINIMUM,
        f'granted to meet the season minimum "{minimum.name}": {_owed(minimum, pair, names)}'
        f" a season ({count} {counted})",
    )


def _rotation_reason(
    rules: SeasonRules, n: int, turns: dict[str, int], granted: bool, names: dict[str, str]
) -> Reason:
    rotation = rules.rotations[n]
    ranked = sorted(turns.items(), key=lambda kv: (-kv[1], kv[0]))
    said = ", ".join(
        f"{describe(org, names)} has {k} {'turn' if k == 1 else 'turns'}" for org, k in ranked
    )
    text = (
        f"{rotation.zone}, {rotation.phase} is shared in turn among {rotation.tier} crews: "
        f"{said} this season, this decision's grants counted"
    )
    return Reason(ReasonCode.ROTATION, ("granted in turn: " if granted else "") + text)


def _quota_reason(
    rules: SeasonRules, key: QuotaKey, used: int, needed: int, names: dict[str, str]
) -> Reason:
    quota = rules.quotas[key[0]]
    name = quota_name(quota, key, names)
    unit = quota.counts if quota.at_most != 1 else quota.counts[:-1]
    if used >= quota.at_most:
        text = f"{name} reached: {used} of {quota.at_most} {unit}"
    else:
        text = f"{name}: {used} of {quota.at_most} {unit} granted; {needed} needed"
    return Reason(ReasonCode.QUOTA, text, used=used, capacity=quota.at_most, needed=needed)
