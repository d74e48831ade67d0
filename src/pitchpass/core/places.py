"""Places: which (zone, phase) cells a request occupies, and how many each cell holds."""

from __future__ import annotations

from collections.abc import Iterable

from pitchpass.core.model import Phase, Request, Venue

Cell = tuple[str, str]  # (zone id, phase id)


def footprint(request: Request, venue: Venue) -> tuple[Cell, ...]:
    """Every cell the request takes `crew` places in: its zone and each zone of that zone's
    `via` (taken as listed, not followed further), in each of its phases."""
    zones = (request.zone, *venue.zone(request.zone).via)
    return tuple((zone, phase) for phase in request.phases for zone in zones)


def capacities(venue: Venue, plan: Iterable[Phase]) -> dict[Cell, int]:
    """Places of every zone and phase, zones in document order, phases in plan order."""
    phase_ids = [p.id for p in plan]
    return {(z.id, p): z.capacity[p] for z in venue.zones for p in phase_ids}
