"""Reading the match-day sections of a scenario: venues and zones, matches, requests, incidents."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from pitchpass.core.deciding.places import places_in
from pitchpass.core.deciding.policy import closes_at
from pitchpass.core.model import Camera, Incident, Match, Request, Venue, Zone
from pitchpass.core.reading.fields import MAX_COUNT, UNWRITABLE, Reader
from pitchpass.core.reading.problems import did_you_mean
from pitchpass.core.reading.read_setup import unique

OCCUPANTS = ("home", "away")


def venues(
    reader: Reader, top: dict[str, Any], phase_ids: list[str], org_ids: list[str]
) -> tuple[list[Venue], dict[str, list[str]]]:
    """The venues, and the zone ids of each (zones with problems of their own included)."""
    seen: dict[str, str] = {}
    result = []
    zones_of: dict[str, list[str]] = {}
    for i, raw in enumerate(reader.items(top, "venues", "", required=True)):
        path = f"venues[{i}]"
        item = reader.mapping(raw, path, ("id", "name", "zones", "cameras"))
        if item is None:
            continue
        venue_id = reader.text(item, "id", path)
        name = reader.text(item, "name", path, required=False)
        unique(reader, seen, venue_id, path, "venue")
        raw_zones = reader.items(item, "zones", path, required=True)
        zone_ids = _zone_ids(raw_zones)
        if venue_id is not None:
            zones_of.setdefault(venue_id, zone_ids)
        zones = [
            _zone(reader, z, f"{path}.zones[{j}]", zone_ids, phase_ids)
            for j, z in enumerate(raw_zones)
        ]
        seen_zones: dict[str, str] = {}
        for j, zone in enumerate(zones):
            if zone is not None:
                unique(reader, seen_zones, zone.id, f"{path}.zones[{j}]", "zone")
        cameras = _cameras(reader, item, path, zone_ids, phase_ids, org_ids)
        if venue_id is not None:
            result.append(
                Venue(venue_id, name or venue_id, tuple(z for z in zones if z), tuple(cameras))
            )
    return result, zones_of


def _zone_ids(raw_zones: list[Any]) -> list[str]:
    ids = (z.get("id") for z in raw_zones if isinstance(z, dict))
    return [str(i) for i in ids if isinstance(i, str | int) and not isinstance(i, bool)]


def _zone(
    reader: Reader, raw: Any, path: str, zone_ids: list[str], phase_ids: list[str]
) -> Zone | None:
    item = reader.mapping(raw, path, ("id", "name", "capacity", "via", "occupant", "closed"))
    if item is None:
        return None
    zone_id = reader.text(item, "id", path)
    name = reader.text(item, "name", path, required=False)
    capacity = _capacity(reader, item, path, phase_ids)
    via = reader.id_list(item, "via", path, required=False)
    for k, other in enumerate(via):
        where = f"{path}.via[{k}]"
        if other == zone_id:
            reader.problem(where, f'zone "{zone_id}" cannot be reached via itself')
        else:
            reader.reference(other, where, zone_ids, "zone of this venue")
    if len(set(via)) != len(via):
        reader.problem(f"{path}.via", "lists a zone more than once")
    occupant = reader.text(item, "occupant", path, required=False)
    if occupant is not None and occupant not in OCCUPANTS:
        reader.problem(f"{path}.occupant", f'must be home or away, not "{occupant}"')
    closed = reader.id_list(item, "closed", path, required=False)
    for k, phase in enumerate(closed):
        reader.reference(phase, f"{path}.closed[{k}]", phase_ids, "phase")
    if zone_id is None or capacity is None:
        return None
    return Zone(zone_id, name or zone_id, capacity, tuple(via), occupant, frozenset(closed))


def _capacity(
    reader: Reader, item: dict[str, Any], path: str, phase_ids: list[str]
) -> dict[str, int] | None:
    where = f"{path}.capacity"
    value = item.get("capacity")
    if value is None:
        reader.problem(where, "missing required field")
        return None
    if not isinstance(value, dict):
        places = reader.integer_value(value, where, 0)
        return None if places is None else {p: places_in(places, p) for p in phase_ids}
    per_phase: dict[str, int] = {}
    for key, raw in value.items():
        key = str(key)
        if key != "default" and key not in phase_ids:
            hint = did_you_mean(key, ["default", *phase_ids])
            reader.problem(f"{where}.{key}", f'unknown phase "{key}"{hint}')
            continue
        places = reader.integer_value(raw, f"{where}.{key}", 0)
        if places is not None:
            per_phase[key] = places
    missing = [p for p in phase_ids if p not in {str(k) for k in value}]
    if "default" not in per_phase and "default" not in value and missing:
        reader.problem(
            where,
            "a capacity map needs a default or every phase; missing: " + ", ".join(missing),
        )
        return None
    return {p: places_in(per_phase, p) for p in phase_ids}


def _cameras(
    reader: Reader,
    venue: dict[str, Any],
    path: str,
    zone_ids: list[str],
    phase_ids: list[str],
    org_ids: list[str],
) -> list[Camera]:
    seen: dict[str, str] = {}
    result = []
    for j, raw in enumerate(reader.items(venue, "cameras", path, required=False)):
        where = f"{path}.cameras[{j}]"
        item = reader.mapping(raw, where, ("id", "name", "zone", "operator", "phases"))
        if item is None:
            continue
        camera_id = reader.text(item, "id", where)
        unique(reader, seen, camera_id, where, "camera")
        zone = reader.text(item, "zone", where)
        reader.reference(zone, f"{where}.zone", zone_ids, "zone of this venue")
        operator = reader.text(item, "operator", where, required=False)
        reader.reference(operator, f"{where}.operator", org_ids, "organisation")
        phases = None
        if item.get("phases") == []:
            # "No phases: always" in the contract; an empty list reads as "never", so
            # which was meant is asked rather than guessed.
            reader.problem(f"{where}.phases", "is empty; leave it out for a camera always there")
        elif item.get("phases") is not None:
            phases = reader.id_list(item, "phases", where, required=False)
            for k, phase in enumerate(phases):
                reader.reference(phase, f"{where}.phases[{k}]", phase_ids, "phase")
        if camera_id is not None and zone is not None:
            frozen = None if phases is None else frozenset(phases)
            result.append(Camera(camera_id, zone, operator, frozen))
    return result


def matches(
    reader: Reader,
    top: dict[str, Any],
    venue_ids: list[str],
    org_ids: list[str],
    deadline: timedelta,
    kinds: dict[str, str] | None = None,
) -> tuple[list[Match], dict[str, str]]:
    """The matches, and the venue of every match id that names a known one (even a match
    with problems of its own, so that its requests' zones are still checked)."""
    seen: dict[str, str] = {}
    result = []
    venue_of: dict[str, str] = {}
    for i, raw in enumerate(reader.items(top, "matches", "", required=True)):
        path = f"matches[{i}]"
        item = reader.mapping(raw, path, ("id", "name", "venue", "home", "away", "kickoff", "host",
                                          "televised_by"))  # fmt: skip
        if item is None:
            continue
        match_id = reader.text(item, "id", path)
        unique(reader, seen, match_id, path, "match")
        venue = reader.text(item, "venue", path)
        known_venue = reader.reference(venue, f"{path}.venue", venue_ids, "venue")
        if known_venue and match_id and venue:
            venue_of.setdefault(match_id, venue)
        home = reader.text(item, "home", path)
        away = reader.text(item, "away", path)
        reader.reference(home, f"{path}.home", org_ids, "organisation")
        reader.reference(away, f"{path}.away", org_ids, "organisation")
        if home is not None and home == away:
            reader.problem(f"{path}.away", f'home and away are the same club "{home}"')
        kickoff = reader.moment(item, "kickoff", path)
        if kickoff is not None and not _has_deadline(kickoff, deadline):
            reader.problem(f"{path}.kickoff", "is too early for the deadline before it")
            kickoff = None
        host = reader.text(item, "host", path, required=False)
        reader.reference(host, f"{path}.host", org_ids, "organisation")
        televised_by = _televised_by(reader, item, path, org_ids, kinds or {})
        if match_id and known_venue and venue and home and away and kickoff:
            result.append(Match(match_id, venue, home, away, kickoff, host, televised_by))
    return result, venue_of


def _televised_by(
    reader: Reader, item: dict[str, Any], path: str, org_ids: list[str], kinds: dict[str, str]
) -> tuple[str, ...] | None:
    """A match's `televised_by` (docs/section-k.md): broadcasters, each known and listed
    once; None when left out (the match's host televises it)."""
    if item.get("televised_by") is None:
        return None
    listed = reader.id_list(item, "televised_by", path, required=True)
    seen: set[str] = set()
    for j, org in enumerate(listed):
        where = f"{path}.televised_by[{j}]"
        if not reader.reference(org, where, org_ids, "organisation"):
            continue
        if org in seen:
            reader.problem(where, f'"{org}" is listed twice')
        elif kinds.get(org, "broadcaster") != "broadcaster":
            reader.problem(where, f'"{org}" is a {kinds[org]}, not a broadcaster')
        seen.add(org)
    return tuple(dict.fromkeys(listed))


def _has_deadline(kickoff: datetime, deadline: timedelta) -> bool:
    """Kick-off minus the deadline (core.policy.closes_at) is a date and time the
    calendar has."""
    return closes_at(kickoff, deadline) > datetime.min.replace(tzinfo=UTC)


_REQUEST_FIELDS = (
    "id", "match", "by", "zone", "phases", "crew", "cameras", "submitted", "consent", "locked",
    "no_shows",
)  # fmt: skip


def requests(
    reader: Reader,
    top: dict[str, Any],
    match_list: list[Match],
    zones: dict[str, list[str]],
    phase_ids: list[str],
    org_ids: list[str],
    start: int = 0,
    seen: dict[str, str | int] | None = None,
    consume: bool = False,
) -> tuple[list[Request], list[int]]:
    """The requests that could be read, and the index in the document of each; `seen`
    gets each id used and where first (id -> path). For one more request checked after a
    document's own (scenario.check_request): the first's index `start`, and `seen` holds
    the ids they use. `consume`: each entry of the document's list is dropped once read
    (None in its place), so that a federation's requests are not held twice."""
    seen = {} if seen is None else seen
    result = []
    positions = []
    by_id = {m.id: m for m in match_list}
    plain = _Plain(reader, by_id, zones, phase_ids, org_ids)
    listed = reader.items(top, "requests", "", required=False)
    for i, raw in enumerate(listed, start):
        if consume:
            listed[i - start] = None
        found = plain.request(raw, seen)
        if found is not None:  # read as below would, without a word to say about it
            # Its index, not its path: a federation has a million (no request id is ever
            # looked up among the reader's declared ids, so none is declared here).
            seen[found.id] = i
            result.append(found)
            positions.append(i)
            continue
        path = f"requests[{i}]"
        item = reader.mapping(raw, path, _REQUEST_FIELDS)
        if item is None:
            continue
        request_id = reader.text(item, "id", path)
        unique(reader, seen, request_id, path, "request")
        match = _match_of(reader, item, path, by_id)
        by = reader.text(item, "by", path)
        reader.reference(by, f"{path}.by", org_ids, "organisation")
        zone = _zone_of(reader, item, path, zones)
        phases = reader.id_list(item, "phases", path, required=True)
        if item.get("phases") == []:
            reader.problem(f"{path}.phases", "must name at least one phase")
        for k, phase in enumerate(phases):
            reader.reference(phase, f"{path}.phases[{k}]", phase_ids, "phase")
        if len(set(phases)) != len(phases):
            reader.problem(f"{path}.phases", "lists a phase more than once")
        crew = reader.integer(item, "crew", path, minimum=1)
        cameras = reader.integer(item, "cameras", path, minimum=0, default=1)
        submitted = reader.moment(item, "submitted", path)
        consent = reader.id_list(item, "consent", path, required=False)
        for k, org in enumerate(consent):
            reader.reference(org, f"{path}.consent[{k}]", org_ids, "organisation")
        locked = reader.boolean(item, "locked", path)
        no_shows = reader.integer(item, "no_shows", path, 0, 0)
        if request_id and match and by and zone and phases and crew and submitted:
            result.append(
                Request(
                    request_id,
                    match.id,
                    by,
                    zone,
                    tuple(dict.fromkeys(phases)),
                    crew,
                    submitted,
                    cameras if cameras is not None else 1,
                    frozenset(consent),
                    locked,
                    no_shows or 0,
                )
            )
            positions.append(i)
    return result, positions


class _Plain:
    """The common case of a request, read at once: every field of the expected type and
    value, every reference known. Anything else (a problem to report, a warning, an id
    written as a number) is left to the field-by-field reading, which says what is wrong;
    for what this accepts, both make the same Request (a season's 16,000 requests are read
    in half the time)."""

    def __init__(
        self, reader: Reader, by_id: dict[str, Match], zones: dict[str, list[str]],
        phase_ids: list[str], org_ids: list[str],
    ) -> None:  # fmt: skip
        declared = reader.declared.get("match", {})
        self.matches = {k: v for k, v in by_id.items() if k in declared}
        # Each id known as one string object (and each list of phases as one tuple), which
        # the requests share rather than each keeping the document's own copy: a
        # federation's million requests hold far less once the document is gone.
        self.match_ids = {k: v.id for k, v in self.matches.items()}
        self.zones = {k: {z: z for z in v} for k, v in zones.items()}
        self.phases = frozenset(phase_ids)
        self.orgs = {o: o for o in org_ids}
        self.fields = frozenset(_REQUEST_FIELDS)
        self.tuples: dict[tuple[str, ...], tuple[str, ...]] = {}

    def request(self, raw: Any, seen: dict[str, str | int]) -> Request | None:
        if type(raw) is not dict or not self.fields.issuperset(raw):
            return None
        request_id, match_id, by, zone = (
            raw.get("id"), raw.get("match"), raw.get("by"), raw.get("zone")
        )  # fmt: skip
        if not (
            type(request_id) is str and request_id.strip() and request_id not in seen
            and not UNWRITABLE.search(request_id)
            and type(match_id) is str and match_id in self.matches
            and type(by) is str and by in self.orgs
            and type(zone) is str and zone in self.zones.get(match_id, ())
        ):  # fmt: skip
            return None
        phases = raw.get("phases")
        if type(phases) is not list or not phases or len(set(phases)) != len(phases):
            return None
        if not all(type(p) is str and p in self.phases for p in phases):
            return None
        crew, cameras = raw.get("crew", 0), raw.get("cameras", 1)
        no_shows, locked = raw.get("no_shows", 0), raw.get("locked", False)
        if not (_count(crew, 1) and _count(cameras, 0) and _count(no_shows, 0)):
            return None
        if type(locked) is not bool:
            return None
        consent = raw.get("consent", [])
        if type(consent) is not list or not all(type(o) is str and o in self.orgs for o in consent):
            return None
        submitted = _moment(raw.get("submitted"))
        if submitted is None:
            return None
        listed = tuple(phases)
        return Request(
            request_id, self.match_ids[match_id], self.orgs[by], self.zones[match_id][zone],
            self.tuples.setdefault(listed, listed), crew, submitted, cameras,
            frozenset(consent), locked, no_shows,
        )  # fmt: skip


def _count(value: Any, minimum: int) -> bool:
    return type(value) is int and minimum <= value <= MAX_COUNT


def _moment(value: Any) -> datetime | None:
    if type(value) is not str:
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return moment if moment.utcoffset() is not None else None


def incidents(
    reader: Reader,
    top: dict[str, Any],
    match_list: list[Match],
    zones: dict[str, list[str]],
) -> list[Incident]:
    seen: dict[str, str] = {}
    result = []
    by_id = {m.id: m for m in match_list}
    for i, raw in enumerate(reader.items(top, "incidents", "", required=False)):
        path = f"incidents[{i}]"
        item = reader.mapping(raw, path, ("id", "match", "zone", "minute", "at", "what"))
        if item is None:
            continue
        incident_id = reader.text(item, "id", path)
        unique(reader, seen, incident_id, path, "incident")
        match = _match_of(reader, item, path, by_id)
        zone = _zone_of(reader, item, path, zones)
        what = reader.text(item, "what", path, required=False, lines=True) or ""
        minute = _minute(reader, item, path, match)
        if incident_id and match and zone and minute is not None:
            result.append(Incident(incident_id, match.id, zone, minute, what))
    return result


def _minute(reader: Reader, item: dict[str, Any], path: str, match: Match | None) -> float | None:
    has_minute = item.get("minute") is not None
    has_at = item.get("at") is not None
    if has_minute == has_at:
        which = "both" if has_minute else "neither"
        reader.problem(path, f"an incident needs exactly one of minute and at, not {which}")
        return None
    if has_minute:
        return reader.number(item, "minute", path)
    at = reader.moment(item, "at", path)
    if at is None or match is None:
        return None
    minutes = (at - match.kickoff).total_seconds() / 60
    return int(minutes) if minutes.is_integer() else minutes


def _match_of(
    reader: Reader, item: dict[str, Any], path: str, by_id: dict[str, Match]
) -> Match | None:
    match_id = reader.text(item, "match", path)
    if match_id is not None and match_id in reader.declared.get("match", ()):
        return by_id.get(match_id)  # a match with problems of its own: reported there already
    reader.reference(match_id, f"{path}.match", by_id, "match")
    return None


def _zone_of(
    reader: Reader, item: dict[str, Any], path: str, zones: dict[str, list[str]]
) -> str | None:
    """The zone, checked against the zones of the match's venue (when that is known)."""
    zone = reader.text(item, "zone", path)
    match_id = str(item.get("match"))
    if match_id not in zones:
        return zone
    if reader.reference(zone, f"{path}.zone", zones[match_id], "zone of the match's venue"):
        return zone
    return None
