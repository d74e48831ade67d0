"""Places: which (zone, phase) cells a request occupies, and how many each cell holds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pitchpass.core.model import Phase, Request, Venue

Cell = tuple[str, str]  # (zone id, phase id)


def footprint(request: Request, venue: Venue) -> tuple[Cell, ...]:
    """Every cell the request takes `crew` places in: its zone and each zone of that zone's
    `via` (taken as listed, not followed further), in each of its phases."""
    return cells_of(request.zone, request.phases, venue)


def cells_of(zone_id: str, phases: Iterable[str], venue: Venue) -> tuple[Cell, ...]:
    """The footprint of a request for `zone_id` in `phases` (phase by phase, its zone
    first, then its `via`)."""
    zones = (zone_id, *venue.zone(zone_id).via)
    return tuple((zone, phase) for phase in phases for zone in zones)


def places_in(capacity: int | Mapping[str, int], phase: str) -> int:
    """A zone's places in a phase, as the contract reads a zone's capacity: one number
    for every phase, or a map by phase whose "default" counts for the phases it does not
    name (none: 0). The one home of this rule: the reader expands a document's zones by
    it, and the door counts a stored zone's places by it."""
    if isinstance(capacity, Mapping):
        return int(capacity.get(phase, capacity.get("default", 0)))
    return int(capacity)


def capacities(venue: Venue, plan: Iterable[Phase]) -> dict[Cell, int]:
    """Places of every zone and phase, zones in document order, phases in plan order."""
    phase_ids = [p.id for p in plan]
    return {(z.id, p): z.capacity[p] for z in venue.zones for p in phase_ids}
