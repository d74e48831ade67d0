"""The domain: frozen, typed objects built once from a validated scenario.

Inside the core these are trusted: `scenario.load_document` has checked every
reference and bound, so the deciding code never re-validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property
from typing import TypeVar

from pitchpass.core.codes import Mode

UNRANKED = "unranked"
_T = TypeVar("_T", "Request", "Incident")


@dataclass(frozen=True)
class Phase:
    id: str
    start: float  # minutes relative to kick-off, inclusive
    end: float  # exclusive

    def holds(self, minute: float) -> bool:
        return self.start <= minute < self.end


@dataclass(frozen=True)
class Zone:
    id: str
    name: str
    capacity: Mapping[str, int] = field(hash=False)  # every phase id of the plan -> places
    via: tuple[str, ...] = ()
    occupant: str | None = None  # "home" | "away"
    closed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Camera:
    id: str
    zone: str
    operator: str | None
    phases: frozenset[str] | None  # None: present in every phase, and outside them


@dataclass(frozen=True)
class Venue:
    id: str
    name: str
    zones: tuple[Zone, ...]
    cameras: tuple[Camera, ...] = ()

    def zone(self, zone_id: str) -> Zone:
        return self._zones[zone_id]

    @cached_property
    def _zones(self) -> dict[str, Zone]:
        return {zone.id: zone for zone in self.zones}


@dataclass(frozen=True)
class Organisation:
    id: str
    name: str
    kind: str


@dataclass(frozen=True)
class Match:
    id: str
    venue: str
    home: str
    away: str
    kickoff: datetime
    host: str | None = None
    # The broadcasters televising the match (docs/section-k.md); None: its host, if any.
    televised_by: tuple[str, ...] | None = None

    @property
    def televising(self) -> tuple[str, ...]:
        """The broadcasters televising the match: `televised_by`, else its host."""
        if self.televised_by is not None:
            return self.televised_by
        return (self.host,) if self.host else ()


@dataclass(frozen=True, slots=True)  # no __dict__: a federation holds a million of them
class Request:
    id: str
    match: str
    by: str
    zone: str
    phases: tuple[str, ...]
    crew: int
    submitted: datetime
    cameras: int = 1
    consent: frozenset[str] = frozenset()
    locked: bool = False
    # >0: the no-shows of its organisation that bar it (docs/scenario-extensions.md, "The
    # no-show bar"; the desk works it out with core.waitlist.barred): refused `no-shows`
    no_shows: int = 0


@dataclass(frozen=True)
class Incident:
    id: str
    match: str
    zone: str
    minute: float
    what: str = ""


@dataclass(frozen=True)
class Tier:
    name: str
    rule: str  # host | partner | club | any | org:<id> | kind:<kind>


DEFAULT_TIERS = (
    Tier("host", "host"),
    Tier("partner", "partner"),
    Tier("club", "club"),
    Tier("other", "any"),
)

DEFAULT_PHASES = (
    Phase("arrival", -120, -60),
    Phase("pre-match", -60, 0),
    Phase("first-half", 0, 47),
    Phase("half-time", 47, 62),
    Phase("second-half", 62, 112),
    Phase("post-match", 112, 180),
)


@dataclass(frozen=True)
class MatchDay:
    """The desk's match-day rules (docs/scenario-extensions.md, "Match day" and
    "Releases"): a crew not checked in `release_before` minutes before a phase loses its
    place in that phase, never sooner than `release_grace` minutes after its grant was
    published, warned `release_warning` minutes before; the tiers `release_exempt` (None:
    those of the host rule) are never released; a crew promoted from the waitlist has
    `accept_within` minutes to accept; `no_show_limit` no-shows in a competition refuse
    the organisation's next request (0: never)."""

    release_before: int = 5
    accept_within: int = 30
    no_show_limit: int = 2
    release_grace: int = 60
    release_warning: int = 30
    release_exempt: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Quota:
    """At most `at_most` granted to `who` in each period (docs/scenario-extensions.md,
    "Season rules"): `who` is an organisation id, `each`, `kind:<kind>`, `partners` or
    `partners together`; `per` is match | day | season; `counts` is requests | places."""

    who: str
    per: str
    counts: str
    at_most: int
    zones: frozenset[str] | None = None  # None: every zone counts


