"""Reading `policy.season` (docs/scenario-extensions.md, "Season rules"): quotas,
minimums and rotations, every problem at its path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pitchpass.core.model import UNRANKED, Minimum, Quota, Rotation, SeasonRules
from pitchpass.core.reading.fields import Reader
from pitchpass.core.reading.problems import did_you_mean
from pitchpass.core.season.season_rules import TELEVISING

PERIODS = ("match", "day", "season")
COUNTS = ("requests", "places")
GROUPS = ("partners", "partners together")
PATH = "policy.season"
# A minimum's Section K fields (docs/section-k.md): their values, the default first (for
# `by`, `counts`, `debts`: what a minimum meant before them), and what `section: K` sets.
MINIMUM_CHOICES = {
    "by": ("home", "occupant", "away"),
    "counts": ("requests", "occasions"),
    "debts": ("any-refusal", "club-refusal"),
    "rank": ("after-televising", "first"),
}
SECTION_K = {"to": TELEVISING, "by": "occupant", "counts": "occasions",
             "debts": "club-refusal", "rank": "after-televising"}  # fmt: skip


def season_rules(
    reader: Reader,
    top: dict[str, Any],
    org_ids: Sequence[str],
    zone_ids: Sequence[str],
    phase_ids: Sequence[str],
    tier_names: Sequence[str],
    kinds: Sequence[str],
) -> SeasonRules | None:
    raw_policy = top.get("policy")
    if not isinstance(raw_policy, dict) or raw_policy.get("season") is None:
        return None
    item = reader.mapping(raw_policy["season"], PATH, ("quotas", "minimums", "rotations"))
    if item is None:
        return None
    known = _Known(org_ids, zone_ids, phase_ids, tier_names, kinds)
    quotas = [
        _quota(reader, raw, f"{PATH}.quotas[{i}]", known)
        for i, raw in enumerate(reader.items(item, "quotas", PATH, required=False))
    ]
    names: dict[str, str] = {}
    minimums = [
        _minimum(reader, raw, f"{PATH}.minimums[{i}]", known, names)
        for i, raw in enumerate(reader.items(item, "minimums", PATH, required=False))
    ]
    seen: dict[tuple[str, str, str], str] = {}
    rotations = [
        _rotation(reader, raw, f"{PATH}.rotations[{i}]", known, seen)
        for i, raw in enumerate(reader.items(item, "rotations", PATH, required=False))
    ]
    # A misspelt key here drops a rule or widens one (`zone:` for `zones:`), which changes
    # every decision of the season: an error, not the warning other unknown fields get.
    for warning in [w for w in reader.warnings if w.path.startswith(PATH)]:
        reader.warnings.remove(warning)
        reader.problem(warning.path, warning.message.replace(", ignored", ""))
    return SeasonRules(
        tuple(q for q in quotas if q), tuple(m for m in minimums if m),
        tuple(r for r in rotations if r),
    )  # fmt: skip


class _Known:
    def __init__(
        self, orgs: Sequence[str], zones: Sequence[str], phases: Sequence[str],
        tiers: Sequence[str], kinds: Sequence[str],
    ) -> None:  # fmt: skip
        self.orgs, self.zones, self.phases = list(orgs), sorted(set(zones)), list(phases)
        self.tiers, self.kinds = [*tiers, UNRANKED], list(kinds)


def _who(reader: Reader, value: str | None, where: str, known: _Known, each: bool) -> bool:
    """`each` for a quota's `for`; a minimum's `to` may be `televising` instead."""
    if value is None:
        return False
    special = ("each",) if each else (TELEVISING,)
    if value in GROUPS or value in special or value in known.orgs:
        return True
    prefix, _, kind = value.partition(":")
    if prefix == "kind" and kind:
        return reader.reference(kind, where, known.kinds, "organisation kind")
    choices = [*GROUPS, "kind:<kind>", *special]
    reader.problem(
        where,
        f'unknown organisation "{value}"{did_you_mean(value, [*known.orgs, *GROUPS])}; an'
        f" organisation id or one of {', '.join(choices)}",
    )
    return False


def _choice(reader: Reader, item: dict[str, Any], key: str, path: str, options: tuple[str, ...]
            ) -> str | None:  # fmt: skip
    value = reader.text(item, key, path)
    if value is not None and value not in options:
        reader.problem(
            f"{path}.{key}",
            f'must be one of {", ".join(options)}, not "{value}"{did_you_mean(value, options)}',
        )
        return None
    return value


def _quota(reader: Reader, raw: Any, path: str, known: _Known) -> Quota | None:
    item = reader.mapping(raw, path, ("for", "per", "counts", "at_most", "zones"))
    if item is None:
        return None
    who = reader.text(item, "for", path)
    ok = _who(reader, who, f"{path}.for", known, each=True)
    per = _choice(reader, item, "per", path, PERIODS)
    counts = _choice(reader, item, "counts", path, COUNTS)
    at_most = reader.integer(item, "at_most", path, 0)
    zones = None
    if item.get("zones") is not None:
        listed = reader.id_list(item, "zones", path, required=True)
        good = [
            z for j, z in enumerate(listed)
            if reader.reference(z, f"{path}.zones[{j}]", known.zones, "zone")
        ]  # fmt: skip
        if not listed:
            reader.problem(f"{path}.zones", "must list at least one zone (or be left out)")
        zones = frozenset(good)
    if not ok or who is None or per is None or counts is None or at_most is None:
        return None
    return Quota(who, per, counts, at_most, zones)


def _minimum(
    reader: Reader, raw: Any, path: str, known: _Known, names: dict[str, str]
) -> Minimum | None:
    fields = ("name", "to", "at_least", "cells", "section", *MINIMUM_CHOICES)
    item = reader.mapping(raw, path, fields)
    if item is None:
        return None
    chosen: dict[str, str] = {}
    if item.get("section") is not None:
        section = _choice(reader, item, "section", path, ("K",))
        if section is None:
            return None
        chosen.update(SECTION_K)  # a field given beside it overrides it
    for key, options in MINIMUM_CHOICES.items():
        if item.get(key) is not None:
            value = _choice(reader, item, key, path, options)
            if value is None:
                return None
            chosen[key] = value
    name = reader.text(item, "name", path)
    if name is not None:
        if name in names:
            reader.problem(
                f"{path}.name", f'minimum name "{name}" is already used by {names[name]}'
            )
        names.setdefault(name, path)
    to = reader.text(item, "to", path, required="section" not in item) or chosen.get("to")
    ok = _who(reader, to, f"{path}.to", known, each=False)
    at_least = reader.integer(item, "at_least", path, 1)
    cells = []
    raw_cells = reader.items(item, "cells", path, required=True)
    if not raw_cells and "cells" in item:
        reader.problem(f"{path}.cells", "must list at least one zone and its phases")
    for j, raw_cell in enumerate(raw_cells):
        where = f"{path}.cells[{j}]"
        cell = reader.mapping(raw_cell, where, ("zone", "phases"))
        if cell is None:
            continue
        zone = reader.text(cell, "zone", where)
        zone_ok = reader.reference(zone, f"{where}.zone", known.zones, "zone")
        phases = reader.id_list(cell, "phases", where, required=True)
        if not phases and "phases" in cell and isinstance(cell["phases"], list):
            reader.problem(f"{where}.phases", "must list at least one phase")
        phases_ok = all(
            reader.reference(p, f"{where}.phases[{k}]", known.phases, "phase")
            for k, p in enumerate(phases)
        )
        if zone_ok and phases_ok and zone is not None and phases:
            cells.append((zone, frozenset(phases)))
    if not ok or name is None or to is None or at_least is None or len(cells) != len(raw_cells):
        return None
    if not cells:
        return None
    chosen.pop("to", None)
    return Minimum(name, to, at_least, tuple(cells), **chosen)


def _rotation(
    reader: Reader, raw: Any, path: str, known: _Known, seen: dict[tuple[str, str, str], str]
) -> Rotation | None:
    item = reader.mapping(raw, path, ("zone", "phase", "tier"))
    if item is None:
        return None
    zone = reader.text(item, "zone", path)
    phase = reader.text(item, "phase", path)
    tier = reader.text(item, "tier", path)
    ok = reader.reference(zone, f"{path}.zone", known.zones, "zone")
    ok = reader.reference(phase, f"{path}.phase", known.phases, "phase") and ok
    ok = reader.reference(tier, f"{path}.tier", known.tiers, "tier") and ok
    if not ok or zone is None or phase is None or tier is None:
        return None
    key = (zone, phase, tier)
    if key in seen:
        reader.problem(path, f"the same rotation as {seen[key]}")
        return None
    seen[key] = path
    return Rotation(zone, phase, tier)
