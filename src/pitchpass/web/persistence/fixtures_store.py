"""A fixture list into the database (docs/fixtures.md, "Into the database"): the
competition as one scenario document for core/reading/fixtures.py, then each match it adds
created and each it moves changed under its lock, versioned and audited."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Sum

from pitchpass.core.reading.fixture_files import Fixture
from pitchpass.core.reading.fixtures import Imported, import_fixtures
from pitchpass.core.reading.problems import Problem, ScenarioInvalid, did_you_mean
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import COMMAND_LINE, audit
from pitchpass.web.persistence.changes import changed, lock_match


def competition_document(competition: m.Competition) -> dict[str, Any]:
    """The competition as a scenario: its policy and phases, every venue and organisation
    stored (a fixture may be at any ground), its matches and their current requests (for
    what a move makes late); no incidents."""
    matches = list(
        competition.matches.select_related("venue", "home", "away", "host").order_by(
            "position", "pk"
        )
    )
    venues = m.Venue.objects.prefetch_related("zones", "cameras__zone", "cameras__operator")
    requests = m.Request.objects.filter(match__competition=competition, revoked="")
    return {
        "pitchpass": 1,
        "competition": store.competition_json(competition),
        "policy": store.policy_document(competition),
        "phases": store.phases_of(competition),
        "venues": [store.venue_json(v) for v in venues],
        "organisations": [
            {"id": o.key, "name": o.name, "kind": o.kind}
            for o in m.Organisation.objects.order_by("position", "key")
        ],
        "matches": [store.match_document(x) for x in matches],
        "requests": store.requests_json(requests),
        "incidents": [],
    }


def season_version(competition: m.Competition) -> str:
    """What every write to the competition moves on, read in one query: each change of a
    match (a request, a consent, a decide, a publish, a match-day event, a load or an admin
    edit of what it uses) moves its version on, so the sum of its matches' versions, with
    their count and newest row (a match added or removed), and the season rules (a load
    changing only them moves no match) say whether `season_document` could differ."""
    seen = competition.matches.aggregate(n=Count("pk"), total=Sum("version"), last=Max("pk"))
    rules = json.dumps(competition.season, sort_keys=True, default=str).encode()
    said = hashlib.sha256(rules).hexdigest()[:16]
    return f"{competition.pk}.{seen['n']}.{seen['total'] or 0}.{seen['last'] or 0}.{said}"


def season_document(competition: m.Competition) -> dict[str, Any]:
    """The competition as one scenario for its season report: `competition_document` with
    its season rules, each request barred by the no-show bar with its `no_shows` (as the
    desk decides it), and each request's id written `match:id` (an id is unique within its
    match only; a scenario's ids are unique in the document)."""
    document = competition_document(competition)
    if competition.season is not None:
        document["policy"]["season"] = competition.season
    bar = store.no_show_bar(competition)
    document["requests"] = [
        {
            **r,
            "id": f"{r['match']}:{r['id']}",
            **({"no_shows": bar[r["match"], r["id"]]} if (r["match"], r["id"]) in bar else {}),
        }
        for r in document["requests"]
    ]
    return document


def write_fixtures(competition: m.Competition, done: Imported) -> dict[str, str]:
    """The matches `done` adds, created; those it moves, moved (each locked, its version
    moved on: runs made before are stale; its frame too: requests are checked against the
    new deadline), all in one transaction. What each moved match's decisions now need."""
    by_id = {str(x["id"]): x for x in done.document["matches"]}
    stale: dict[str, str] = {}
    with transaction.atomic():
        orgs = {o.key: o for o in m.Organisation.objects.all()}
        venues = {v.key: v for v in m.Venue.objects.all()}
        last = competition.matches.order_by("-position").values_list("position", flat=True)
        position = (last.first() or 0) + 1
        for key in done.added:
            row = by_id[key]
            kickoff = datetime.fromisoformat(str(row["kickoff"]))
            created = m.Match.objects.create(
                key=key, competition=competition, venue=venues[row["venue"]],
                home=orgs[row["home"]], away=orgs[row["away"]], kickoff=kickoff,
                kickoff_offset=store.offset(kickoff), host=orgs.get(row.get("host") or ""),
                televised_by=row.get("televised_by"), position=position,
            )  # fmt: skip
            position += 1
            audit(None, "fixtures", created, key, None, row, COMMAND_LINE)
        for moved in done.moved:
            match = lock_match(m.Match.objects.get(key=moved.match))
            row = by_id[moved.match]
            kickoff = datetime.fromisoformat(str(row["kickoff"]))
            before = {"kickoff": moved.kickoff_before, "venue": moved.venue_before}
            match.kickoff, match.kickoff_offset = kickoff, store.offset(kickoff)
            match.venue = venues[row["venue"]]
            match.frame += 1
            match.save(update_fields=["kickoff", "kickoff_offset", "venue", "frame"])
            before |= _broadcast(match)
            _retell(match, row, orgs)
            changed(match)
            after = {"kickoff": moved.kickoff_after, "venue": moved.venue_after,
                     **_broadcast(match)}  # fmt: skip
            audit(None, "fixtures", match, moved.match, before, after, COMMAND_LINE)
            stale[moved.match] = _stale(match)
        for key in (told.match for told in done.retold):
            match = lock_match(m.Match.objects.get(key=key))
            before = _broadcast(match)
            _retell(match, by_id[key], orgs)
            changed(match)
            audit(None, "fixtures", match, key, before, _broadcast(match), COMMAND_LINE)
            stale[key] = _stale(match)
    return stale


def _broadcast(match: m.Match) -> dict[str, Any]:
    return {"host": match.host.key if match.host else None, "televised_by": match.televised_by}


def _retell(match: m.Match, row: dict[str, Any], orgs: dict[str, m.Organisation]) -> None:
    """The match's host and televising broadcasters as the file's row has them (those
    the file gives; the rest kept)."""
    if row.get("host"):
        match.host = orgs[row["host"]]
    if row.get("televised_by"):
        match.televised_by = list(row["televised_by"])
    match.save(update_fields=["host", "televised_by"])


def _stale(match: m.Match) -> str:
    """What the match's decisions need after a move, in words."""
    runs = match.runs.count()
    published = match.requests.filter(locked=True).count()
    if not runs:
        return "not decided yet"
    said = "its decisions are stale: decide again"
    if published:
        said += f" ({published} published grants stay published; revoke any that no longer hold)"
    return said


def import_into_database(
    competition_key: str, fixtures: list[Fixture], skip: bool, write: bool
) -> tuple[Imported, dict[str, str]]:
    """The fixture list against the stored competition (core/reading/fixtures.py decides what it
    adds and moves); with `write`, stored. ScenarioInvalid for an unknown competition, a
    row that does not match (unless `skip`) or a new match id another competition has."""
    competition = m.Competition.objects.filter(key=competition_key).first()
    if competition is None:
        known = list(m.Competition.objects.values_list("key", flat=True))
        said = f'unknown competition "{competition_key}"{did_you_mean(competition_key, known)}'
        raise ScenarioInvalid([Problem("--competition", said)])
    done = import_fixtures(competition_document(competition), fixtures, skip)
    taken = sorted(m.Match.objects.filter(key__in=done.added).values_list("key", flat=True))
    if taken:
        raise ScenarioInvalid(
            [Problem("", f'match id "{key}" is taken by another competition') for key in taken]
        )
    return done, write_fixtures(competition, done) if write else {}
