"""Locked (published) grants must fit by themselves: otherwise the scenario cannot be decided."""

from __future__ import annotations

from collections.abc import Sequence

from pitchpass.core.deciding.places import Cell, capacities, footprint
from pitchpass.core.model import Scenario
from pitchpass.core.reading.problems import Problem


def check_locked_fit(scenario: Scenario, positions: Sequence[int] | None = None) -> list[Problem]:
    """One problem for each zone and phase where the locked requests alone exceed capacity.

    `positions` gives each request's index in the document when `scenario` holds only the
    requests that could be read (the file has other problems too); a request whose zones
    are not all known is left out here, its own problem being reported already.
    """
    where = list(range(len(scenario.requests))) if positions is None else list(positions)
    problems = []
    locked: dict[str, list[int]] = {}
    for index, request in enumerate(scenario.requests):
        if request.locked:
            locked.setdefault(request.match, []).append(index)
    venues = {v.id for v in scenario.venues}
    for match in scenario.matches:
        if match.venue not in venues:
            continue  # a venue with problems of its own
        venue = scenario.venue(match.venue)
        room = capacities(venue, scenario.phases)
        zones = {z.id for z in venue.zones}
        holders: dict[Cell, list[int]] = {}
        for index in locked.get(match.id, ()):
            request = scenario.requests[index]
            if request.zone not in zones or not zones.issuperset(venue.zone(request.zone).via):
                continue
            for cell in footprint(request, venue):
                holders.setdefault(cell, []).append(index)
        for (zone, phase), indexes in holders.items():
            needed = sum(scenario.requests[i].crew for i in indexes)
            if (zone, phase) in room and needed > room[zone, phase]:
                ids = ", ".join(dict.fromkeys(scenario.requests[i].id for i in indexes))
                problems.append(
                    Problem(
                        f"requests[{where[indexes[-1]]}].locked",
                        f"locked requests alone need {needed} places in {zone}, {phase} of match "
                        f"{match.id}, which has {room[zone, phase]} ({ids})",
                    )
                )
    return problems
