"""Which cameras were where when an incident happened."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pitchpass.core.model import Incident, Phase, Request, Venue


@dataclass(frozen=True)
class Source:
    """A camera that caught an incident: a granted crew's, or a fixed one of the venue."""

    source: str  # "request" | "camera"
    id: str
    org: str | None

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source, "id": self.id, "org": self.org}


@dataclass(frozen=True)
class Coverage:
    incident: Incident
    phase: str | None
    covered_by: tuple[Source, ...]


def phase_at(minute: float, plan: Iterable[Phase]) -> str | None:
    return next((p.id for p in plan if p.holds(minute)), None)


def films(request: Request, zone: str, phase: str | None) -> bool:
    """Whether this crew, if granted, has a camera in `zone` during `phase`."""
    return request.cameras >= 1 and request.zone == zone and phase in request.phases


def cover(
    incident: Incident, venue: Venue, plan: Sequence[Phase], granted: Iterable[Request]
) -> Coverage:
    """Granted crews with cameras in the incident's own zone and phase, then fixed cameras
    there (a camera with no phases listed is always there, even outside every phase)."""
    phase = phase_at(incident.minute, plan)
    crews = [Source("request", r.id, r.by) for r in granted if films(r, incident.zone, phase)]
    fixed = [
        Source("camera", c.id, c.operator)
        for c in venue.cameras
        if c.zone == incident.zone and (c.phases is None or phase in c.phases)
    ]
    return Coverage(incident, phase, tuple(crews + fixed))


def would_have_caught(coverage: Coverage, refused: Iterable[Request]) -> list[Request]:
    """The refused requests that, granted, would have filmed the incident: a camera in its
    zone during its phase (in the order given)."""
    incident = coverage.incident
    return [r for r in refused if films(r, incident.zone, coverage.phase)]
