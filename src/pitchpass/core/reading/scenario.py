"""A plain scenario document to a trusted `Scenario`, or every problem it has.

The rules are docs/contract.md's "Validation" section; `check_document` is the one place
they are checked (the edge), so the rest of the core can trust what it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from pitchpass.core.deciding.locked import check_locked_fit
from pitchpass.core.model import Scenario
from pitchpass.core.reading.fields import Reader
from pitchpass.core.reading.problems import Problem, ScenarioInvalid
from pitchpass.core.reading.read_matches import incidents, matches, requests, venues
from pitchpass.core.reading.read_season import season_rules
from pitchpass.core.reading.read_setup import (
    KINDS,
    check_version,
    competition,
    organisations,
    phases,
    policy,
)

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
    document: dict[str, Any], consume: bool = False
) -> tuple[Scenario | None, list[Problem], list[Problem]]:
    """(scenario or None, problems, warnings): the scenario only when there are no problems.
    `consume`: the document's requests are dropped from it as they are read (a caller that
    needs the document no more, and has a federation's worth of them)."""
    reader, read = _read(document, consume)
    if read is None:
        return None, reader.problems, reader.warnings
    # Checked on what could be read even when other parts have problems: every problem
    # is reported at once, this one included.
    problems = [*reader.problems, *check_locked_fit(read.scenario, read.positions)]
    return (None if problems else read.scenario), problems, reader.warnings


@dataclass(frozen=True)
class Frame:
    """A document as read, kept to check one more request against (check_request)
    without reading the document again: what a request's fields are checked against."""

    scenario: Scenario | None  # what could be read; None: not even a mapping
    zones: dict[str, list[str]]  # match id -> the zone ids of its venue
    phase_ids: list[str]
    org_ids: list[str]
    problems: list[Problem]  # the document's own, as check_document reports them
    positions: list[int]  # the index in the document of each request read
    place: int  # the index a request added last would have
    request_ids: dict[str, str | int]  # each request id used, and where first (path or index)
    declared: dict[str, dict[str, None]]  # the ids the reader met, by kind (fields.Reader)


def read_frame(document: dict[str, Any]) -> Frame:
    """The document read once, with its problems (check_document's)."""
    reader, read = _read(document)
    if read is None:
        return Frame(None, {}, [], [], reader.problems, [], 0, {}, reader.declared)
    problems = [*reader.problems, *check_locked_fit(read.scenario, read.positions)]
    listed = document.get("requests")
    place = len(listed) if isinstance(listed, list) else 0
    return Frame(
        read.scenario, read.zones, read.phase_ids, read.org_ids, problems, read.positions,
        place, read.request_ids, reader.declared,
    )  # fmt: skip


def check_request(frame: Frame, entry: Any, more_orgs: Iterable[str] = ()) -> list[Problem]:
    """The problems of one request added to the frame's document (last, after its own
    requests), as check_document reports them of it there: paths `requests[N]...` with N
    its place. `more_orgs`: organisations the document would list besides its own (the
    requester, those consenting), known to be valid."""
    scenario, place = frame.scenario, frame.place
    reader = Reader()
    reader.declared = {kind: dict(ids) for kind, ids in frame.declared.items()}
    org_ids = [*frame.org_ids, *(o for o in more_orgs if o not in frame.org_ids)]
    matches = list(scenario.matches) if scenario else []
    made, _ = requests(
        reader, {"requests": [entry]}, matches, frame.zones, frame.phase_ids, org_ids, place,
        dict(frame.request_ids),
    )  # fmt: skip
    problems = list(reader.problems)
    if scenario is not None and made and made[0].locked:
        # Locked, it must fit with the frame's locked requests (check_locked_fit).
        added = replace(scenario, requests=(*scenario.requests, made[0]))
        own = f"requests[{place}]"
        fit = check_locked_fit(added, [*frame.positions, place])
        problems += [p for p in fit if _within(p.path, own)]
    return problems


def _within(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


@dataclass(frozen=True)
class _Read:
    scenario: Scenario
    positions: list[int]
    zones: dict[str, list[str]]
    phase_ids: list[str]
    org_ids: list[str]
    request_ids: dict[str, str | int]


def _read(document: dict[str, Any], consume: bool = False) -> tuple[Reader, _Read | None]:
    reader = Reader()
    top = reader.mapping(document, "", TOP_FIELDS)
    if top is None:
        return reader, None
    check_version(reader, top)
    orgs = organisations(reader, top)
    org_ids = reader.known("organisation")
    the_competition = competition(reader, top, org_ids)
    the_policy = policy(reader, top, org_ids)
    plan = phases(reader, top)
    phase_ids = reader.known("phase") or [p.id for p in plan]
    the_venues, zones_of = venues(reader, top, phase_ids, org_ids)
    the_matches, venue_of = matches(
        reader, top, reader.known("venue"), org_ids, the_policy.deadline,
        {o.id: o.kind for o in orgs},
    )  # fmt: skip
    zones = {match_id: zones_of.get(venue, []) for match_id, venue in venue_of.items()}
    season = season_rules(
        reader, top, org_ids, [z for ids in zones_of.values() for z in ids], phase_ids,
        [tier.name for tier in the_policy.tiers], KINDS,
    )  # fmt: skip
    if season is not None:
        the_policy = replace(the_policy, season=season)
    request_ids: dict[str, str | int] = {}
    the_requests, positions = requests(
        reader, top, the_matches, zones, phase_ids, org_ids, 0, request_ids, consume
    )
    the_incidents = incidents(reader, top, the_matches, zones)
    scenario = Scenario(
        the_competition, the_policy, tuple(plan), tuple(the_venues), tuple(orgs),
        tuple(the_matches), tuple(the_requests), tuple(the_incidents),
    )  # fmt: skip
    return reader, _Read(scenario, positions, zones, phase_ids, org_ids, request_ids)
