"""The policy's questions about a request: which tier is it in, may it be granted at all,
and when requests for a match close (the deadline's one home)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta

from pitchpass.core.codes import ReasonCode
from pitchpass.core.deciding.places import Cell
from pitchpass.core.deciding.reasons import Reason
from pitchpass.core.model import UNRANKED, Match, Organisation, Policy, Request, Scenario, Venue
from pitchpass.core.reading.fields import MAX_DEADLINE, parse_duration


def deadline_of(text: str | None) -> timedelta | None:
    """A competition's deadline as written (a duration such as "48h"; none written: the
    policy's default), None if it is not one the contract takes (docs/contract.md)."""
    deadline = parse_duration(text) if text else Policy().deadline
    return None if deadline is None or deadline > MAX_DEADLINE else deadline


def closes_at(kickoff: datetime, deadline: timedelta) -> datetime:
    """When requests for a match close: its kick-off minus the deadline; the first moment
    of the year 1 when that falls before it, which no calendar has (requests have always
    been closed)."""
    try:
        return kickoff - deadline
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC)


def tier_of(
    request: Request, organisation: Organisation, match: Match, policy: Policy,
    partners: frozenset[str],
) -> tuple[int, str]:  # fmt: skip
    """(rank, name) of the first tier whose rule matches; unranked ranks below every tier."""
    for rank, tier in enumerate(policy.tiers):
        if _matches(tier.rule, organisation, match, partners):
            return rank, tier.name
    return len(policy.tiers), UNRANKED


def _matches(rule: str, organisation: Organisation, match: Match, partners: frozenset[str]) -> bool:
    if rule == "any":
        return True
    if rule == "host":
        return organisation.id == match.host
    if rule == "partner":
        return organisation.id in partners
    if rule == "club":
        return organisation.id in (match.home, match.away)
    prefix, _, value = rule.partition(":")
    if prefix == "org":
        return organisation.id == value
    return prefix == "kind" and organisation.kind == value


def ineligibility(
    request: Request,
    match: Match,
    venue: Venue,
    policy: Policy,
    names: Mapping[str, str] | None = None,
) -> list[Reason]:
    """Every reason that rules a request out before places are counted (none if locked).
    `names` (organisation id -> name) lets the sentences name the clubs."""
    if request.locked:
        return []
    reasons = []
    cutoff = closes_at(match.kickoff, policy.deadline)
    if request.submitted > cutoff:
        reasons.append(
            Reason(
                ReasonCode.LATE,
                f"submitted {_when(request.submitted)}, after the deadline {_when(cutoff)} "
                f"({_duration(policy)} before kick-off)",
            )
        )
    zone = venue.zone(request.zone)
    for zone_id, phase in closed_on_the_way(request.zone, request.phases, venue):
        text = f"{_zone(venue, zone_id)} is closed at {phase}"
        reasons.append(Reason(ReasonCode.CLOSED, text, zone_id, phase))
    club = occupant_club(zone.occupant, match.home, match.away)
    if club is not None and request.by != club and club not in request.consent:
        reasons.append(
            Reason(
                ReasonCode.NO_CONSENT,
                f"{_zone(venue, zone.id)} belongs to {(names or {}).get(club, club)}, the "
                f"{zone.occupant} club, which has not consented to this crew",
            )
        )
    if request.no_shows:
        reasons.append(Reason(ReasonCode.NO_SHOWS, no_show_text(policy.match_day.no_show_limit)))
    return reasons


def no_show_text(limit: int) -> str:
    """Why the no-show bar refuses a request (docs/scenario-extensions.md). The sentence
    gives the competition's limit, never the organisation's own count: a club's officer
    reads the reasons of other organisations' requests for its room."""
    reached = f"the competition's no-show limit ({limit})" if limit else "the no-show bar"
    return (
        f"sent after its organisation reached {reached}: crews not checked in by their "
        "release time; the no-show bar refuses this one request (an officer may still grant "
        "it by hand)"
    )


def _zone(venue: Venue, zone_id: str) -> str:
    """A zone by its name, with its id (as the grid and the forms show it)."""
    name = venue.zone(zone_id).name
    return f"{name} ({zone_id})" if name and name != zone_id else zone_id


def closed_on_the_way(zone_id: str, phases: Iterable[str], venue: Venue) -> list[Cell]:
    """Each (zone, phase) asked for where the zone, or a zone it is reached through (its
    `via`, as listed), is closed: a request there is refused (`closed`)."""
    zone = venue.zone(zone_id)
    chosen = list(phases)
    return [
        (way, phase)
        for way in (zone.id, *zone.via)
        for phase in chosen
        if phase in venue.zone(way).closed
    ]


def occupant_club(occupant: str | None, home: str, away: str) -> str | None:
    """The club whose room a zone is (its `occupant`, home or away, in this match)."""
    return {"home": home, "away": away}.get(occupant or "")


def beyond_override(
    request: Request,
    match: Match,
    venue: Venue,
    policy: Policy,
    names: Mapping[str, str] | None = None,
) -> list[Reason]:
    """The reasons no grant by hand sets aside: a zone closed (itself or one it is reached
    through) in a phase asked for, and a dressing room without its club's consent. An
    officer's grant overrides the order, the room, the deadline and the no-show bar (the
    league's own rules), never another's say."""
    unlocked = dataclasses.replace(request, locked=False)
    reasons = ineligibility(unlocked, match, venue, policy, names)
    return [r for r in reasons if r.code not in (ReasonCode.LATE, ReasonCode.NO_SHOWS)]


def _when(moment: datetime) -> str:
    return moment.isoformat(sep=" ", timespec="minutes")


def _duration(policy: Policy) -> str:
    minutes = int(policy.deadline.total_seconds() // 60)
    if minutes % (24 * 60) == 0:
        return f"{minutes // (24 * 60)}d"
    if minutes % 60 == 0:
        return f"{minutes // 60}h"
    return f"{minutes}m"


def club_names(scenario: Scenario, match: Match) -> dict[str, str]:
    """The names of the match's two clubs, for the sentences of its reasons."""
    return {club: scenario.organisation(club).name for club in (match.home, match.away)}


def needs_consent(
    scenario: Scenario, match_id: str, zone: str, by: str, consent: Iterable[str] = ()
) -> tuple[str, str] | None:
    """Whether a request of `by` in `zone` of the match, with the `consent` given, would
    be refused for want of a club's consent (a club's own room: `ineligibility`'s
    NO_CONSENT): that club's id and the reason's sentence; None if no consent is needed
    there, or it is given. The one home of "a dressing room needs its club's consent"
    for those who ask before a request exists (the form's hint, the notice to the club)."""
    match = scenario.match(match_id)
    venue = scenario.venue(match.venue)
    if zone not in {z.id for z in venue.zones}:
        return None
    asked = Request("(new)", match_id, by, zone, (), 1, match.kickoff, consent=frozenset(consent))
    for reason in ineligibility(asked, match, venue, scenario.policy, club_names(scenario, match)):
        if reason.code is ReasonCode.NO_CONSENT:
            club = occupant_club(venue.zone(zone).occupant, match.home, match.away)
            return str(club), reason.text
    return None
