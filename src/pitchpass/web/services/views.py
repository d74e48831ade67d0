"""What the pages show, as typed data: the match list, a match's board, the request form
and its room hint, the what-if panel. The pages render these and query nothing; every
rule behind them is the core's, reached through the other services (decisions,
entries, access). Each match is exported and decided once while a page is read
(snapshot)."""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.models import User

from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.policy import occupant_club
from pitchpass.core.match_day.doors import open_between
from pitchpass.core.season.season_rules import Standing, standing
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import (
    access,
    board,
    decisions,
    doors,
    entries,
    notices,
    times,
    waitlist,
)
from pitchpass.web.services.live import Live, conflicts_after, live_of
from pitchpass.web.services.snapshot import document_of, plan_of, requests_of, scenario_of


@dataclass(frozen=True)
class Viewer:
    """Who is looking: the header's role, and the organisation a request is made for."""

    role: str
    role_name: str
    org_key: str | None
    org_name: str = ""  # the organisation's name, for what a page says of it


def viewer(user: User) -> Viewer | None:
    """None for a user with no role (the pages then say so)."""
    try:
        who = access.profile(user)
    except ServiceError:
        return None
    org = who.organisation.key if who.organisation else None
    name = who.organisation.name if who.organisation else ""
    return Viewer(who.role, who.get_role_display(), org, name)


def role_name(user: Any) -> str:
    """The header's role ("" when signed out or without a role)."""
    if user is None or not user.is_authenticated:
        return ""
    found = viewer(user)
    return found.role_name if found else ""


@dataclass(frozen=True)
class MatchHead:
    key: str
    home: str  # names
    away: str
    venue: str
    kickoff: datetime  # in the venue's time zone
    zone: tzinfo  # the venue's (services/times.py): pages show every time of the match in it


def _head(match: m.Match) -> MatchHead:
    zone = times.zone_of(match)
    kickoff = match.kickoff.astimezone(zone)
    return MatchHead(match.key, match.home.name, match.away.name, match.venue.name, kickoff, zone)


@dataclass(frozen=True)
class MatchLine:
    match: MatchHead
    waiting: int | None  # None: not for this user to know (a steward)
    fullest: dict[str, Any] | None
    redo: bool  # decided, but changed since: decide again
    live: bool = False  # its doors are open now (the match-day header shows on its board)


def match_list(user: User, now: datetime) -> tuple[list[MatchLine], list[MatchLine]]:
    """The matches this user may see: coming ones (not over yet: kick-off plus the end of
    the competition's last phase), and past ones, the latest first."""
    steward = access.profile(user).role == "steward"  # sees no requests at all
    coming: list[MatchLine] = []
    past: list[MatchLine] = []
    seasons: dict[int, dict[str, str]] = {}  # competition -> each match's season fingerprint
    for match in access.visible_matches(user):
        run = decisions.latest_run(match)
        # Only the requests this user may see: a count would tell of others' too.
        seen = [r for r in access.seen_list(user, match) if not r.revoked]
        decided = decisions.decided_in(run, seen)
        manages = access.manages(user, match)
        redo = (
            run is not None
            and manages
            and (run.version != match.version or decisions.season_moved_on(match, run, seasons))
        )
        usage = _usage(match, run, manages)  # the board's grid: the record over the run
        line = MatchLine(
            _head(match),
            None if steward else sum(r.key not in decided for r in seen),
            board.fullest(usage) if run else None,
            redo,
            _starts(match) <= now <= _ends(match),
        )  # the fullest place: the proposal for those who decide, else published only
        (coming if _ends(match) >= now else past).append(line)
    return coming, past[::-1]


def _ends(match: m.Match) -> datetime:
    plan = plan_of(match)  # one query, not an export of the match
    return match.kickoff + timedelta(minutes=max(p.end for p in plan))


def _starts(match: m.Match) -> datetime:
    """When its doors open (core.doors.open_between)."""
    return match.kickoff + timedelta(minutes=open_between(plan_of(match))[0])


