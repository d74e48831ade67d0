"""Reading the setup sections of a scenario: version, organisations, competition, policy, phases."""

from __future__ import annotations

from typing import Any

from pitchpass.core.codes import Mode
from pitchpass.core.match_day.doors import OPENS_BEFORE
from pitchpass.core.model import (
    DEFAULT_PHASES,
    Competition,
    MatchDay,
    Organisation,
    Phase,
    Policy,
    Tier,
)
from pitchpass.core.reading.fields import Reader
from pitchpass.core.reading.problems import did_you_mean

VERSION = 1
KINDS = ("broadcaster", "club", "producer", "agency", "other")
SIMPLE_RULES = ("host", "partner", "club", "any")


def check_version(reader: Reader, top: dict[str, Any]) -> None:
    if "pitchpass" not in top:
        reader.problem("pitchpass", f"missing required field (the format version, {VERSION})")
    elif top["pitchpass"] != VERSION or isinstance(top["pitchpass"], bool):
        reader.problem(
            "pitchpass", f"unknown version {top['pitchpass']!r} (this pitchpass reads {VERSION})"
        )


def unique(reader: Reader, ids: dict[str, Any], value: str | None, path: str, what: str) -> None:
    """Record `value` as used at `path`; a second use is a problem. (A request read at once
    is recorded by its index alone, `requests[N]` written only if it is ever needed.)"""
    if value is None:
        return
    reader.declare(what, value)
    if value in ids:
        first = ids[value]
        where = f"requests[{first}]" if isinstance(first, int) else first
        reader.problem(f"{path}.id", f'{what} id "{value}" is already used by {where}')
    else:
        ids[value] = path


def organisations(reader: Reader, top: dict[str, Any]) -> list[Organisation]:
    seen: dict[str, str] = {}
    result = []
    for i, raw in enumerate(reader.items(top, "organisations", "", required=True)):
        path = f"organisations[{i}]"
        item = reader.mapping(raw, path, ("id", "name", "kind"))
        if item is None:
            continue
        org_id = reader.text(item, "id", path)
        name = reader.text(item, "name", path, required=False)
        kind = reader.text(item, "kind", path)
        if kind is not None and kind not in KINDS:
            reader.problem(
                f"{path}.kind",
                f'unknown kind "{kind}"{did_you_mean(kind, KINDS)}; one of {", ".join(KINDS)}',
            )
            kind = None
        unique(reader, seen, org_id, path, "organisation")
        if org_id is not None and kind is not None:
            result.append(Organisation(org_id, name or org_id, kind))
    return result


def competition(reader: Reader, top: dict[str, Any], org_ids: list[str]) -> Competition:
    if top.get("competition") is None:
        reader.problem("competition", "missing required field")
        return Competition("", "")
    item = reader.mapping(top["competition"], "competition", ("id", "name", "partners"))
    if item is None:
        return Competition("", "")
    competition_id = reader.text(item, "id", "competition") or ""
    name = reader.text(item, "name", "competition", required=False) or competition_id
    partners = reader.id_list(item, "partners", "competition", required=False)
    for i, partner in enumerate(partners):
        reader.reference(partner, f"competition.partners[{i}]", org_ids, "organisation")
    return Competition(competition_id, name, frozenset(partners))


def policy(reader: Reader, top: dict[str, Any], org_ids: list[str]) -> Policy:
    default = Policy()
    if top.get("policy") is None:
        return default
    item = reader.mapping(
        top["policy"], "policy", ("deadline", "within_tier", "tiers", "match_day", "season")
    )  # `season` is read with the venues (read_season), whose zones it names
    if item is None:
        return default
    deadline = reader.duration(item, "deadline", "policy", default.deadline)
    mode = default.within_tier
    raw_mode = item.get("within_tier")
    if raw_mode is not None:
        modes = [m.value for m in Mode]
        if raw_mode in modes:
            mode = Mode(raw_mode)
        else:
            reader.problem(
                "policy.within_tier",
                f"must be most-granted or first-come, not {raw_mode!r}"
                + did_you_mean(str(raw_mode), modes),
            )
    tiers = default.tiers
    if item.get("tiers") is not None:
        tiers = tuple(_tiers(reader, item, org_ids))
    return Policy(deadline, mode, tiers, _match_day(reader, item, [t.name for t in tiers]))


# A crew is released only after its door has opened (core/match_day/doors.py): it could check in.
DOORS_OPEN = OPENS_BEFORE
MAX_ACCEPT = 24 * 60


MAX_RELEASE_MINUTES = 24 * 60  # a grace or a warning longer than a day is a slip


