"""A fixture list into a scenario (docs/fixtures.md): clubs, venues and hosts matched by id
or by name, each match added or moved, and what a move changes said, never silently.

Pure: rows come from core/reading/fixture_files.py, the scenario as a document; the answer is the
new document and a report. Nothing is written by the core.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pitchpass.core.deciding.policy import closes_at
from pitchpass.core.reading.fixture_files import Fixture
from pitchpass.core.reading.problems import Problem, ScenarioInvalid, did_you_mean
from pitchpass.core.reading.scenario import check_document, load_document

PLAIN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class Moved:
    """A match the file moves: its kick-off or venue changed. Its requests' deadline moves
    with the kick-off; `now_late` were in time and are now late, `now_in_time` the other
    way round (decisions made before are stale for them)."""

    match: str
    kickoff_before: str
    kickoff_after: str
    venue_before: str
    venue_after: str
    now_late: tuple[str, ...]
    now_in_time: tuple[str, ...]
    requests: int  # the match's requests, whose deadline moved with it


@dataclass(frozen=True)
class Retold:
    """A match the file does not move but whose host or televising broadcasters it
    changes (None: not given; `televised_by` None: its host televises it)."""

    match: str
    host_before: str | None
    host_after: str | None
    televised_by_before: tuple[str, ...] | None
    televised_by_after: tuple[str, ...] | None


@dataclass(frozen=True)
class Imported:
    document: dict[str, Any]  # the scenario with the fixture list's matches
    added: tuple[str, ...]
    moved: tuple[Moved, ...]
    unchanged: tuple[str, ...]
    skipped: tuple[Problem, ...]  # the rows left out (only when asked to skip them)
    # Matches not moved whose host or televising broadcasters the file changes.
    retold: tuple[Retold, ...] = ()


def import_fixtures(
    document: dict[str, Any], fixtures: list[Fixture], skip: bool = False
) -> Imported:
    """The document with each fixture added, or moved where the scenario has its match
    already (the same id; else the same home and away clubs, if only one such match).
    A row that names an unknown club, venue or host is a problem, with the nearest name;
    any problem refuses the whole import (ScenarioInvalid) unless `skip`, which leaves such
    rows out and lists them."""
    scenario = load_document(document)  # raises on a broken scenario: nothing to add to
    names = _Names(document.get("organisations") or [])
    venues = _Names(v for v in document.get("venues") or [])
    out = copy.deepcopy(document)
    matches: list[dict[str, Any]] = out.setdefault("matches", [])
    problems: list[Problem] = []
    added: list[str] = []
    moved: list[Moved] = []
    unchanged: list[str] = []
    retold: list[Retold] = []
    seen: dict[str, str] = {}
    resolved = [(f, _resolve(f, names, venues, matches)) for f in fixtures]
    pairs = Counter((r["home"], r["away"]) for _, r in resolved if isinstance(r, dict))
    before = list(matches)  # a fixture moves a match the scenario had, never one it adds
    for fixture, row in resolved:
        if isinstance(row, list):
            problems += row
            continue
        by_pair = pairs[row["home"], row["away"]] == 1 and not fixture.id
        key = _existing(row, before, by_pair)
        if row["id"] in seen:
            problems.append(
                Problem(f"{fixture.where}.id", f'"{row["id"]}" again (first at {seen[row["id"]]})')
            )
            continue
        seen[row["id"]] = fixture.where
        if key is None:
            matches.append(row)
            added.append(row["id"])
            continue
        was = matches[key]
        now = {**was, "venue": row["venue"], "kickoff": row["kickoff"]}
        for told in ("host", "televised_by"):  # given by the file: set; else kept
            if row.get(told):
                now[told] = row[told]
        if _same_moment(was["kickoff"], now["kickoff"]) and was["venue"] == now["venue"]:
            if _broadcast(was) == _broadcast(now):
                unchanged.append(was["id"])
            else:
                matches[key] = now
                (host_was, televised_was), (host, televised) = _broadcast(was), _broadcast(now)
                retold.append(Retold(str(was["id"]), host_was, host, televised_was, televised))
            continue
        matches[key] = now
        moved.append(_moved(scenario, was, now))
    if problems and not skip:
        raise ScenarioInvalid(problems)
    checked, found, _ = check_document(out)
    if checked is None:
        raise ScenarioInvalid(found)
    return Imported(
        out, tuple(added), tuple(moved), tuple(unchanged), tuple(problems), tuple(retold)
    )


class _Names:
    """Entries (organisations, venues) found by id, else by name (case and spaces aside)."""

    def __init__(self, entries: Any):
        self.ids: set[str] = set()
        self.by_name: dict[str, list[str]] = {}
        self.known: list[str] = []  # ids and names as written, for "did you mean"
        self.kinds: dict[str, str] = {}  # id -> its kind, where it has one
        for entry in entries:
            key = str(entry.get("id", ""))
            if entry.get("kind"):
                self.kinds[key] = str(entry["kind"])
            self.ids.add(key)
            self.known.append(key)
            if entry.get("name"):
                self.known.append(str(entry["name"]))
                self.by_name.setdefault(_plain(str(entry["name"])), []).append(key)

    def find(self, word: str, where: str, what: str) -> str | Problem:
        if word in self.ids:
            return word
        found = self.by_name.get(_plain(word), [])
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            return Problem(where, f'"{word}" names {len(found)} {what}s: {", ".join(found)}')
        return Problem(where, f'unknown {what} "{word}"' + did_you_mean(word, self.known))


def _plain(text: str) -> str:
    return " ".join(text.casefold().split())


def _resolve(
    fixture: Fixture, names: _Names, venues: _Names, matches: list[dict[str, Any]]
) -> dict[str, Any] | list[Problem]:
    """The fixture as a scenario match, or what is wrong with it."""
    problems: list[Problem] = []
    sides = {}
    for side in ("home", "away"):
        found = _take(
            names.find(getattr(fixture, side), f"{fixture.where}.{side}", "club"), problems
        )
        if found:
            sides[side] = found
    if len(sides) == 2 and sides["home"] == sides["away"]:
        problems.append(Problem(f"{fixture.where}.away", "the same club as home"))
    host = ""
    if fixture.host:
        host = _take(names.find(fixture.host, f"{fixture.where}.host", "organisation"), problems)
    televised_by: list[str] = []
    for n, name in enumerate(fixture.televised_by):
        where = f"{fixture.where}.televised_by[{n}]"
        found = _take(names.find(name, where, "organisation"), problems)
        if not found:
            continue
        if found in televised_by:
            problems.append(Problem(where, f'"{name}" is listed twice'))
        elif names.kinds.get(found, "broadcaster") != "broadcaster":
            kind = names.kinds[found]
            problems.append(Problem(where, f'"{name}" is a {kind}, not a broadcaster'))
        televised_by.append(found)
    venue = ""
    if fixture.venue:
        venue = _take(venues.find(fixture.venue, f"{fixture.where}.venue", "venue"), problems)
    elif "home" in sides:
        venue = _ground(sides["home"], matches)
        if not venue:
            problems.append(
                Problem(
                    f"{fixture.where}.venue",
                    f"none given, and {sides['home']} has no home match to take its ground from",
                )
            )
    if fixture.id and not PLAIN_ID.match(fixture.id):
        problems.append(
            Problem(f"{fixture.where}.id", "letters, digits, '.', '_' and '-', at most 100")
        )
    if problems:
        return problems
    match_id = fixture.id or f"{sides['home']}-{sides['away']}-{fixture.kickoff.date()}"
    row: dict[str, Any] = {
        "id": match_id,
        "venue": venue,
        "home": sides["home"],
        "away": sides["away"],
        "kickoff": fixture.kickoff.isoformat(),
    }
    if host:
        row["host"] = host
    if televised_by:
        row["televised_by"] = televised_by
    return row


def _broadcast(match: dict[str, Any]) -> tuple[str | None, tuple[str, ...] | None]:
    """Who a match's row says broadcasts it: its host and its televising broadcasters."""
    televised = match.get("televised_by")
    return match.get("host"), None if televised is None else tuple(televised)


