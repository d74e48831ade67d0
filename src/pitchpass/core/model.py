"""The domain: frozen, typed objects built once from a validated scenario.

Inside the core these are trusted: `scenario.load_document` has checked every
reference and bound, so the deciding code never re-validates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pitchpass.core.codes import Mode

UNRANKED = "unranked"


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
        for zone in self.zones:
            if zone.id == zone_id:
                return zone
        raise KeyError(zone_id)


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


@dataclass(frozen=True)
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
class Policy:
    deadline: timedelta = timedelta(days=5)
    within_tier: Mode = Mode.MOST_GRANTED
    tiers: tuple[Tier, ...] = DEFAULT_TIERS


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

    def venue(self, venue_id: str) -> Venue:
        return next(v for v in self.venues if v.id == venue_id)

    def organisation(self, org_id: str) -> Organisation:
        return next(o for o in self.organisations if o.id == org_id)

    def match(self, match_id: str) -> Match:
        return next(m for m in self.matches if m.id == match_id)

    def requests_of(self, match_id: str) -> tuple[Request, ...]:
        return tuple(r for r in self.requests if r.match == match_id)

    def incidents_of(self, match_id: str) -> tuple[Incident, ...]:
        return tuple(i for i in self.incidents if i.match == match_id)