@dataclass(frozen=True)
class ReasonLine:
    text: str
    by_hand: bool = False  # refused by hand (an override)
    through: str = ""  # the zone on the way that refused it, if not its own


@dataclass
class RequestRow:
    key: str
    org: str
    zone: str
    phases: list[str]
    crew: int
    cameras: int
    locked: bool
    revoked: str
    status: Status  # waiting: sent or changed since the run
    tier: str
    reasons: list[ReasonLine]
    by_hand: str | None  # granted by hand: the officer's reason
    consent_zone: bool  # in a club's own room: consent matters
    consent: list[str]  # who gave it (names)
    consent_refused: bool
    consent_mine: bool  # this user gives consent there
    # Refused for room under most-granted where crews of its tier or below, granted by
    # the policy, hold places: the board explains the policy (what its numbers tell).
    policy_note: bool = False
    # For those who manage the match: those grants ranked after it (a lower tier, or
    # its tier and sent later), each {"request", "why"}.
    ranked_after: list[dict[str, str]] = field(default_factory=list)
    crowded: list[dict[str, str]] = field(default_factory=list)
    blocked: dict[str, Any] | None = None  # what stands in the way of a grant by hand
    offered: bool = False  # offered a place from the waitlist, not answered yet
    # What the match day's record says of it (core/match_day/record.py), or proposed, published
    # (a refusal of the published run), waiting.
    state: str = ""
    what_if: str = ""  # the what-if query that would show it granted with room

    @property
    def granted(self) -> bool:
        return self.status is Status.GRANTED

    @property
    def refused(self) -> bool:
        return self.status is Status.REFUSED

    @property
    def waiting(self) -> bool:
        return self.status is Status.WAITING

    @property
    def proposed(self) -> bool:
        """Decided in a run not published yet (granted or refused): not final."""
        return self.state == "proposed"

    @property
    def can_override(self) -> bool:
        """An override can succeed: refuse any open request; grant one nothing blocks;
        nothing by hand while the request's offer waits for its crew's answer."""
        if self.offered:
            return False
        if self.blocked:  # a grant by hand cannot be made; refusing a grant can
            return self.granted
        return not self.revoked and not self.locked


@dataclass(frozen=True)
class CameraLine:
    name: str
    zone: str
    phases: list[str]  # empty: always
    operator: str


@dataclass
class IncidentLine:
    incident: str
    zone: str
    phase: str | None
    minute: float | None  # the clock minute as logged (None: logged with a time)
    at: datetime | None
    football: str | None  # "45+2" beside the clock minute, in stoppage time
    what: str
    covered_by: list[dict[str, Any]]
    missed: list[dict[str, Any]] = field(default_factory=list)
    present: list[dict[str, Any]] = field(default_factory=list)  # as the doors counted
    to_come: bool = False  # logged ahead, at a moment still to come: nobody present yet


@dataclass
class Board:
    match: MatchHead
    viewer: Viewer
    manages: bool
    run: m.DecisionRun | None
    stale: bool
    publishable: bool
    proposed: int
    granted: int  # the grants of the run (published or not)
    untold: int  # its refusals a publish would tell their organisations of now
    proposed_seen: int
    phases: list[str]
    phase_spans: list[tuple[str, float, float]]
    grid: list[tuple[str, list[dict[str, Any]]]]
    policy: dict[str, Any] | None
    rows: list[RequestRow]
    dropped_by_decide: list[dict[str, str]]
    zones: list[str]
    incidents: list[IncidentLine]
    cameras: list[CameraLine]
    closes: datetime | None
    open: bool
    access: list[dict[str, Any]] | None
    broken: ServiceError | None  # the match as stored does not decide: why
    match_day: dict[str, Any] | None  # the waitlist and the places offered from it
    scanned: bool  # a zone door has checked someone in: incidents say who was present
    # Publishing now puts these crews inside their release time (decisions.release_soon).
    release_soon: list[dict[str, str]] = field(default_factory=list)
    live: Live | None = None  # the match-day header (services/live.py)
    door_conflicts: list[str] = field(default_factory=list)  # while the header is not on
    season: Standing | None = None  # where the season stands (core.season_rules.standing)
    # The run's choice, where the solver's time limit passed before it was proven the best.
    unproven: list[str] = field(default_factory=list)
    stale_why: str = ""  # why the run is stale, when the season moved on elsewhere


