"""Scenario documents in and out of the database: the one mapping between rows and the core.

`load` writes a validated document as rows (idempotent: the file is the truth for what it
names); `export` turns one match back into a document. The web app decides a match by
exporting it and handing the document to the core, so what the CLI decides for an
exported file and what the web shows are the same by construction.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from django.db import transaction
from django.db.models import F, Max, ProtectedError, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from pitchpass.core import (
    Problem,
    Scenario,
    ScenarioInvalid,
    check_document,
    load_document,
)
from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.match_day import record, release, waitlist
from pitchpass.core.model import DEFAULT_PHASES, MatchDay, Phase, Request
from pitchpass.web.limits import ID_LENGTH, NAME_LENGTH, RULE_LENGTH, TIER_LENGTH
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import passes
from pitchpass.web.persistence.audit import COMMAND_LINE, audit


@dataclass(frozen=True)
class Loaded:
    matches: int
    requests: int
    incidents: int
    warnings: tuple[Problem, ...]
    changed: tuple[str, ...] = ()  # the matches whose stored data the load changed


# Audit actions of the web app and API that change what a file holds (a decide or an
# override changes no request: it leaves a run, which a load makes stale anyway).


class LoadRefused(Exception):
    """The file would overwrite changes made through the web app since the last load."""

    def __init__(self, changed: dict[str, list[str]]) -> None:
        self.changed = changed  # match id -> the kinds of change it would lose
        super().__init__(
            "; ".join(f"{key} ({', '.join(actions)})" for key, actions in changed.items())
        )


def load(document: dict[str, Any], replace: bool = False) -> Loaded:
    """Validate, then write every section in one transaction (all or nothing). Each match
    the file changes is locked, its version bumped and a "load" audit entry written (the
    match before and after); one changed through the web app since it was last loaded is
    refused (LoadRefused, nothing written) unless `replace`."""
    scenario, problems, warnings = check_document(document)
    if scenario is None:
        raise ScenarioInvalid(problems)
    outside = _outside_the_calendar(document) + _not_storable(document)
    if outside:
        raise ScenarioInvalid(outside)
    try:
        with transaction.atomic():
            frames_changed()  # its venues and competitions may be other matches' too
            keys = sorted(match.id for match in scenario.matches)
            # In the order of primary keys, as the admin takes them (admin_checks.lock).
            matches = m.Match.objects.select_for_update().filter(key__in=keys).order_by("pk")
            existing = list(matches.select_related("competition"))
            # The no-show bar of each competition once, not once for each match exported.
            bars = {row.competition_id: no_show_bar(row.competition) for row in existing}
            before = {
                row.key: export(row.key, season=False, bar=bars[row.competition_id])
                for row in existing
            }  # each match itself
            _write(document, scenario)
            # What the file gives as published (`locked`) has its pass, as a publish makes.
            passes.make_passes(m.Request.objects.filter(match__key__in=keys))
            changed = _record(scenario, before, replace)
    except ProtectedError as error:
        names = ", ".join(sorted({str(obj) for obj in error.protected_objects})[:5])
        raise ScenarioInvalid(
            [Problem("", f"the file leaves out things still used elsewhere: {names}")]
        ) from None
    derived = [
        Problem(f"requests[{n}].no_shows", "not kept: the desk works the no-show bar out itself")
        for n, r in enumerate(document.get("requests") or [])
        if isinstance(r, dict) and r.get("no_shows")
    ]
    return Loaded(
        len(scenario.matches),
        len(scenario.requests),
        len(scenario.incidents),
        (*warnings, *derived),
        tuple(changed),
    )


def frames_changed() -> None:
    """Venues, zones, competitions, phases, tiers or organisations are being written (a
    load, an admin's edit): every match's frame moves on, for those rows are shared by
    matches the file or the edit does not name. Done first in the transaction: it holds
    every match's row until the commit (taken in one order by every writer of this kind;
    a submission waits, then checks against the frame as written)."""
    m.Match.objects.update(frame=F("frame") + 1)


def _write(document: dict[str, Any], scenario: Scenario) -> None:
    orgs = {
        o.id: m.Organisation.objects.update_or_create(
            key=o.id, defaults={"name": o.name, "kind": o.kind, "position": n}
        )[0]
        for n, o in enumerate(scenario.organisations)
    }
    competition = _competition(document, scenario, orgs)
    kept: dict[str, tuple[list[str], list[int]]] = {}  # venue -> zone keys, camera pks
    venues = {v.id: _venue(document, n, v.id, orgs, kept) for n, v in enumerate(scenario.venues)}
    for n, match in enumerate(scenario.matches):
        row, _ = m.Match.objects.update_or_create(
            key=match.id,
            defaults={
                "competition": competition,
                "venue": venues[match.venue],
                "home": orgs[match.home],
                "away": orgs[match.away],
                "kickoff": match.kickoff,
                "kickoff_offset": offset(match.kickoff),
                "host": orgs.get(match.host) if match.host else None,
                "televised_by": None if match.televised_by is None else list(match.televised_by),
                "position": n,
            },
        )
        _requests(row, scenario, orgs)
        _incidents(row, document)
    # Zones and cameras the file no longer has go last, after the requests and incidents
    # that used them (and that the file also dropped).
    for venue_id, (zone_keys, camera_pks) in kept.items():
        venue = venues[venue_id]
        venue.cameras.exclude(pk__in=camera_pks).delete()
        venue.zones.exclude(key__in=zone_keys).delete()


def _outside_the_calendar(document: dict[str, Any]) -> list[Problem]:
    """Times the database cannot keep: in UTC before year 1 or after 9999 (Python's range)."""
    return [
        Problem(f"{section}[{n}].{field}", "outside the calendar")
        for section, field in (
            ("matches", "kickoff"),
            ("requests", "submitted"),
            ("incidents", "at"),
        )
        for n, raw in enumerate(document.get(section) or [])
        if not storable(raw.get(field))
    ]


# What the database keeps (the models' max_length) and what a URL can name: an id is at
# most 100 characters, with no "/" (a path could not name it), no control character and
# no bidirectional control (U+202E would show "txt.exe" as "exe.txt": spoofable ids).
UNSAFE = re.compile("[/\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _not_storable(document: dict[str, Any]) -> list[Problem]:
    """Ids and names the database cannot keep or a URL cannot name (see UNSAFE)."""
    found: list[tuple[str, Any, str]] = []  # (path, value, what it is)
    competition = document.get("competition") or {}
    found += [("competition.id", competition.get("id"), "id")]
    found += [("competition.name", competition.get("name"), "name")]
    for n, tier in enumerate((document.get("policy") or {}).get("tiers") or []):
        found += [(f"policy.tiers[{n}].name", tier.get("name"), "tier")]
        found += [(f"policy.tiers[{n}].rule", tier.get("rule"), "rule")]
    for section in ("organisations", "matches", "requests", "incidents", "phases"):
        for n, entry in enumerate(document.get(section) or []):
            found += [(f"{section}[{n}].id", entry.get("id"), "id")]
            found += [(f"{section}[{n}].name", entry.get("name"), "name")]
    for n, venue in enumerate(document.get("venues") or []):
        found += [(f"venues[{n}].id", venue.get("id"), "id")]
        found += [(f"venues[{n}].name", venue.get("name"), "name")]
        for part in ("zones", "cameras"):
            for k, entry in enumerate(venue.get(part) or []):
                found += [(f"venues[{n}].{part}[{k}].id", entry.get("id"), "id")]
                found += [(f"venues[{n}].{part}[{k}].name", entry.get("name"), "name")]
    most = {"id": ID_LENGTH, "name": NAME_LENGTH, "tier": TIER_LENGTH, "rule": RULE_LENGTH}
    problems = [
        Problem(path, "text cannot hold a NUL character (PostgreSQL cannot keep one)")
        for path in _with_nul(document, "")
    ]
    for path, value, what in found:
        if not isinstance(value, str):
            continue  # absent, or the core has said what is wrong with it
        if len(value) > most[what]:
            problems.append(Problem(path, f"at most {most[what]} characters, not {len(value)}"))
        elif what == "id" and UNSAFE.search(value):
            problems.append(
                Problem(path, 'an id cannot hold "/", a control or a bidirectional character')
            )
    return problems


def _with_nul(value: Any, path: str) -> list[str]:
    """The places of the texts holding a NUL character (what an incident says, say)."""
    if isinstance(value, str):
        return [path] if "\x00" in value else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _with_nul(v, f"{path}.{k}".lstrip("."))]
    if isinstance(value, list):
        return [p for n, v in enumerate(value) for p in _with_nul(v, f"{path}[{n}]")]
    return []


def storable(value: str | datetime | None) -> bool:
    """Whether the database can keep this time (the one rule for it): in UTC within years
    1 to 9999, Python's calendar, and written as the store reads it back. None (no time)
    is storable."""
    try:
        instant = moment(value)
        if instant is not None:
            instant.astimezone(UTC)
    except (OverflowError, ValueError):
        return False
    return True


def _requests_changed(before: dict[str, Any] | None, after: dict[str, Any]) -> list[str]:
    """The requests a load added or changed: they wait for the next decide, as one sent
    or changed through the web app does (runs made before decided them as they were)."""
    was = {r["id"]: r for r in (before or {}).get("requests") or []}
    return [r["id"] for r in after.get("requests") or [] if was.get(r["id"]) != r]


def _record(scenario: Scenario, before: dict[str, dict[str, Any]], replace: bool) -> list[str]:
    """Bump and audit each match the load changed; refuse to overwrite web changes. The
    ids of the matches changed."""
    refused: dict[str, list[str]] = {}
    changed: list[str] = []
    competition = m.Competition.objects.get(key=scenario.competition.id)
    bar = no_show_bar(competition)  # the file's one competition: once, not for each match
    for match in scenario.matches:
        # The match itself: what the load changed.
        after = export(match.id, season=False, bar=bar)
        row = m.Match.objects.get(key=match.id)
        lost = _web_changes(row) if match.id in before else []
        if before.get(match.id) == after:
            if not lost:
                continue  # nothing to do, nothing to note: loading again changes nothing
            # The web changes were undone: the match is as the file has it again.
        elif lost and not replace:
            refused[match.id] = lost
            continue
        else:
            m.Match.objects.filter(pk=row.pk).update(version=row.version + 1)
            sent = _requests_changed(before.get(match.id), after)
            row.requests.filter(key__in=sent).update(changed_in=row.version + 1)
        changed.append(match.id)
        # `pitchpass load`, by whoever runs the server.
        audit(None, "load", row, match.id, before.get(match.id), after, COMMAND_LINE)
    if refused:
        raise LoadRefused(refused)
    return changed


def _web_changes(match: m.Match) -> list[str]:
    """The kinds of change made through the web app since the match was last loaded."""
    return list(match.web_changes)


def _competition(
    document: dict[str, Any], scenario: Scenario, orgs: dict[str, m.Organisation]
) -> m.Competition:
    policy = document.get("policy") or {}
    competition, _ = m.Competition.objects.update_or_create(
        key=scenario.competition.id,
        defaults={
            "name": scenario.competition.name,
            "deadline": str(policy.get("deadline") or "5d").strip(),
            "within_tier": scenario.policy.within_tier.value,
            "release_before": scenario.policy.match_day.release_before,
            "accept_within": scenario.policy.match_day.accept_within,
            "no_show_limit": scenario.policy.match_day.no_show_limit,
            "release_grace": scenario.policy.match_day.release_grace,
            "release_warning": scenario.policy.match_day.release_warning,
            "release_exempt": _listed(scenario.policy.match_day.release_exempt),
            "season": policy.get("season") if scenario.policy.season is not None else None,
        },
    )
    competition.partners.set([orgs[p] for p in sorted(scenario.competition.partners)])
    _replace(
        competition.tiers.all(),
        [
            m.Tier(competition=competition, name=t.name, rule=t.rule, position=n)
            for n, t in enumerate(scenario.policy.tiers)
        ],
    )
    _replace(
        competition.phases.all(),
        [
            m.Phase(competition=competition, key=p.id, start=p.start, end=p.end, position=n)
            for n, p in enumerate(scenario.phases)
        ],
    )
    return competition


def _replace(existing: Any, rows: list[Any]) -> None:
    """Swap small ordered child lists whole, unless they are already exactly these."""
    fields = ("key", "name", "rule", "start", "end", "position")
    old = [tuple(getattr(r, f, None) for f in fields) for r in existing]
    new = [tuple(getattr(r, f, None) for f in fields) for r in rows]
    if old != new:
        existing.delete()
        if rows:
            type(rows[0]).objects.bulk_create(rows)


def _venue(
    document: dict[str, Any],
    position: int,
    venue_id: str,
    orgs: dict[str, m.Organisation],
    kept: dict[str, tuple[list[str], list[int]]],
) -> m.Venue:
    raw = next(v for v in document["venues"] if str(v["id"]) == venue_id)
    venue, _ = m.Venue.objects.update_or_create(
        key=venue_id, defaults={"name": raw.get("name") or venue_id, "position": position}
    )
    zones = {}
    for n, z in enumerate(raw["zones"]):
        capacity = z["capacity"]
        by_phase = dict(capacity) if isinstance(capacity, dict) else {}
        default = by_phase.pop("default", None) if by_phase else capacity
        zones[str(z["id"])], _ = m.Zone.objects.update_or_create(
            venue=venue,
            key=str(z["id"]),
            defaults={
                "name": z.get("name") or str(z["id"]),
                "capacity": default,
                "capacity_by_phase": {str(k): v for k, v in by_phase.items()},
                "via": [str(x) for x in z.get("via") or []],
                "occupant": z.get("occupant") or "",
                "closed": [str(x) for x in z.get("closed") or []],
                "position": n,
            },
        )
    cameras = []
    for n, c in enumerate(raw.get("cameras") or []):
        camera, _ = m.Camera.objects.update_or_create(
            venue=venue,
            key=str(c["id"]),
            defaults={
                "name": c.get("name") or "",
                "zone": zones[str(c["zone"])],
                "operator": orgs[str(c["operator"])] if c.get("operator") else None,
                "phases": [str(p) for p in c["phases"]] if c.get("phases") is not None else None,
                "position": n,
            },
        )
        cameras.append(camera.pk)
    kept[venue_id] = (list(zones), cameras)
    return venue


def _requests(match: m.Match, scenario: Scenario, orgs: dict[str, m.Organisation]) -> None:
    """The match's requests as the file lists them: each written (made, or its row
    changed), with its consent, in a few statements for the match, not some for each
    request (a season's load writes 16,000); those the file no longer lists deleted."""
    zones = {z.key: z for z in match.venue.zones.all()}
    rows = {r.key: r for r in match.requests.all()}
    made, changed = [], []
    for n, request in enumerate(scenario.requests_of(match.key)):
        values = {
            "by": orgs[request.by],
            "zone": zones[request.zone],
            "phases": list(request.phases),
            "crew": request.crew,
            "cameras": request.cameras,
            "submitted": request.submitted,
            "submitted_offset": offset(request.submitted),
            "locked": request.locked,
            "revoked": "",  # the file is the truth for what it lists
            "consent_refused": False,
            "position": n,
        }
        row = rows.get(request.id)
        if row is None:
            made.append(m.Request(match=match, key=request.id, **values))
        else:
            for name, value in values.items():
                setattr(row, name, value)
            changed.append(row)
    listed = {r.id: r for r in scenario.requests_of(match.key)}
    match.requests.exclude(key__in=listed).delete()
    m.Request.objects.bulk_create(made, batch_size=500)
    m.Request.objects.bulk_update(changed, REQUEST_FIELDS, batch_size=500)
    # Consent, as the file gives it: the pairs it lacks made, those it no longer has gone.
    keys = dict(match.requests.values_list("key", "pk"))
    wanted = {(keys[k], orgs[o].pk) for k, r in listed.items() for o in r.consent}
    given = m.Request.consent.through.objects.filter(request__match=match)
    had = set(given.values_list("request_id", "organisation_id"))
    for request_id, organisation_id in had - wanted:
        given.filter(request_id=request_id, organisation_id=organisation_id).delete()
    m.Request.consent.through.objects.bulk_create(
        [
            m.Request.consent.through(request_id=request_id, organisation_id=organisation_id)
            for request_id, organisation_id in sorted(wanted - had)
        ],
        batch_size=500,
    )


REQUEST_FIELDS = [
    "by", "zone", "phases", "crew", "cameras", "submitted", "submitted_offset", "locked",
    "revoked", "consent_refused", "position",
]  # fmt: skip


def _incidents(match: m.Match, document: dict[str, Any]) -> None:
    raws = [i for i in document.get("incidents") or [] if str(i["match"]) == match.key]
    kept = [_incident_row(match, n, raw).pk for n, raw in enumerate(raws)]
    match.incidents.exclude(pk__in=kept).delete()


def add_incident(match: m.Match, raw: dict[str, Any]) -> m.Incident:
    """One more incident, after the others (the caller has validated it)."""
    return _incident_row(match, match.incidents.count(), raw)


def _incident_row(match: m.Match, position: int, raw: dict[str, Any]) -> m.Incident:
    at = moment(raw.get("at"))
    row, _ = m.Incident.objects.update_or_create(
        match=match,
        key=str(raw["id"]),
        defaults={
            "zone": match.venue.zones.get(key=str(raw["zone"])),
            "minute": raw.get("minute"),
            "at": at,
            "at_offset": offset(at) if at else 0,
            "what": raw.get("what") or "",
            "position": position,
        },
    )
    serial = re.fullmatch(r"incident-([0-9]{1,9})", row.key)
    if serial:  # an id made up later is never this one, even once it is deleted
        rows = m.Match.objects.filter(pk=match.pk, incident_serial__lt=int(serial[1]))
        rows.update(incident_serial=int(serial[1]))
    return row


def export(
    match_key: str,
    entries: bool = True,
    now: datetime | None = None,
    read: tuple[m.Match, list[m.Request]] | None = None,
    season: bool = True,
    bar: dict[tuple[str, str], int] | None = None,
    together: Sequence[str] = (),
) -> dict[str, Any]:
    """One match as a scenario document, with everything it needs and nothing else.
    Without `entries`: its frame, no requests and no incidents (what a new one is checked
    against: the core checks each on its own against the competition, policy, phases,
    venue, organisations and match). Its requests as the match day's record has them at
    `now` (default: the clock's now). `read`: the match's row and its request_rows, read
    already by the caller (a page reads them once, not once more for the export).
    `season`: under season rules, the competition's other matches too (`_with_season`:
    what the engine decides the match with); without, the rules are dropped (the match
    alone, as a club's officer may read it). `bar`: the competition's no-show bar
    (`no_show_bar`), worked out already by a caller exporting many of its matches.
    `together`: other matches of the competition decided with this one (a matchweek),
    with their requests and incidents as their own exports have them, not only what they
    hold."""
    if read is not None:
        match, every = read
    else:
        match = m.Match.objects.select_related("competition", "venue", "home", "away", "host").get(
            key=match_key
        )
        every = list(request_rows(match).filter(revoked="")) if entries else []
    competition = match.competition
    # A revoked request is out of the decisions: the scenario does not list it.
    rows = [r for r in every if not r.revoked] if entries else []
    # The engine's view is the match day's record (core/match_day/record.py): a place offered and
    # not answered yet is held (locked), one declined or lapsed is decided by nobody.
    held = {key: record.engine_locked(e.state) for key, e in record_of(match, rows, now).items()}
    requests = [r for r in rows if held.get(r.key) is not None]
    incidents = list(match.incidents.select_related("zone")) if entries else []
    zones = list(match.venue.zones.all())
    cameras = list(match.venue.cameras.select_related("zone", "operator"))
    tiers = list(competition.tiers.all())
    partners = list(competition.partners.all())
    named = {match.home, match.away, *partners}
    named |= {match.host} if match.host else set()
    named |= {r.by for r in requests} | {o for r in requests for o in r.consent.all()}
    named |= {c.operator for c in cameras if c.operator}
    by_rule = {t.rule.removeprefix("org:") for t in tiers if t.rule.startswith("org:")}
    if by_rule:
        named |= set(m.Organisation.objects.filter(key__in=by_rule))
    document = {
        "pitchpass": 1,
        "competition": competition_json(competition, partners),
        "policy": policy_document(competition, tiers),
        "phases": phases_of(competition),
        "venues": [venue_json(match.venue, zones, cameras)],
        "organisations": [
            {"id": o.key, "name": o.name, "kind": o.kind}
            for o in sorted(named, key=lambda o: (o.position, o.key))
        ],
        "matches": [match_document(match)],
        "requests": _barred(
            match, bar, [_held(request_json(match.key, r), held.get(r.key), r) for r in requests]
        ),
        "incidents": [_incident(match.key, i) for i in incidents],
    }
    if entries and season and competition.season is not None:
        _with_season(document, match, now, together)
    elif together:
        _with_matches(document, together, now)
    return document


def _with_matches(document: dict[str, Any], keys: Sequence[str], now: datetime | None) -> None:
    """Other matches of the competition decided with the document's (a matchweek without
    season rules: each is still decided on its own), as their own exports have them."""
    matches = {o["id"]: o for o in document["matches"]}
    venues = {v["id"]: v for v in document["venues"]}
    organisations = {o["id"]: o for o in document["organisations"]}
    taken = {r["id"] for r in document["requests"]}
    seen_incidents = {i["id"] for i in document["incidents"]}
    for key in keys:
        own = export(key, now=now, season=False)
        matches.update({o["id"]: o for o in own["matches"]})
        venues.update({v["id"]: v for v in own["venues"] if v["id"] not in venues})
        organisations.update({o["id"]: o for o in own["organisations"]})
        document["requests"] += [_unique(r, key, taken) for r in own["requests"]]
        document["incidents"] += [_unique(i, key, seen_incidents) for i in own["incidents"]]
    document["matches"] = list(matches.values())
    document["venues"] = list(venues.values())
    document["organisations"] = list(organisations.values())


def _unique(entry: dict[str, Any], match_key: str, taken: set[str]) -> dict[str, Any]:
    """A request or incident of another match, written `match:id` where its id is taken."""
    if entry["id"] in taken:
        entry = {**entry, "id": f"{match_key}:{entry['id']}"}
    taken.add(entry["id"])
    return entry


def _with_season(
    document: dict[str, Any], match: m.Match, now: datetime | None, together: Sequence[str] = ()
) -> None:
    """The season the match is decided in (docs/scenario-extensions.md, "Season rules on
    the desk"): the competition's rules, and what its other matches hold (published
    grants, accepted and open offers), `locked`: what the season has used of a quota, the
    rotations' turns taken, the minimums met. The other matches' open requests are not
    decided with this match's (each is decided when its own match is), so a decide reads
    the history only, not the whole season. Matches in the competition's order; an id
    taken already in the document is written `match:id`. Every organisation and venue,
    as a rule may name any. `together`: matches decided with this one (a matchweek), with
    their open requests and their incidents too."""
    competition = match.competition
    document["policy"]["season"] = competition.season
    every = list(
        competition.matches.select_related("venue", "home", "away", "host").order_by(
            "position", "pk"
        )
    )
    taken = {r["id"] for r in document["requests"]}
    by_match: dict[int, list[dict[str, Any]]] = {match.pk: document["requests"]}
    for match_pk, one in held_elsewhere(match, now, together):
        if one["id"] in taken:
            one["id"] = f"{one['match']}:{one['id']}"
        taken.add(one["id"])
        by_match.setdefault(match_pk, []).append(one)
    seen_incidents = {i["id"] for i in document["incidents"]}
    for key in together:  # decided with this match: as its own export has it
        own = export(key, now=now, season=False)
        pk = next(o.pk for o in every if o.key == key)
        by_match[pk] = [_unique(r, key, taken) for r in own["requests"]]
        document["incidents"] += [_unique(i, key, seen_incidents) for i in own["incidents"]]
    seen = {v["id"] for v in document["venues"]}
    venues = m.Venue.objects.filter(pk__in={o.venue_id for o in every}).exclude(key__in=seen)
    venues = venues.prefetch_related("zones", "cameras__zone", "cameras__operator")
    document["venues"] += [venue_json(v) for v in venues]
    document["organisations"] = [
        {"id": o.key, "name": o.name, "kind": o.kind}
        for o in m.Organisation.objects.order_by("position", "key")
    ]
    document["matches"] = [match_document(o) for o in every]
    document["requests"] = [r for o in every for r in by_match.get(o.pk, [])]


def held_elsewhere(
    match: m.Match, now: datetime | None = None, together: Sequence[str] = ()
) -> list[tuple[int, dict[str, Any]]]:
    """What the competition's other matches (but those of `together`) hold that the
    engine decides the match with under season rules: published grants, accepted offers
    and offers open at `now`, each as the engine gets it (`locked`, with the phases it
    holds), with its match's primary key; in the competition's order of requests."""
    return _held_in(match.competition_id, now, [match.key, *together])


def _held_in(
    competition_pk: int, now: datetime | None, leaving_out: Sequence[str]
) -> list[tuple[int, dict[str, Any]]]:
    """What the competition's matches (but those `leaving_out`) hold (held_elsewhere).
    Read as values in one query (a season's end holds some 14,000 places), each row's
    state worked out as `record_of` works it out."""
    now = now or datetime.now(UTC)
    holding = Q(locked=True) | Q(offer__state=m.Offer.OPEN)
    rows = (
        m.Request.objects.filter(holding, match__competition_id=competition_pk, revoked="")
        .exclude(match__key__in=leaving_out)
        .order_by("position")
    )  # a place held is held whatever consent it had: none is read (nor written)
    columns = ("match_id", "match__key", *_REQUEST_FIELDS, "by__key", "zone__key", "released",
               "no_show", "offer__state", "offer__until", "offer__phases")  # fmt: skip
    out = []
    for (
        match_pk,
        match_key,
        *fields,
        by,
        zone,
        released,
        no_show,
        state,
        until,
        offered,
    ) in rows.values_list(*columns):
        phases, locked, revoked = fields[1], fields[6], fields[7]
        offered = list(offered or [])
        entry = _entry(phases, released, no_show, offered, locked, revoked, state, until, now)
        if record.engine_locked(entry.state):  # an offer past its time holds nothing
            held = list(release.kept(phases, released or (), offered))
            one = {**_request_out(match_key, fields, by, zone, []), "phases": held, "locked": True}
            out.append((match_pk, one))
    return out


DIGEST_MARK = "s2:"  # a fingerprint that is a sum of places (those before it are not)


def held_digest(
    match: m.Match, now: datetime | None = None, together: Sequence[str] = (),
    document: dict[str, Any] | None = None,
) -> str:  # fmt: skip
    """A fingerprint of `held_elsewhere`: a run decided under season rules is of the
    season as it was while this stays the same (docs/scenario-extensions.md, "Season
    rules on the desk"). The sum of each place's own hash (`_place`), so that one read of
    the whole competition gives every match's (`held_digests`). `document`: the match's
    export made with the same `now` and no `together`, whose other matches' requests are
    exactly those held: read from it, not again."""
    return _digest(sum(_place(*p) for p in _places(match, now, together, document)))


def same_season(
    match: m.Match, fingerprint: str, together: Sequence[str] = (),
    document: dict[str, Any] | None = None,
) -> bool:  # fmt: skip
    """Whether the competition's other matches hold what they held when a run took
    `fingerprint`. One taken before fingerprints were sums (no DIGEST_MARK) is compared
    as it was taken, the SHA-256 of the sorted places: a run decided then is not stale
    for the change of form alone (a decide again would drop its grants by hand)."""
    if fingerprint.startswith(DIGEST_MARK):
        return held_digest(match, None, together, document) == fingerprint
    places = sorted(list(p) for p in _places(match, None, together, document))
    return hashlib.sha256(json.dumps(places).encode()).hexdigest() == fingerprint


def _places(
    match: m.Match, now: datetime | None, together: Sequence[str],
    document: dict[str, Any] | None,
) -> list[tuple[str, str, str, int, list[str]]]:  # fmt: skip
    """The places `held_elsewhere` holds: (match, request, zone, crew, phases held)."""
    if document is not None and not together:
        return [
            (r["match"], r["id"].removeprefix(f"{r['match']}:"), r["zone"], r["crew"], r["phases"])
            for r in document["requests"]
            if r["match"] != match.key
        ]  # an id taken already is written `match:id` in the export (_with_season)
    return [
        (r["match"], r["id"], r["zone"], r["crew"], r["phases"])
        for _, r in held_elsewhere(match, now, together)
    ]


def held_digests(competition: m.Competition, now: datetime | None = None) -> dict[str, str]:
    """`held_digest` of each match of the competition (no `together`), from one read of
    what they all hold: the sum over the competition less the match's own places."""
    own: dict[str, int] = {}
    for _, r in _held_in(competition.pk, now, ()):
        place = _place(r["match"], r["id"], r["zone"], r["crew"], r["phases"])
        own[r["match"]] = own.get(r["match"], 0) + place
    total = sum(own.values())
    keys = competition.matches.values_list("key", flat=True)
    return {key: _digest(total - own.get(key, 0)) for key in keys}


def _place(match_key: str, key: str, zone: str, crew: int, phases: list[str]) -> int:
    """One place held, hashed: its match, request, zone, crew and the phases it holds."""
    said = json.dumps([match_key, key, zone, crew, phases])
    return int.from_bytes(hashlib.sha256(said.encode()).digest(), "big")


def _digest(total: int) -> str:
    """A sum of places as a run keeps it (64 characters, with DIGEST_MARK)."""
    width = 64 - len(DIGEST_MARK)
    return f"{DIGEST_MARK}{total % (1 << (4 * width)):0{width}x}"


def refused_in(competition: m.Competition) -> list[tuple[Request, frozenset[ReasonCode]]]:
    """The refusals the competition's matches published and that still stand: each
    match's newest published run's, of requests as they were refused (not changed since),
    never held since (no place offered from the waitlist, whatever became of it) and not
    revoked; as the core has requests (ids written `match:id`), each with its reasons'
    codes: what opens a minimum's make-up debts (core.debts)."""
    runs: dict[int, tuple[int, int]] = {}  # match -> its newest published run and number
    published = m.DecisionRun.objects.filter(
        match__competition_id=competition.pk, published__isnull=False
    )
    for run_pk, match_pk, number in published.values_list("pk", "match_id", "number"):
        if match_pk not in runs or number > runs[match_pk][1]:
            runs[match_pk] = (run_pk, number)
    decisions = (
        m.Decision.objects.filter(
            run_id__in=[pk for pk, _ in runs.values()],
            status=Status.REFUSED,
            request__locked=False,
            request__revoked="",
            request__offer__isnull=True,
            request__changed_in__lte=F("run__version"),
        )
        .select_related("request__match", "request__by", "request__zone")
        .order_by("request__position")
    )
    out = []
    for d in decisions:
        r = d.request
        core = Request(
            f"{r.match.key}:{r.key}", r.match.key, r.by.key, r.zone.key, tuple(r.phases), r.crew,
            r.submitted, r.cameras,
        )  # fmt: skip
        out.append((core, frozenset(ReasonCode(x["code"]) for x in d.reasons)))
    return out


def _held(request: dict[str, Any], held: bool | None, row: m.Request) -> dict[str, Any]:
    """A request as the engine gets it: locked if it holds its places, with only the
    phases it holds (core.release.kept: not those released as a no-show, nor those over
    before its place was offered from the waitlist)."""
    if held:
        request = {**request, "phases": list(held_phases(row)), "locked": True}
    return request


def offered_phases(row: m.Request) -> list[str]:
    """The phases offered to the request from the waitlist (empty: not offered, or every
    phase), from its offer read with the row."""
    offer = getattr(row, "offer", None)  # the reverse one-to-one: None if never offered
    return list(offer.phases) if offer is not None else []


def held_phases(row: m.Request) -> tuple[str, ...]:
    """The phases a published grant (or an open offer) holds (core.release.kept)."""
    return release.kept(row.phases, row.released or (), offered_phases(row))


def record_of(
    match: m.Match, rows: list[m.Request] | None = None, now: datetime | None = None
) -> dict[str, record.Entry]:
    """Each request's state after publish (core/match_day/record.py), from what was written as it
    happened: the request's row (published, revoked, released) and its offer, if any.
    `rows`: the match's requests read already with their offers (else read here)."""
    now = now or datetime.now(UTC)
    if rows is None:
        rows = list(match.requests.select_related("offer"))
    out = {}
    for r in rows:
        offer = getattr(r, "offer", None)  # the reverse one-to-one, read with the row
        state, until = (offer.state, offer.until) if offer is not None else (None, None)
        out[r.key] = _entry(r.phases, r.released, r.no_show, offered_phases(r), r.locked,
                            r.revoked, state, until, now)  # fmt: skip
    return out


def _entry(
    phases: list[str], released: list[str] | None, no_show: datetime | None,
    offered: list[str], locked: bool, revoked: str, offer_state: str | None,
    until: datetime | None, now: datetime,
) -> record.Entry:  # fmt: skip
    """A request's state after publish (core.record.state_of) from its row's values and
    its offer's, if any."""
    # Released whole: every phase released (or, before phases were released one by one,
    # a no-show at all); a grant revoked by hand after losing one phase is revoked. A
    # release that a door offline showed wrong stands, but counts as no no-show.
    whole = release.released_whole(phases, released, offered) if released else no_show is not None
    entry = record.state_of(locked, revoked, whole, offer_state, until, now)
    if released and entry.state in record.PUBLISHED:  # a grant that lost some phases
        entry = dataclasses.replace(entry, released=tuple(released))
    return entry


def competition_json(
    competition: m.Competition, partners: list[m.Organisation] | None = None
) -> dict[str, Any]:
    partners = list(competition.partners.all()) if partners is None else partners
    return {
        "id": competition.key,
        "name": competition.name,
        "partners": sorted(p.key for p in partners),
    }


def policy_document(
    competition: m.Competition, tiers: list[m.Tier] | None = None
) -> dict[str, Any]:
    """The competition's policy as a scenario writes it (the deadline only if set)."""
    tiers = list(competition.tiers.all()) if tiers is None else tiers
    return {
        **({"deadline": competition.deadline} if competition.deadline else {}),  # default
        "within_tier": competition.within_tier,
        "tiers": [{"name": t.name, "rule": t.rule} for t in tiers],
        **_match_day(competition),
    }


def phases_of(competition: m.Competition) -> list[dict[str, Any]]:
    return [
        {"id": p.key, "start": _number(p.start), "end": _number(p.end)}
        for p in competition.phases.all()
    ]


def venue_json(
    venue: m.Venue, zones: list[m.Zone] | None = None, cameras: list[m.Camera] | None = None
) -> dict[str, Any]:
    """A venue as a scenario writes it (its zones and cameras read if not given)."""
    zones = list(venue.zones.all()) if zones is None else zones
    cameras = list(venue.cameras.all()) if cameras is None else cameras
    return {
        "id": venue.key,
        "name": venue.name,
        "zones": [_zone(z) for z in zones],
        "cameras": [_camera(c) for c in cameras],
    }


def match_document(match: m.Match) -> dict[str, Any]:
    return {
        "id": match.key,
        "venue": match.venue.key,
        "home": match.home.key,
        "away": match.away.key,
        "kickoff": _when(match.kickoff, match.kickoff_offset),
        **({"host": match.host.key} if match.host else {}),
        **({"televised_by": match.televised_by} if match.televised_by is not None else {}),
    }


def _barred(
    match: m.Match, bar: dict[tuple[str, str], int] | None, requests: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The requests, each that the no-show bar refuses with its `no_shows` (the desk's
    side of docs/scenario-extensions.md, "The no-show bar": the core decides it)."""
    if bar is None:
        bar = no_show_bar(match.competition) if requests else {}
    return [
        {**r, "no_shows": bar[match.key, r["id"]]} if (match.key, r["id"]) in bar else r
        for r in requests
    ]


def no_show_bar_of(match: m.Match) -> dict[str, int]:
    """Request id -> no-shows, for each request of the match the no-show bar refuses."""
    return {key: n for (at, key), n in no_show_bar(match.competition).items() if at == match.key}


def no_show_bar(competition: m.Competition) -> dict[tuple[str, str], int]:
    """(match, request) -> no-shows, for each request of the competition the no-show bar
    refuses (core.waitlist.barred): the requests as they stand (a withdrawn one is gone; a
    changed one counts as sent when changed) of every organisation that has had a no-show
    in it, each no-show at its release moment. One query; none when the limit is 0."""
    limit = competition.no_show_limit
    if limit <= 0:
        return {}
    mine = m.Request.objects.filter(match__competition=competition)
    rows = (
        mine.filter(by__in=mine.filter(no_show__isnull=False).values("by"))
        .order_by("submitted", "match__key", "key")
        .values_list("match__key", "key", "by__key", "submitted", "no_show")
    )
    events: list[waitlist.Event] = []
    refs: list[tuple[str, str]] = []
    for match, key, by, submitted, no_show in rows:
        # A request's id is unique in its match only; numbered in (sent, match, id) order,
        # so two sent at one moment are taken in that order.
        ref = f"{len(refs):012d}"
        refs.append((match, key))
        events.append(waitlist.Event(by, submitted, waitlist.REQUEST, ref))
        if no_show is not None:
            events.append(waitlist.Event(by, no_show, waitlist.NO_SHOW, ref))
    return {refs[int(ref)]: count for ref, count in waitlist.barred(events, limit).items()}


def add_request(row: m.Request) -> None:
    """Insert a new request after the match's last (the caller holds the match lock): its
    position read by the INSERT itself (a subquery), one statement under the lock."""
    rows = m.Request.objects.filter(match_id=row.match_id).order_by().values("match_id")
    last = rows.annotate(last=Max("position")).values("last")
    row.position = Coalesce(Subquery(last), Value(0)) + 1
    row.save(force_insert=True)
    del row.position  # as written by the database: read back if it is asked for


def request_rows(match: m.Match) -> QuerySet[m.Request]:
    """The match's requests, revoked ones too, with requester, zone, consent and offer."""
    return match.requests.select_related("by", "zone", "offer").prefetch_related("consent")


def read_plan(match: m.Match) -> tuple[Phase, ...]:
    """The match's phases as the core has them (one query; no whole export)."""
    rows = match.competition.phases.all()
    return tuple(Phase(p.key, p.start, p.end) for p in rows) or DEFAULT_PHASES


def read_scenario(match_key: str) -> Scenario:
    """The core's scenario for one stored match (validated again: rows may be edited)."""
    return load_document(export(match_key))


def capacity_of(zone: m.Zone) -> int | dict[str, int] | None:
    """A stored zone's capacity as the document writes it (a number, or a map by phase
    with its "default"); None: none set."""
    capacity: int | dict[str, int] | None = zone.capacity
    if zone.capacity_by_phase:
        capacity = dict(zone.capacity_by_phase)
        if zone.capacity is not None:
            capacity = {"default": zone.capacity, **capacity}
    return capacity


def _zone(zone: m.Zone) -> dict[str, Any]:
    capacity = capacity_of(zone)  # None: none set, as the core says
    out: dict[str, Any] = {"id": zone.key, "name": zone.name}
    if capacity is not None:
        out["capacity"] = capacity
    if zone.via:
        out["via"] = list(zone.via)
    if zone.occupant:
        out["occupant"] = zone.occupant
    if zone.closed:
        out["closed"] = list(zone.closed)
    return out


def _camera(camera: m.Camera) -> dict[str, Any]:
    out: dict[str, Any] = {"id": camera.key, "zone": camera.zone.key}
    if camera.name:
        out["name"] = camera.name
    if camera.operator:
        out["operator"] = camera.operator.key
    if camera.phases is not None:
        out["phases"] = list(camera.phases)
    return out


def request_json(
    match_key: str, request: m.Request, consent: list[str] | None = None, zone: str = ""
) -> dict[str, Any]:
    """A request in docs/contract.md's shape; `consent` and `zone` when known already (not
    read again)."""
    if consent is None:
        consent = sorted(o.key for o in request.consent.all())
    return _request_out(
        match_key,
        [getattr(request, name) for name in _REQUEST_FIELDS],
        request.by.key,
        zone or request.zone.key,
        consent,
    )


def requests_json(requests: QuerySet[m.Request]) -> list[dict[str, Any]]:
    """`request_json` of each of `requests` in their matches' order and each match's, read
    in one query (the consent joined in: a row for each consenting organisation) and no
    model rows made: what the API's list answers at every call, and a competition's
    document (fixtures_store.competition_document)."""
    columns = ("pk", "match__key", *_REQUEST_FIELDS, "by__key", "zone__key", "consent__key")
    order = ("match__position", "match_id", "position", "pk")
    ordered = requests.values_list(*columns).order_by(*order)
    out: dict[int, tuple[str, list[Any], str, str, list[str]]] = {}
    for pk, match_key, *fields, by, zone, consent in ordered:
        found = out.setdefault(pk, (match_key, fields, by, zone, []))
        if consent is not None:
            found[4].append(consent)
    return [
        _request_out(match_key, fields, by, zone, sorted(consent))
        for match_key, fields, by, zone, consent in out.values()
    ]


_REQUEST_FIELDS = ("key", "phases", "crew", "cameras", "submitted", "submitted_offset", "locked",
                   "revoked")  # fmt: skip


def _request_out(
    match_key: str, fields: list[Any], by: str, zone: str, consent: list[str]
) -> dict[str, Any]:
    key, phases, crew, cameras, submitted, offset, locked, revoked = fields
    out: dict[str, Any] = {
        "id": key,
        "match": match_key,
        "by": by,
        "zone": zone,
        "phases": list(phases),
        "crew": crew,
        "cameras": cameras,
        "submitted": _when(submitted, offset),
    }
    if consent:
        out["consent"] = consent
    if locked:
        out["locked"] = True
    if revoked:
        out["revoked"] = revoked  # not docs/contract.md's: the web app's own
    return out


def _incident(match_key: str, incident: m.Incident) -> dict[str, Any]:
    out: dict[str, Any] = {"id": incident.key, "match": match_key, "zone": incident.zone.key}
    if incident.at is not None:
        out["at"] = _when(incident.at, incident.at_offset)
    else:
        out["minute"] = _number(incident.minute or 0)
    if incident.what:
        out["what"] = incident.what
    return out


def moment(value: str | datetime | None) -> datetime | None:
    """An `at` as validated by the core: text with a timezone, or a datetime already."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value.strip())


def offset(moment: datetime) -> int:
    offset = moment.utcoffset()
    return int(offset.total_seconds() // 60) if offset else 0


def _when(moment: datetime, offset: int) -> str:
    """The instant, written with the UTC offset it was loaded with."""
    return moment.astimezone(timezone(timedelta(minutes=offset))).isoformat()


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def match_keys() -> list[str]:
    return list(m.Match.objects.values_list("key", flat=True))


def _match_day(competition: m.Competition) -> dict[str, Any]:
    """The policy's match_day, when not the defaults (a file without it reads the same);
    `release_exempt` only when named (None: the host rule's tiers)."""
    given = {
        "release_before": competition.release_before,
        "accept_within": competition.accept_within,
        "no_show_limit": competition.no_show_limit,
        "release_grace": competition.release_grace,
        "release_warning": competition.release_warning,
        "release_exempt": competition.release_exempt,
    }
    default = MatchDay()
    same = given == {k: getattr(default, k) for k in given}  # release_exempt: None
    if given["release_exempt"] is None:
        del given["release_exempt"]
    return {} if same else {"match_day": given}


def _listed(names: Any) -> list[str] | None:
    return None if names is None else list(names)
