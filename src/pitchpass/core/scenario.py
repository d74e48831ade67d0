"""A plain scenario document to a trusted `Scenario`, or every problem it has.

The rules are SCENARIO.md's "Validation" section; `check_document` is the one place
they are checked (the edge), so the rest of the core can trust what it is given.
"""

from __future__ import annotations

from typing import Any

from pitchpass.core.fields import Reader
from pitchpass.core.locked import check_locked_fit
from pitchpass.core.model import Scenario
from pitchpass.core.problems import Problem, ScenarioInvalid
from pitchpass.core.read_fixtures import incidents, matches, requests, venues
from pitchpass.core.read_setup import check_version, competition, organisations, phases, policy

TOP_FIELDS = (
    "pitchpass", "competition", "policy", "phases", "venues",
    "organisations", "matches", "requests", "incidents",
)  # fmt: skip


def load_document(document: dict[str, Any]) -> Scenario:
    """Validate and build; raise ScenarioInvalid with every problem found."""
    scenario, problems, _ = check_document(document)
    if scenario is None:
        raise ScenarioInvalid(problems)
    return scenario


def check_document(
    document: dict[str, Any],
) -> tuple[Scenario | None, list[Problem], list[Problem]]:
    """(scenario or None, problems, warnings): the scenario only when there are no problems."""
    reader = Reader()
    top = reader.mapping(document, "", TOP_FIELDS)
    if top is None:
        return None, reader.problems, reader.warnings
    check_version(reader, top)
    orgs = organisations(reader, top)
    org_ids = reader.known("organisation")
    the_competition = competition(reader, top, org_ids)
    the_policy = policy(reader, top, org_ids)
    plan = phases(reader, top)
    phase_ids = reader.known("phase") or [p.id for p in plan]
    the_venues, zones_of = venues(reader, top, phase_ids, org_ids)
    the_matches, venue_of = matches(
        reader, top, reader.known("venue"), org_ids, the_policy.deadline
    )
    zones = {match_id: zones_of.get(venue, []) for match_id, venue in venue_of.items()}
    the_requests, positions = requests(reader, top, the_matches, zones, phase_ids, org_ids)
    the_incidents = incidents(reader, top, the_matches, zones)
    scenario = Scenario(
        the_competition, the_policy, tuple(plan), tuple(the_venues), tuple(orgs),
        tuple(the_matches), tuple(the_requests), tuple(the_incidents),
    )  # fmt: skip
    # Checked on what could be read even when other parts have problems: every problem
    # is reported at once, this one included.
    problems = [*reader.problems, *check_locked_fit(scenario, positions)]
    return (None if problems else scenario), problems, reader.warnings