def board_of(user: User, match_key: str, filters: dict[str, str], now: datetime) -> Board:
    """A match's board as this user may see it. Those who manage the match see the run's
    proposal and every request with what the desk offers beside it; everyone else sees
    what is published, and only their own requests (stewards none)."""
    match = access.check_match(user, match_key)
    manages = access.manages(user, match)
    who = viewer(user)
    assert who is not None  # check_match has asked for the profile
    visible = access.seen_list(user, match)  # none for stewards
    run = decisions.latest_run(match)
    shown = decisions.as_recorded(match, run, visible)  # the record over the run
    broken = None
    try:
        incidents = _incidents(user, match, manages, now)
    except ServiceError as error:  # the match as stored no longer decides: say why
        incidents, broken = [], error
    stale = run is not None and decisions.changed_since_run(user, match, run)
    # Under season rules a run also ages when the season moves on elsewhere.
    season_why = (
        decisions.season_changed(match, run, document_of(match))
        if manages and run and not stale
        else None
    )
    stale = stale or season_why is not None
    open_ = decisions.still_open(match)
    proposed = [
        d["request"]
        for d in (run.output["decisions"] if run else [])
        if d["status"] == Status.GRANTED and d["request"] in open_
    ]
    # Publish is offered where it would publish something: a grant still proposed, or a
    # refusal its organisation was not told of as it stands (a run that grants nothing
    # is published too: its refusals are told, and a season's debts open with them).
    untold = notices.untold_refusals(match, run) if manages and run and not stale else []
    publishable = not stale and (
        any(d["status"] == Status.GRANTED and d["state"] == "proposed" for d in shown.values())
        or bool(untold)
    )
    policy = _unless_undecidable(lambda: decisions.policy_of(match), None)
    rows = _rows(user, match, visible, shown, filters, run, policy)
    if manages and run:
        # A match as stored that does not decide: the board says why (the incidents).
        with contextlib.suppress(ServiceError):
            _explain(match, run, rows)
    plan = plan_of(match)
    closes = entries.requests_close(match)
    live = _unless_undecidable(lambda: live_of(user, match, now), None)
    return Board(
        match=_head(match),
        viewer=who,
        manages=manages,
        run=run,
        stale=stale,
        publishable=publishable,
        proposed=len(proposed),
        untold=len(untold),
        granted=sum(
            1 for d in (run.output["decisions"] if run else []) if d["status"] == Status.GRANTED
        ),
        proposed_seen=sum(1 for row in rows if row.proposed),
        phases=[p.id for p in plan],
        phase_spans=[(p.id, p.start, p.end) for p in plan],
        grid=board.grid(_usage(match, run, manages)),
        policy=policy,
        rows=rows,
        dropped_by_decide=_unless_undecidable(lambda: decisions.overrides_in_effect(match), [])
        if manages and run
        else [],
        zones=[z["id"] for z in _zones(match)],
        incidents=incidents,
        cameras=_cameras(match),
        closes=closes,
        open=closes is not None and now <= closes,  # None: the match is broken
        access=_access(user, match),
        broken=broken,
        match_day=_unless_undecidable(lambda: _match_day(user, match, now), None),
        scanned=doors.any_admitted(match),
        release_soon=_unless_undecidable(lambda: decisions.release_soon(match, run, now), [])
        if manages and publishable
        else [],
        live=live,
        door_conflicts=conflicts_after(user, match, live),
        season=_unless_undecidable(lambda: season_standing(match, user), None) if manages else None,
        unproven=[u["message"] for u in run.output.get("unproven", [])]
        if manages and run and not stale
        else [],
        stale_why=season_why or "",
    )


