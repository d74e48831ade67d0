"""Releasing the places of crews that do not come (docs/scenario-extensions.md,
"Releases"), phase by phase: a published grant loses a phase's places when none of its
crew has gone in at a door by that phase's release time, `release_before` minutes
before the phase starts and never sooner than `release_grace` minutes after the grant
was published; its crew is warned `release_warning` minutes before; the tiers of
`release_exempt` (default: those of the host rule) are never released. A crew that
missed the arrival keeps its post-match place unless it misses that too. Pure: the
adapters give the grants, the scans and the clock (minutes after kick-off)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pitchpass.core.deciding.policy import tier_of
from pitchpass.core.match_day.doors import IN, Scan
from pitchpass.core.model import MatchDay, Request, Scenario

HOST_RULE = "host"


@dataclass(frozen=True)
class Release:
    """A phase of a published grant released (or due to be) at `minute`; `grace`: the
    grace after its publish set that time, not the phase's start."""

    request: str
    phase: str
    minute: float
    grace: bool = False


def kept(
    phases: Sequence[str], released: Collection[str], offered: Collection[str] = ()
) -> tuple[str, ...]:
    """The phases a published grant still holds: those not released as a no-show and, of
    a place offered from the waitlist (`offered`: the phases still to come when it was
    offered; empty: every phase asked for), only those offered."""
    return tuple(p for p in phases if p not in released and (not offered or p in offered))


def released_whole(
    phases: Sequence[str], released: Collection[str], offered: Collection[str] = ()
) -> bool:
    """Whether a grant has lost every phase it held: then it is released whole (revoked)."""
    return bool(released) and not kept(phases, released, offered)


def exempt_tiers(scenario: Scenario) -> frozenset[str]:
    """The tiers never released: the policy's `release_exempt`, else those of the host
    rule."""
    named = scenario.policy.match_day.release_exempt
    if named is not None:
        return frozenset(named)
    return frozenset(t.name for t in scenario.policy.tiers if t.rule == HOST_RULE)


def is_exempt(scenario: Scenario, match_id: str, request: Request) -> bool:
    match = scenario.match(match_id)
    organisation = scenario.organisation(request.by)
    _, tier = tier_of(request, organisation, match, scenario.policy, scenario.competition.partners)
    return tier in exempt_tiers(scenario)


def schedule(request: Request, scenario: Scenario, granted: float | None) -> tuple[Release, ...]:
    """When each phase of a published grant would be released (`granted`: the minute it
    was published or its offer accepted; None: long before): `release_before` minutes
    before the phase starts, never sooner than `release_grace` after the grant. A phase
    whose release would come at or after its end is never released (its place would be
    of use to nobody)."""
    rules = scenario.policy.match_day
    phases = {p.id: p for p in scenario.phases}
    out = []
    for phase_id in request.phases:
        phase = phases[phase_id]
        at = phase.start - rules.release_before
        grace = granted is not None and granted + rules.release_grace > at
        if grace and granted is not None:
            at = granted + rules.release_grace
        if at < phase.end:
            out.append(Release(request.id, phase_id, at, grace))
    return tuple(out)


def checked_in(request_id: str, scans: Iterable[Scan], by_minute: float) -> bool:
    """Whether one of the crew went in at a door (an admitted scan in) by `by_minute`."""
    return any(
        s.request == request_id and s.direction == IN and s.minute <= by_minute for s in scans
    )


def _open(
    scenario: Scenario,
    match_id: str,
    grants: Iterable[Request],
    since: Mapping[str, float],
    released: Mapping[str, Collection[str]],
) -> list[Release]:
    """Every release still to be made of the grants not exempt, in the order given."""
    out = []
    for r in grants:
        if is_exempt(scenario, match_id, r):
            continue
        done = released.get(r.id, ())
        out += [x for x in schedule(r, scenario, since.get(r.id)) if x.phase not in done]
    return out


def _ends(scenario: Scenario) -> dict[str, float]:
    return {p.id: p.end for p in scenario.phases}


def due(
    scenario: Scenario,
    match_id: str,
    grants: Iterable[Request],
    scans: Sequence[Scan],
    minute: float,
    since: Mapping[str, float] | None = None,
    released: Mapping[str, Collection[str]] | None = None,
) -> list[Release]:
    """The releases due by `minute`: of the published grants (`grants`, each with the
    minute it was made in `since`; the phases released already in `released`), each
    phase whose release time has come, none of whose crew went in at any door by then,
    while the phase has not ended."""
    ends = _ends(scenario)
    return [
        x
        for x in _open(scenario, match_id, grants, since or {}, released or {})
        if x.minute <= minute < ends[x.phase] and not checked_in(x.request, scans, x.minute)
    ]