@dataclass(frozen=True)
class Minimum:
    """Each club grants each organisation of `to` at least `at_least` requests in `cells`
    (zone, its phases) a season, at its home matches; or, with the fields of Section K
    (docs/section-k.md), owed by the club whose room it is (`by`), to the broadcasters
    televising the match (`to: televising`), counted once per match (`counts:
    occasions`), owing a make-up only for the club's own refusal (`debts: club-refusal`);
    ranked after the host's and the televising broadcasters' own grants unless `rank:
    first`."""

    name: str
    to: str  # an organisation id, kind:<kind>, partners, partners together or televising
    at_least: int
    cells: tuple[tuple[str, frozenset[str]], ...]
    by: str = "home"  # home | occupant | away: the club that owes it
    counts: str = "requests"  # requests | occasions (at most one per match)
    debts: str = "any-refusal"  # any-refusal | club-refusal
    # after-televising | first: the minimums after, or before, the grants of each match's
    # host and televising broadcasters (the default never refuses them to meet a minimum)
    rank: str = "after-televising"


@dataclass(frozen=True)
class Rotation:
    """The places of one zone and phase shared in turn among the organisations of a tier."""

    zone: str
    phase: str
    tier: str


@dataclass(frozen=True)
class SeasonRules:
    quotas: tuple[Quota, ...] = ()
    minimums: tuple[Minimum, ...] = ()
    rotations: tuple[Rotation, ...] = ()


@dataclass(frozen=True)
class Policy:
    deadline: timedelta = timedelta(days=5)
    within_tier: Mode = Mode.MOST_GRANTED
    tiers: tuple[Tier, ...] = DEFAULT_TIERS
    match_day: MatchDay = MatchDay()
    season: SeasonRules | None = None  # None: each match is decided on its own


@dataclass(frozen=True)
class Competition:
    id: str
    name: str
    partners: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Scenario:
    competition: Competition
    policy: Policy
    phases: tuple[Phase, ...]
    venues: tuple[Venue, ...]
    organisations: tuple[Organisation, ...]
    matches: tuple[Match, ...]
    requests: tuple[Request, ...] = ()
    incidents: tuple[Incident, ...] = ()

    # Lookups by id, built once per scenario: a season has ~400 matches and ~20k requests,
    # and scanning them for every match costs more than deciding it.

    def venue(self, venue_id: str) -> Venue:
        return self._venues[venue_id]

    def organisation(self, org_id: str) -> Organisation:
        return self._organisations[org_id]

    def match(self, match_id: str) -> Match:
        return self._matches[match_id]

    def requests_of(self, match_id: str) -> tuple[Request, ...]:
        return self._requests_by_match.get(match_id, ())

    def incidents_of(self, match_id: str) -> tuple[Incident, ...]:
        return self._incidents_by_match.get(match_id, ())

    @cached_property
    def _venues(self) -> dict[str, Venue]:
        return {v.id: v for v in self.venues}

    @cached_property
    def _organisations(self) -> dict[str, Organisation]:
        return {o.id: o for o in self.organisations}

    @cached_property
    def _matches(self) -> dict[str, Match]:
        return {m.id: m for m in self.matches}

    @cached_property
    def _requests_by_match(self) -> dict[str, tuple[Request, ...]]:
        return _group(self.requests)

    @cached_property
    def _incidents_by_match(self) -> dict[str, tuple[Incident, ...]]:
        return _group(self.incidents)


def _group(items: tuple[_T, ...]) -> dict[str, tuple[_T, ...]]:
    """Items by their `match`, each group in document order."""
    groups: dict[str, list[_T]] = {}
    for item in items:
        groups.setdefault(item.match, []).append(item)
    return {match: tuple(group) for match, group in groups.items()}