def season_standing(match: m.Match, user: User) -> Standing | None:
    """Where the competition's season stands for the match, for those who manage it (it
    counts other organisations' places elsewhere): None without season rules. A club's
    make-up debts come from refusals it published, which are not another club's officer's
    to learn: an officer sees its own club's, a league admin every club's."""
    if match.competition.season is None:
        return None
    found = standing(scenario_of(match), match.key, store.refused_in(match.competition))
    who = access.profile(user)
    if who.role == "admin":
        return found
    own = who.organisation.key if who.organisation else ""
    minimums = tuple(
        x if x.club_id == own else dataclasses.replace(x, owed=0) for x in found.minimums
    )
    return dataclasses.replace(found, minimums=minimums)


def _phases_held(request: m.Request) -> list[str]:
    """The phases a request is shown for: those a published grant or a place offered from
    the waitlist holds (not those released as a no-show; of an offer, the phases still to
    come then), else those it asked for."""
    offer = getattr(request, "offer", None)  # read with the row
    offered = offer is not None and offer.state in (m.Offer.OPEN, m.Offer.ACCEPTED)
    if request.locked or offered:
        return list(store.held_phases(request)) or list(request.phases)
    return list(request.phases)


def _match_day(user: User, match: m.Match, now: datetime) -> dict[str, Any]:
    """The waitlist and offers as the API gives them, each organisation also by name."""
    found = waitlist.waitlist_of(user, match, now)
    if not found["waitlist"]:
        return found
    names = {o["id"]: o["name"] for o in document_of(match)["organisations"]}
    waiting = [{**w, "name": names.get(w["by"], w["by"])} for w in found["waitlist"]]
    return {**found, "waitlist": waiting}


def _unless_undecidable(work: Any, otherwise: Any) -> Any:
    """What `work()` answers, or `otherwise` when the match as stored does not decide
    (the board says why, once, at its top)."""
    try:
        return work()
    except ServiceError:
        return otherwise


def zones_of(user: User, match_key: str) -> list[str]:
    """The ids of the match's zones, in the venue's order."""
    return [z["id"] for z in _zones(access.check_match(user, match_key))]


def _zones(match: m.Match) -> list[dict[str, Any]]:
    """The venue's zones as exported ({"id", "name", "occupant"?, ...}), in order."""
    zones: list[dict[str, Any]] = document_of(match)["venues"][0]["zones"]
    return zones


def _rows(
    user: User,
    match: m.Match,
    visible: list[m.Request],
    shown: dict[str, dict[str, Any]],
    filters: dict[str, str],
    run: m.DecisionRun | None,
    policy: dict[str, Any] | None,
) -> list[RequestRow]:
    run_by_hand = {o["request"]: o["reason"] for o in (run.overrides if run else [])}
    mine = _consent_zones(user, match)
    refused = _consent_refused(match) if visible else set()
    for_room = {
        key: d["reasons"]
        for key, d in shown.items()
        if d["status"] == Status.REFUSED
        and any(x.get("code") == ReasonCode.CAPACITY for x in d["reasons"])
    }
    explained = decisions.policy_explains(match, run, for_room)
    after = (  # others' requests, and when they were sent, are not for everyone
        {
            key: [{"request": a.request, "why": a.why} for a in found]
            for key, found in decisions.passed_over(match, run, for_room).items()
        }
        if access.manages(user, match)
        else {}
    )
    rows = []
    for r in board.request_rows(visible, shown, filters, run_by_hand):
        request, decision = r["request"], r["decision"]
        status = Status(r["status"])
        reasons = [
            ReasonLine(
                x["text"],
                x.get("code") == ReasonCode.OVERRIDE,
                x["zone"] if x.get("zone") and x["zone"] != request.zone.key else "",
            )
            for x in (decision or {}).get("reasons", [])
        ]
        rows.append(
            RequestRow(
                key=request.key,
                org=request.by.name,
                zone=request.zone.key,
                phases=_phases_held(request),
                crew=request.crew,
                cameras=request.cameras,
                locked=request.locked,
                revoked=request.revoked,
                status=status,
                tier=(decision or {}).get("tier") or "",
                reasons=reasons,
                by_hand=r["by_hand"],
                consent_zone=not request.revoked and _clubs_room(match, request.zone.occupant),
                consent=[o.name for o in request.consent.all()],
                consent_refused=request.key in refused,
                consent_mine=request.zone.key in mine,
                offered=status is Status.OFFERED,
                state=decision["state"],
                policy_note=status is Status.REFUSED and request.key in explained,
                ranked_after=after.get(request.key, []) if status is Status.REFUSED else [],
            )
        )
    return rows


