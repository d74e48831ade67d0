"""A venue's zones from a CSV file into a scenario (docs/fixtures.md, "Zones"): each row
adds a zone or replaces the zone of the same id; zones the file does not name are kept.

Pure: the caller gives the text and the document; the answer is the new document and a
report, or every problem found with its row (nothing half done).
"""

from __future__ import annotations

import copy
import csv
import io
import re
from dataclasses import dataclass
from typing import Any

from pitchpass.core.reading.fixtures import PLAIN_ID
from pitchpass.core.reading.problems import Problem, ScenarioInvalid, did_you_mean
from pitchpass.core.reading.scenario import check_document

COLUMNS = ("venue", "venue_name", "id", "name", "capacity", "via", "occupant", "closed")
MAX_ROWS = 5_000
_LIST = re.compile(r"[\s;,]+")


@dataclass(frozen=True)
class ZonesImported:
    document: dict[str, Any]
    added: tuple[str, ...]  # "venue/zone"
    replaced: tuple[str, ...]
    kept: tuple[str, ...]  # zones of the venues named that the file does not list
    new_venues: tuple[str, ...]


def import_zones(document: dict[str, Any], text: str, venue: str = "") -> ZonesImported:
    """The document with the CSV's zones. Columns: `id` and `capacity` (places in every
    phase; `capacity@PHASE` columns set a phase's own), `name`, `via` and `closed` (ids
    separated by spaces or ;), `occupant` (home, away or empty), and `venue` (an id or
    name; else `venue` given) with `venue_name` to make a venue the scenario lacks."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    problems = [
        Problem("header", f'unknown column "{h}" (columns: {", ".join(COLUMNS)}, capacity@PHASE)')
        for h in header
        if h not in COLUMNS and not h.startswith("capacity@")
    ]
    problems += [Problem("header", f"missing column {c}") for c in ("id",) if c not in header]
    if not venue and "venue" not in header:
        problems.append(Problem("header", "missing column venue (or give the venue)"))
    if problems:
        raise ScenarioInvalid(problems)
    reader.fieldnames = header
    out = copy.deepcopy(document)
    venues: list[dict[str, Any]] = out.setdefault("venues", [])
    added: list[str] = []
    replaced: list[str] = []
    new_venues: list[str] = []
    named: set[str] = set()
    where_of: dict[tuple[str, str], str] = {}
    for n, raw in enumerate(reader, 2):
        if n - 1 > MAX_ROWS:
            raise ScenarioInvalid([Problem("", f"more than {MAX_ROWS:,} rows")])
        row = {k: (v or "").strip() for k, v in raw.items() if k is not None}
        if not any(row.values()):
            continue
        where = f"row {n}"
        found = _venue(venues, row.get("venue") or venue, row.get("venue_name", ""), where)
        if isinstance(found, Problem):
            problems.append(found)
            continue
        place, made = found
        if made:
            new_venues.append(place["id"])
        zone = _zone(row, where, problems)
        if zone is None:
            continue
        key = (place["id"], zone["id"])
        if key in where_of:
            problems.append(
                Problem(f"{where}.id", f'"{zone["id"]}" again (first at {where_of[key]})')
            )
            continue
        where_of[key] = where
        named.add(place["id"])
        zones = place.setdefault("zones", [])
        at = next((i for i, z in enumerate(zones) if str(z.get("id")) == zone["id"]), None)
        if at is None:
            zones.append(zone)
            added.append("/".join(key))
        else:
            zones[at] = zone
            replaced.append("/".join(key))
    if problems:
        raise ScenarioInvalid(problems)
    scenario, found_problems, _ = check_document(out)
    if scenario is None:
        raise ScenarioInvalid([_located(p, out, where_of) for p in found_problems])
    kept = [
        f"{v['id']}/{z['id']}"
        for v in venues
        if v["id"] in named
        for z in v.get("zones") or []
        if (v["id"], str(z.get("id"))) not in where_of
    ]
    return ZonesImported(out, tuple(added), tuple(replaced), tuple(kept), tuple(new_venues))


def _venue(
    venues: list[dict[str, Any]], word: str, name: str, where: str
) -> tuple[dict[str, Any], bool] | Problem:
    """The venue a row names (by id or name), made if `name` is given and none is."""
    if not word:
        return Problem(f"{where}.venue", "missing")
    for place in venues:
        if str(place.get("id")) == word:
            return place, False
    plain = " ".join(word.casefold().split())
    by_name = [v for v in venues if " ".join(str(v.get("name", "")).casefold().split()) == plain]
    if len(by_name) == 1:
        return by_name[0], False
    if name:
        if not PLAIN_ID.match(word):
            return Problem(f"{where}.venue", "a new venue's id: letters, digits, '.', '_', '-'")
        place = {"id": word, "name": name, "zones": []}
        venues.append(place)
        return place, True
    known = [str(v.get("id")) for v in venues] + [str(v.get("name")) for v in venues]
    return Problem(
        f"{where}.venue",
        f'unknown venue "{word}"{did_you_mean(word, known)} (a venue_name makes a new one)',
    )


def _zone(row: dict[str, str], where: str, problems: list[Problem]) -> dict[str, Any] | None:
    zone_id = row.get("id", "")
    if not PLAIN_ID.match(zone_id):
        problems.append(Problem(f"{where}.id", "letters, digits, '.', '_' and '-', at most 100"))
        return None
    capacity: dict[str, int] = {}
    for column, text in row.items():
        if not (column == "capacity" or column.startswith("capacity@")) or text == "":
            continue
        if not text.isdigit():
            problems.append(Problem(f"{where}.{column}", f'"{text}" is not a whole number'))
            return None
        capacity["default" if column == "capacity" else column.split("@", 1)[1]] = int(text)
    if not capacity:
        problems.append(Problem(f"{where}.capacity", "missing"))
        return None
    occupant = row.get("occupant", "").lower()
    if occupant not in ("", "home", "away"):
        problems.append(Problem(f"{where}.occupant", f'home, away or empty, not "{occupant}"'))
        return None
    zone: dict[str, Any] = {"id": zone_id, "name": row.get("name") or zone_id}
    zone["capacity"] = capacity["default"] if list(capacity) == ["default"] else capacity
    for field in ("via", "closed"):
        items = [x for x in _LIST.split(row.get(field, "")) if x]
        if items:
            zone[field] = items
    if occupant:
        zone["occupant"] = occupant
    return zone


def _located(problem: Problem, document: dict[str, Any], where_of: dict[Any, str]) -> Problem:
    """A problem of the written document told at the row it came from, where it has one."""
    found = re.match(r"venues\[(\d+)\]\.zones\[(\d+)\](.*)", problem.path)
    if found:
        venue = document["venues"][int(found[1])]
        zone = venue["zones"][int(found[2])]
        row = where_of.get((venue["id"], str(zone.get("id"))))
        if row:
            return Problem(row + found[3], problem.message)
    return problem
