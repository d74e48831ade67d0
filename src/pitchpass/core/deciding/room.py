"""The room a request would find, cell by cell, before it is sent: the hint of the request
form. The same footprint (places.py) and the same closed zones (policy.py) as deciding."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pitchpass.core.deciding.places import Cell, cells_of
from pitchpass.core.deciding.policy import closed_on_the_way
from pitchpass.core.model import Venue


@dataclass(frozen=True)
class Room:
    zone: str
    phase: str
    closed: bool  # the zone is closed then: a request there is refused, whatever the room
    left: int  # places left beside those `used` (0 when over-full)
    capacity: int
    fits: bool  # a crew of the size asked for fits in what is left (and it is open)


def room_for(
    venue: Venue,
    zone_id: str,
    phases: Iterable[str],
    crew: int,
    used: Mapping[Cell, int],
    capacity: Mapping[Cell, int],
) -> list[Room]:
    """For each phase asked for (those of the plan), in its order: the cells closed then,
    if any (the request would be refused `closed`); else every cell of its footprint with
    the places left."""
    out = []
    for phase in [p for p in phases if (zone_id, p) in capacity]:
        shut = set(closed_on_the_way(zone_id, [phase], venue))
        for cell in cells_of(zone_id, [phase], venue):
            if shut and cell not in shut:
                continue  # the phase is refused anyway: only what closes it is shown
            left = max(capacity[cell] - used.get(cell, 0), 0)
            open_ = cell not in shut
            out.append(Room(*cell, not open_, left, capacity[cell], open_ and crew <= left))
    return out
