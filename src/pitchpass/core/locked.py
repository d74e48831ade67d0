"""Locked (published) grants must fit by themselves: otherwise the scenario cannot be decided."""

from __future__ import annotations

from pitchpass.core.model import Scenario
from pitchpass.core.places import capacities, footprint
from pitchpass.core.problems import Problem


def check_locked_fit(scenario: Scenario) -> list[Problem]:
    """One problem for each zone and phase where the locked requests alone exceed capacity."""
    problems = []
    locked: dict[str, list[int]] = {}
    for index, request in enumerate(scenario.requests):
        if request.locked:
            locked.setdefault(request.match, []).append(index)
    for match in scenario.matches:
        venue = scenario.venue(match.venue)
        room = capacities(venue, scenario.phases)
        holders: dict[tuple[str, str], list[int]] = {}
        for index in locked.get(match.id, ()):
            for cell in footprint(scenario.requests[index], venue):
                holders.setdefault(cell, []).append(index)
        for (zone, phase), indexes in holders.items():
            needed = sum(scenario.requests[i].crew for i in indexes)
            if needed > room[zone, phase]:
                ids = ", ".join(scenario.requests[i].id for i in indexes)
                problems.append(
                    Problem(
                        f"requests[{indexes[-1]}].locked",
                        f"locked requests alone need {needed} places in {zone}, {phase} of match "
                        f"{match.id}, which has {room[zone, phase]} ({ids})",
                    )
                )
    return problems