def _explain(match: m.Match, run: m.DecisionRun, rows: list[RequestRow]) -> None:
    """Beside each row, for those who manage the match: what stands in the way of a grant
    by hand (then the Override form offers no grant, and the board says what would make
    it work: a what-if with the places it needs, or revoking), and the grants by hand
    holding the places of a request refused for room (then no policy note: the policy
    did not refuse it)."""
    found = decisions.desk(match, run)
    for row in rows:
        row.crowded = found["crowded"].get(row.key, []) if row.refused else []
        if row.crowded:  # grants by hand hold its places: the policy did not refuse it
            row.ranked_after, row.policy_note = [], False
        row.blocked = found["blocked"].get(row.key)
        if row.blocked and row.blocked["capacity"]:
            places = [(f"capacity:{k}", n) for k, n in row.blocked["capacity"].items()]
            row.what_if = _query([("grant", row.key), *places])


def _query(pairs: list[tuple[str, Any]]) -> str:
    """A what-if link's query string (the page puts it after the what-if's address)."""
    return urlencode(pairs)


def _usage(match: m.Match, run: m.DecisionRun | None, manages: bool) -> list[dict[str, Any]]:
    """The grid: for those who manage the match, the places the match day's record holds
    and the run's grants of the requests still open; for everyone else the places
    published grants hold (none shown before the first decide)."""
    if run is None:
        return []
    if manages:
        grid: list[dict[str, Any]] | None = _unless_undecidable(
            lambda: decisions.proposal_usage(match, run), None
        )
        usage: list[dict[str, Any]] = run.output["usage"] if grid is None else grid
        return usage
    return _published_usage(match, run)


def _published_usage(match: m.Match, run: m.DecisionRun | None) -> list[dict[str, Any]]:
    if run is None:
        return []
    found: list[dict[str, Any]] = _unless_undecidable(
        lambda: decisions.published_usage(match, run), []
    )
    return found


def _incidents(user: User, match: m.Match, manages: bool, now: datetime) -> list[IncidentLine]:
    """The coverage of each incident, with what the log says of it and whose crews."""
    document = document_of(match)
    logged = {i["id"]: i for i in document["incidents"]}
    names = {o["id"]: o["name"] for o in document["organisations"]}
    out = []
    for incident in decisions.coverage(user, match.key)["incidents"]:
        row = logged.get(incident["incident"], {})
        minute = row.get("minute")
        football = entries.football_of(match, minute) if minute is not None else None
        at = datetime.fromisoformat(row["at"]) if row.get("at") else None
        when = at or (match.kickoff + timedelta(minutes=minute) if minute is not None else None)
        out.append(
            IncidentLine(
                incident=incident["incident"],
                zone=incident["zone"],
                phase=incident.get("phase"),
                minute=minute,
                at=at,
                football=football if football and "+" in football else None,  # plain: clock
                what=row.get("what", ""),
                covered_by=[
                    {**s, "name": names.get(s["org"] or "", s["org"])}
                    for s in incident["covered_by"]
                ],
                present=[
                    {**p, "name": names.get(p["org"] or "", p["org"])}
                    for p in incident.get("present", [])
                ],
                to_come=when is not None and when > now,
            )
        )
    uncaught = {i.incident for i in out if not i.covered_by}
    if uncaught and access.profile(user).role != "steward":
        missed = decisions.missed(user, match, uncaught)
        for line in out:
            line.missed = [
                {
                    **r,
                    "grant": _query([("grant", r["request"])]),
                    "room": _query([(f"capacity:{k}", n) for k, n in r["capacity"].items()]),
                }
                for r in missed.get(line.incident, [])
            ]
    return out