def _match_day(reader: Reader, policy: dict[str, Any], tier_names: list[str]) -> MatchDay:
    default = MatchDay()
    if policy.get("match_day") is None:
        return default
    path = "policy.match_day"
    item = reader.mapping(
        policy["match_day"],
        path,
        (
            "release_before", "accept_within", "no_show_limit", "release_grace",
            "release_warning", "release_exempt",
        ),
    )  # fmt: skip
    if item is None:
        return default
    release = reader.integer(item, "release_before", path, 0, default.release_before)
    if release is not None and release >= DOORS_OPEN:
        reader.problem(
            f"{path}.release_before",
            f"must be less than {DOORS_OPEN}, not {release}: a door opens {DOORS_OPEN} minutes"
            " before its phase, and a crew must be able to check in before it loses its place",
        )
        release = None
    accept = reader.integer(item, "accept_within", path, 1, default.accept_within)
    if accept is not None and accept > MAX_ACCEPT:
        reader.problem(f"{path}.accept_within", f"must be at most {MAX_ACCEPT}, not {accept}")
        accept = None
    limit = reader.integer(item, "no_show_limit", path, 0, default.no_show_limit)
    minutes = {}
    for key in ("release_grace", "release_warning"):
        found = reader.integer(item, key, path, 0, getattr(default, key))
        if found is not None and found > MAX_RELEASE_MINUTES:
            reader.problem(f"{path}.{key}", f"must be at most {MAX_RELEASE_MINUTES}, not {found}")
            found = None
        minutes[key] = getattr(default, key) if found is None else found
    exempt = default.release_exempt
    if item.get("release_exempt") is not None:
        exempt = tuple(reader.id_list(item, "release_exempt", path, required=False))
        for i, name in enumerate(exempt):
            reader.reference(name, f"{path}.release_exempt[{i}]", tier_names, "tier")
    return MatchDay(
        default.release_before if release is None else release,
        default.accept_within if accept is None else accept,
        default.no_show_limit if limit is None else limit,
        minutes["release_grace"],
        minutes["release_warning"],
        exempt,
    )


def _tiers(reader: Reader, policy: dict[str, Any], org_ids: list[str]) -> list[Tier]:
    names: dict[str, str] = {}
    result = []
    for i, raw in enumerate(reader.items(policy, "tiers", "policy", required=False)):
        path = f"policy.tiers[{i}]"
        item = reader.mapping(raw, path, ("name", "rule"))
        if item is None:
            continue
        name = reader.text(item, "name", path)
        rule = reader.text(item, "rule", path)
        if name is not None:
            if name in names:
                reader.problem(
                    f"{path}.name", f'tier name "{name}" is already used by {names[name]}'
                )
            names[name] = path
        if rule is not None and _check_rule(reader, rule, f"{path}.rule", org_ids) and name:
            result.append(Tier(name, rule))
    return result


def _check_rule(reader: Reader, rule: str, where: str, org_ids: list[str]) -> bool:
    if rule in SIMPLE_RULES:
        return True
    prefix, _, value = rule.partition(":")
    if prefix == "org" and value:
        return reader.reference(value, where, org_ids, "organisation")
    if prefix == "kind" and value:
        return reader.reference(value, where, KINDS, "organisation kind")
    choices = (*SIMPLE_RULES, "org:<id>", "kind:<kind>")
    reader.problem(
        where,
        f'unknown tier rule "{rule}"{did_you_mean(rule, SIMPLE_RULES)}; '
        f"one of {', '.join(choices)}",
    )
    return False


def phases(reader: Reader, top: dict[str, Any]) -> list[Phase]:
    if top.get("phases") is None:
        return list(DEFAULT_PHASES)
    seen: dict[str, str] = {}
    result: list[tuple[int, Phase]] = []
    for i, raw in enumerate(reader.items(top, "phases", "", required=False)):
        path = f"phases[{i}]"
        item = reader.mapping(raw, path, ("id", "start", "end"))
        if item is None:
            continue
        phase_id = reader.text(item, "id", path)
        start = reader.number(item, "start", path)
        end = reader.number(item, "end", path)
        unique(reader, seen, phase_id, path, "phase")
        if start is not None and end is not None and end <= start:
            reader.problem(f"{path}.end", f"must be after start ({start}), not {end}")
        elif phase_id is not None and start is not None and end is not None:
            for j, other in result:
                if start < other.end and other.start < end:
                    reader.problem(
                        path,
                        f'[{start}, {end}) overlaps phase "{other.id}" [{other.start}, {other.end})'
                        f" (phases[{j}])",
                    )
            result.append((i, Phase(phase_id, start, end)))
    if not result and not reader.problems:
        reader.problem("phases", "must list at least one phase (or be left out for the default)")
    return [phase for _, phase in result]