def _take(found: str | Problem, problems: list[Problem]) -> str:
    """The id found, or "" with the problem noted."""
    if isinstance(found, Problem):
        problems.append(found)
        return ""
    return found


def _ground(club: str, matches: list[dict[str, Any]]) -> str:
    """The venue of most of the club's home matches in the scenario ("" if none)."""
    grounds = Counter(str(m["venue"]) for m in matches if m.get("home") == club)
    return grounds.most_common(1)[0][0] if grounds else ""


def _existing(row: dict[str, Any], before: list[dict[str, Any]], by_pair: bool) -> int | None:
    """The index of the scenario's match this fixture is: the same id; or else, `by_pair`
    (the file gives no id and has one fixture of these clubs), the only match the
    scenario had between the same home and away clubs."""
    for n, match in enumerate(before):
        if str(match.get("id")) == row["id"]:
            return n
    if not by_pair:
        return None
    pair = [
        n
        for n, m in enumerate(before)
        if m.get("home") == row["home"] and m.get("away") == row["away"]
    ]
    return pair[0] if len(pair) == 1 else None


def _same_moment(before: Any, after: str) -> bool:
    return _moment(before) == _moment(after)


def _moment(value: Any) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value).strip())


def _moved(scenario: Any, before: dict[str, Any], after: dict[str, Any]) -> Moved:
    deadline = scenario.policy.deadline
    cutoff_before = closes_at(_moment(before["kickoff"]), deadline)
    cutoff_after = closes_at(_moment(after["kickoff"]), deadline)
    requests = scenario.requests_of(str(before["id"]))
    return Moved(
        str(before["id"]),
        _moment(before["kickoff"]).isoformat(),
        str(after["kickoff"]),
        str(before["venue"]),
        str(after["venue"]),
        tuple(r.id for r in requests if cutoff_after < r.submitted <= cutoff_before),
        tuple(r.id for r in requests if cutoff_before < r.submitted <= cutoff_after),
        len(requests),
    )