def _cameras(match: m.Match) -> list[CameraLine]:
    document = document_of(match)
    names = {o["id"]: o["name"] for o in document["organisations"]}
    return [
        CameraLine(
            c.get("name") or c["id"],
            c["zone"],
            list(c.get("phases") or []),
            names.get(c.get("operator") or "", ""),
        )
        for venue in document["venues"]
        for c in venue["cameras"]
    ]


def _access(user: User, match: m.Match) -> list[dict[str, Any]] | None:
    """The access list, for stewards and for those who manage the match."""
    if not access.sees_access_list(user, match):
        return None
    phases = [p.id for p in plan_of(match)]
    places = _unless_undecidable(lambda: decisions.published_places(match), None)
    if places is None:  # the match as stored does not decide: the board says why
        return []
    return board.access_list(places, [z["id"] for z in _zones(match)], phases)


def _consent_refused(match: m.Match) -> set[str]:
    """The requests whose consent was refused (or taken back) since they were sent as
    they are: "refused" is not "not given yet"."""
    return {r.key for r in requests_of(match) if r.consent_refused}  # the rows read already


def _clubs_room(match: m.Match, occupant: str | None) -> bool:
    """Whether a zone is a club's own room, where consent counts (the core's rule)."""
    return occupant_club(occupant or None, match.home.key, match.away.key) is not None


def _consent_zones(user: User, match: m.Match) -> set[str]:
    """The zones whose consent this user gives: its club's own rooms (admin: all)."""
    who = access.profile(user)
    zones = _zones(match)
    if who.role == "admin":
        return {z["id"] for z in zones if _clubs_room(match, z.get("occupant"))}
    if who.role != "officer" or who.organisation is None:
        return set()
    mine = who.organisation.key
    home, away = match.home.key, match.away.key
    return {z["id"] for z in zones if occupant_club(z.get("occupant"), home, away) == mine}


@dataclass(frozen=True)
class RoomHint:
    lines: list[str]
    asked: bool  # phases were ticked
    left_out: str | None  # the request being changed, left out of the count
    stale: bool  # the board's grid is older than the requests
    every: bool = True  # every request counted (else published grants and one's own)


def room_hint(
    user: User, match_key: str, zone: str, phases: list[str], crew: str, changing: str | None
) -> RoomHint:
    """The room left for what the request form holds: with every request as it stands,
    decided now, but for the one being changed (`changing`, if the user may see it)."""
    match = access.check_match(user, match_key)
    if changing and changing not in {r.key for r in access.seen_list(user, match)}:
        changing = None
    size = board.crew_size(crew)
    cells, every = (
        decisions.room_seen(user, match, zone, phases, size, changing)
        if zone and phases
        else ([], True)
    )
    lines = board.room_lines(cells, size, zone)
    mine = access.profile(user).organisation
    consent = decisions.consent_needed(match, zone, mine.key if mine else None) if lines else None
    if consent:  # the core's own reason, as the request would be refused without it
        lines.insert(
            0,
            f"{consent} yet: its officer gives consent on the board; without it the request"
            " is refused",
        )
    run = decisions.latest_run(match)
    stale = run is not None and decisions.changed_since_run(user, match, run)
    return RoomHint(lines, bool(phases), changing, stale, every)


@dataclass(frozen=True)
class ZoneChoice:
    key: str
    name: str
    needs_consent: str  # the club whose consent a request there needs ("": none)


@dataclass(frozen=True)
class Changing:
    """The request being changed, as it is."""

    key: str
    zone: str
    phases: list[str]
    crew: int
    cameras: int
    submitted: str