def upcoming(
    scenario: Scenario,
    match_id: str,
    grants: Iterable[Request],
    scans: Sequence[Scan],
    minute: float,
    since: Mapping[str, float] | None = None,
    released: Mapping[str, Collection[str]] | None = None,
) -> list[Release]:
    """The releases still to come after `minute`, soonest first (then in the order given):
    each phase whose release time is later, none of whose crew has gone in by `minute`
    (the match-day header's "due for release next"; a crew that comes in before the time
    is not released)."""
    ahead = [
        x
        for x in _open(scenario, match_id, grants, since or {}, released or {})
        if x.minute > minute and not checked_in(x.request, scans, minute)
    ]
    return sorted(ahead, key=lambda x: x.minute)


def warnings(
    scenario: Scenario,
    match_id: str,
    grants: Iterable[Request],
    scans: Sequence[Scan],
    minute: float,
    since: Mapping[str, float] | None = None,
    released: Mapping[str, Collection[str]] | None = None,
    warned: Collection[tuple[str, str]] = (),
) -> list[Release]:
    """The releases a crew is to be warned of at `minute`: `release_warning` minutes or
    less before the release, none of its crew in yet, not warned already (`warned`:
    (request, phase) pairs)."""
    before = scenario.policy.match_day.release_warning
    return [
        x
        for x in _open(scenario, match_id, grants, since or {}, released or {})
        if x.minute - before <= minute < x.minute
        and (x.request, x.phase) not in set(warned)
        and not checked_in(x.request, scans, minute)
    ]


def moments(
    scenario: Scenario,
    match_id: str,
    grants: Iterable[Request],
    since: Mapping[str, float] | None = None,
    released: Mapping[str, Collection[str]] | None = None,
) -> list[float]:
    """Every minute a warning or a release of these grants falls due, in order."""
    before = scenario.policy.match_day.release_warning
    found = set()
    for x in _open(scenario, match_id, grants, since or {}, released or {}):
        found |= {x.minute, x.minute - before}
    return sorted(found)


def at_publish(
    scenario: Scenario, match_id: str, grants: Iterable[Request], minute: float
) -> list[Release]:
    """What a publish at `minute` would put a crew inside (the officer is told before
    publishing): the releases of these grants that the grace sets (the phase's own
    release time would be sooner than `release_grace` after the publish)."""
    grants = list(grants)
    made = {r.id: minute for r in grants}
    return [x for x in _open(scenario, match_id, grants, made, {}) if x.grace]


def why(release: Release, rules: MatchDay, clock: str) -> str:
    """The reason of a release in words: the rule, the time (`clock`: as the adapter
    writes it) and the phase."""
    rule = (
        f"{rules.release_grace} minutes after its grant was published"
        if release.grace
        else f"{rules.release_before} minutes before {release.phase} starts"
    )
    return (
        f"no-show: none of its crew had checked in by {clock}, the release time of its"
        f" {release.phase} place ({rule})"
    )


def contested(reason: str, phases: Sequence[str], scanned: str, gone: str) -> str:
    """A release's reason once a door that was offline shows one of the crew went in
    before it (at `scanned`, in words), where the place had gone since (`gone`: which
    zone and phase, and who holds it): the release stands, the crew was no no-show."""
    listed = ", ".join(phases)
    said = (
        f"one of its crew was let in at {scanned} by a door that was offline, before its"
        f" {listed} place was released, but the place had gone by the time the scan was"
        f" sent ({gone}): not a no-show, a conflict for the officer"
    )
    return f"{reason}; {said}" if reason else said


def released_by(
    request: Request, scenario: Scenario, granted: float | None, released: Collection[str],
    minute: float,
) -> tuple[str, ...]:  # fmt: skip
    """The phases of `released` (released already) that the grant had lost by `minute`:
    those whose release time (`schedule`) was at or before it. A scan made at `minute` by
    an offline door and sent after a release is judged against the pass as it was then."""
    at = {x.phase: x.minute for x in schedule(request, scenario, granted)}
    return tuple(p for p in request.phases if p in released and at.get(p, minute) <= minute)


def contradicted(
    request: Request, scenario: Scenario, granted: float | None, released: Collection[str],
    scans: Sequence[Scan],
) -> tuple[str, ...]:  # fmt: skip
    """The phases of `released` whose release the scans now known show was wrong: one of
    the crew went in at a door by that phase's release time (a door that was offline sent
    the scan after the release was made). Their places are the crew's again, if they
    still fit."""
    return tuple(
        x.phase
        for x in schedule(request, scenario, granted)
        if x.phase in released and checked_in(request.id, scans, x.minute)
    )