@dataclass(frozen=True)
class RequestFormData:
    match: MatchHead
    zones: list[ZoneChoice]
    phases: list[str]
    closes: datetime | None
    late: bool  # after the deadline
    org_key: str | None  # the requester's organisation (media)
    changing: Changing | None


def request_form(
    user: User, match_key: str, now: datetime, changing: str | None = None
) -> RequestFormData:
    """What the request form offers (for a new request, or to change `changing`): only to
    broadcasters and producers (and admins); a request that cannot be changed (published,
    revoked) is refused here, before any form is shown."""
    match = access.check_match(user, match_key)
    who = access.profile(user)
    if who.role not in ("media", "admin"):
        raise ServiceError(ErrorCode.FORBIDDEN, "requests are made by broadcasters and producers")
    found = None
    if changing is not None:
        row = next((r for r in access.seen_list(user, match) if r.key == changing), None)
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{changing}"', "id")
        if row.locked or row.revoked:  # the form could only fail: say so now
            done = f"it was revoked ({row.revoked})" if row.revoked else "it is a published grant"
            raise ServiceError(
                ErrorCode.PUBLISHED if row.locked else ErrorCode.CONFLICT,
                f"{changing} cannot be changed: {done}; the home club's officer decides on it",
            )
        found = Changing(
            row.key,
            row.zone.key,
            list(row.phases),
            row.crew,
            row.cameras,
            store.request_json(match.key, row)["submitted"],
        )
    closes = entries.requests_close(match)
    mine = who.organisation.key if who.organisation else None
    clubs = {match.home.key: match.home.name, match.away.key: match.away.name}
    zones = []
    for z in _zones(match):
        club = occupant_club(z.get("occupant"), match.home.key, match.away.key)
        # A club's own room needs that club's consent (but for the club's own requests).
        needs = clubs[club] if club is not None and club != mine else ""
        zones.append(ZoneChoice(z["id"], z.get("name") or z["id"], needs))
    return RequestFormData(
        match=_head(match),
        zones=zones,
        phases=[p.id for p in plan_of(match)],
        closes=closes,
        late=closes is not None and now > closes,
        org_key=mine,
        changing=found,
    )


@dataclass(frozen=True)
class WhatIfRow:
    key: str
    org: str
    zone: str
    status: str
    locked: bool
    by_hand: bool


@dataclass(frozen=True)
class WhatIfPanel:
    match: MatchHead
    requests: list[WhatIfRow]
    capacities: list[tuple[str, list[dict[str, Any]]]]  # the grid, each cell's field name
    phases: list[str]
    usage: list[dict[str, Any]]  # the places as the match stands


def what_if_panel(user: User, match_key: str) -> WhatIfPanel:
    """The what-if panel of those who manage the match: its requests as they stand now
    (to tick), and its capacities (to change)."""
    match = access.check_manages(user, match_key)
    standing = decisions.standing(match)
    status = {d["request"]: d["status"] for d in standing["decisions"]}
    rows = [
        WhatIfRow(
            r.key,
            r.by.name,
            r.zone.key,
            status.get(r.key, ""),
            r.locked,
            r.key in standing["by_hand"],
        )
        for r in requests_of(match)
        if not r.revoked
    ]
    capacities = [{**u, "name": f"capacity:{u['zone']}@{u['phase']}"} for u in standing["usage"]]
    return WhatIfPanel(
        _head(match),
        rows,
        board.grid(capacities),
        [p.id for p in plan_of(match)],
        standing["usage"],
    )


def what_if_story(
    user: User, match_key: str, panel: WhatIfPanel, body: dict[str, Any]
) -> dict[str, Any]:
    """The what-if answer put in words (who would be granted, bumped, taken out; each
    incident's cameras before and after)."""
    answer = decisions.what_if_for(user, match_key, body)
    names = {r.key: r.org for r in panel.requests}
    return board.what_if_story(answer, names, body["refuse"])
