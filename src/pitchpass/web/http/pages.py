"""Server-rendered pages to read a match: the match list, the match board and its pieces
(the room-left hint, the what-if panel). Each view asks the same services as the API,
then renders; the forms that change a match are in page_actions.py.
"""

from __future__ import annotations

import contextlib
import secrets
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from pitchpass.core.codes import Status
from pitchpass.core.policy import occupant_club
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.services import access, board, decisions, entries


def user_of(request: HttpRequest) -> User:
    return request.user  # type: ignore[return-value]  # login_required has run


def context(request: HttpRequest, **values: Any) -> dict[str, Any]:
    """What every page needs: the user's role, and what it may do."""
    who = m.Profile.objects.select_related("organisation").filter(user=user_of(request)).first()
    role = who.role if who else ""
    return {"who": who, "role_name": who.get_role_display() if who else "", "role": role, **values}


def role_name(request: HttpRequest) -> dict[str, Any]:
    """The header's role on every page, error pages too (read only if a page shows it)."""

    def name() -> str:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return ""
        who = m.Profile.objects.filter(user=user).first()
        return who.get_role_display() if who else ""

    return {"role_name": SimpleLazyObject(name)}


def check(user: User, match_key: str) -> m.Match:
    """The match, or the page's 404 (absent and hidden alike)."""
    try:
        return access.check_match(user, match_key)
    except ServiceError as error:
        if error.code is not ErrorCode.NOT_FOUND:
            raise  # shown by middleware.PageErrors
        raise Http404(error.message) from None


@login_required
def matches(request: HttpRequest) -> HttpResponse:
    rows: list[dict[str, Any]] = []
    user = user_of(request)
    steward = access.profile(user).role == "steward"  # sees no requests at all
    for match in access.visible_matches(user):
        run = match.runs.order_by("-number").first()
        # Only the requests this user may see: a count would tell of others' too.
        seen = list(access.seen_requests(user, match).filter(revoked=""))
        decided = decisions.decided_in(run, seen)
        waiting = None if steward else sum(r.key not in decided for r in seen)
        found = board.fullest(run.output["usage"]) if run else None
        # For those who decide: the match changed since the run (a revoke, an admin edit).
        redo = run is not None and run.version != match.version and access.manages(user, match)
        rows.append({"match": match, "waiting": waiting, "fullest": found, "redo": redo})
    # Coming: not over yet (kick-off plus the end of the competition's last phase).
    now = timezone.now()
    coming = [r for r in rows if _ends(r["match"]) >= now]
    past = [r for r in rows if _ends(r["match"]) < now][::-1]  # the latest first
    sections = [
        ("Coming", coming, "No coming matches you may see."),
        ("Past", past, "No past matches you may see."),
    ]
    return render(request, "pitchpass/matches.html", context(request, sections=sections))


def _ends(match: m.Match) -> datetime:
    last = match.competition.phases.aggregate(end=Max("end"))["end"]
    return match.kickoff + timedelta(minutes=last if last is not None else 180)


@login_required
def match_board(request: HttpRequest, match_key: str) -> HttpResponse:
    return render_board(request, match_key)


def render_board(
    request: HttpRequest,
    match_key: str,
    error: ServiceError | None = None,
    typed: dict[str, str] | None = None,
    at_board: bool = False,
) -> HttpResponse:
    """The board; after a failed action, with its error and what was typed kept, and
    (`at_board`) the address bar set back to the board's URL, so a reload reads it."""
    user = user_of(request)
    match = check(user, match_key)
    visible = list(access.seen_requests(user, match))  # none for stewards
    run = match.runs.order_by("-number").first()
    by_request = decisions.decided_in(run, visible)  # not those changed since the run
    by_hand = {o["request"]: o["reason"] for o in (run.overrides if run else [])}
    filters = {k: request.GET.get(k, "") for k in ("status", "zone", "q")}
    try:
        incidents = _incidents(user, match)
    except ServiceError as broken:  # the match as stored no longer decides: say why
        incidents, error = [], error or broken
    zones = list(match.venue.zones.all())
    closes = entries.closes_at(match)
    stale = run is not None and decisions.changed_since_run(user, match, run)  # as theirs
    unpublished = {r.key for r in visible if not r.locked}
    published = decisions.published_keys(match)
    proposed = [
        d["request"]
        for d in (run.output["decisions"] if run else [])
        if d["status"] == Status.GRANTED and d["request"] not in published
    ]
    publishable = not stale and any(
        d["status"] == Status.GRANTED and key in unpublished for key, d in by_request.items()
    )
    rows = board.request_rows(visible, by_request, filters, by_hand)
    if access.manages(user, match) and run:
        # A match as stored that does not decide: the board says why (_incidents).
        with contextlib.suppress(ServiceError):
            _explain(match, run, rows)
    values = context(
        request,
        match=match,
        run=run,
        stale=stale,
        publishable=publishable,
        proposed=len(proposed),
        phases=list(match.competition.phases.values_list("key", flat=True)),
        phase_spans=list(match.competition.phases.values("key", "start", "end")),
        grid=board.grid(_usage(user, match, run)),
        policy=_policy(match),
        rows=rows,
        proposed_seen=sum(
            1 for row in rows if row["status"] == Status.GRANTED and not row["request"].locked
        ),
        dropped_by_decide=_in_effect(match) if access.manages(user, match) and run else [],
        filters=filters,
        statuses=board.STATUSES,
        zones=zones,
        manages=access.manages(user, match),
        occupied=_occupied_by(user, match, zones),
        consent_refused=_consent_refused(match),
        incidents=incidents,
        cameras=match.venue.cameras.select_related("zone", "operator"),
        closes=closes,
        open=closes is not None and timezone.now() <= closes,  # None: the match is broken
        access=_access(user, match, zones),
        error=error,
        typed=typed or {},
        address=reverse("pitchpass:board", args=[match.key]) if at_board else None,
        once=(typed or {}).get("once") or secrets.token_urlsafe(12),  # the incident form's
    )
    status = error.status if error else 200
    return render(request, "pitchpass/board.html", values, status=status)


def _policy(match: m.Match) -> dict[str, Any] | None:
    try:
        return decisions.policy_of(match)
    except ServiceError:  # the match as stored does not decide: the board says why
        return None


def _usage(user: User, match: m.Match, run: m.DecisionRun | None) -> list[dict[str, Any]]:
    """The grid: the run's proposal for those who manage the match; for everyone else the
    places published grants hold (none shown before the first decide)."""
    if run is None:
        return []
    if access.manages(user, match):
        usage: list[dict[str, Any]] = run.output["usage"]
        return usage
    try:
        return decisions.published_usage(match)
    except ServiceError:  # the match as stored does not decide: the board says why
        return []


def _explain(match: m.Match, run: m.DecisionRun, rows: list[dict[str, Any]]) -> None:
    """Beside each row, for those who manage the match: what stands in the way of a grant
    by hand (then the Override form offers no grant, and the board says what would make
    it work: a what-if with the places it needs, or revoking), and the grants by hand
    holding the places of a request refused for room."""
    found = decisions.desk(match, run)
    what_if_url = reverse("pitchpass:what-if", args=[match.key])
    for row in rows:
        key = row["request"].key
        row["crowded"] = found["crowded"].get(key, []) if row["status"] == Status.REFUSED else []
        blocked = found["blocked"].get(key)
        row["blocked"] = blocked
        if blocked and blocked["capacity"]:
            places = [(f"capacity:{k}", n) for k, n in blocked["capacity"].items()]
            query = [("grant", key), *places]
            row["what_if"] = f"{what_if_url}?{urlencode(query)}"


def _in_effect(match: m.Match) -> list[dict[str, str]]:
    """The overrides a decide would drop: those still in effect (none if the match as
    stored is broken: the board says so)."""
    try:
        return decisions.overrides_in_effect(match)
    except ServiceError:
        return []


def _incidents(user: User, match: m.Match) -> list[dict[str, Any]]:
    """The coverage of each incident, with what the log says of it and whose crews."""
    rows = {i.key: i for i in match.incidents.all()}
    names = dict(m.Organisation.objects.values_list("key", "name"))
    out = []
    for incident in decisions.coverage(user, match.key)["incidents"]:
        row = rows.get(incident["incident"])
        sources = [
            {**s, "name": names.get(s["org"] or "", s["org"])} for s in incident["covered_by"]
        ]
        minute = row.minute if row is not None else None
        football = entries.football_of(match, minute) if minute is not None else None
        if football and "+" not in football:  # plain minutes stay the clock's (SCENARIO.md)
            football = None
        out.append({**incident, "row": row, "covered_by": sources, "football": football})
    uncaught = {i["incident"] for i in out if not i["covered_by"]}
    if uncaught and access.profile(user).role != "steward":
        missed = decisions.missed(user, match, uncaught)
        what_if_url = reverse("pitchpass:what-if", args=[match.key])
        for incident in out:
            incident["missed"] = [
                {
                    **r,
                    "grant": f"{what_if_url}?{urlencode([('grant', r['request'])])}",
                    "room": f"{what_if_url}?"
                    + urlencode([(f"capacity:{k}", n) for k, n in r["capacity"].items()])
                    if r["capacity"]
                    else "",
                }
                for r in missed.get(incident["incident"], [])
            ]
    return out


def _access(user: User, match: m.Match, zones: list[m.Zone]) -> list[dict[str, Any]] | None:
    """The access list, for stewards and for those who manage the match."""
    if access.profile(user).role != "steward" and not access.manages(user, match):
        return None
    phases = list(match.competition.phases.values_list("key", flat=True))
    try:
        places = decisions.published_places(match)
    except ServiceError:  # the match as stored does not decide: the board says why
        return []
    return board.access_list(places, [z.key for z in zones], phases)


def _consent_refused(match: m.Match) -> set[str]:
    """The requests whose consent was last refused (or taken back) since they were sent
    as they are, as the audit log says: "refused" is not "not given yet"."""
    refused: set[str] = set()
    for target, action, after in (
        m.AuditEntry.objects.filter(match=match, action__in=("consent", "submit", "change"))
        .order_by("when", "pk")
        .values_list("target", "action", "after")
    ):
        if action == "consent" and not (after or {}).get("consent"):
            refused.add(target)
        else:  # given, or the request sent again as it now is: not refused (yet)
            refused.discard(target)
    return refused


def _occupied_by(user: User, match: m.Match, zones: list[m.Zone]) -> set[str]:
    """The zones whose consent this user gives: its club's own rooms (admin: all)."""
    who = access.profile(user)
    if who.role == "admin":
        return {z.key for z in zones if z.occupant}
    if who.role != "officer":
        return set()
    mine = who.organisation.key if who.organisation else None
    return {
        z.key
        for z in zones
        if mine and occupant_club(z.occupant, match.home.key, match.away.key) == mine
    }


@login_required
def room(request: HttpRequest, match_key: str) -> HttpResponse:
    """The live hint of the request form: the room left where and when it asks."""
    user = user_of(request)
    match = check(user, match_key)
    return render(request, "pitchpass/_room.html", room_hint(user, match, request.GET))


def room_hint(user: User, match: m.Match, typed: Any) -> dict[str, Any]:
    """The room left for what the request form holds: with every request as it stands,
    decided now, but for the one being changed (`changing`, if the user may see it)."""
    phases = typed.getlist("phases")
    crew = board.crew_size(str(typed.get("crew", "")))
    changing = typed.get("changing") or None
    if changing and not access.seen_requests(user, match).filter(key=changing).exists():
        changing = None
    zone = str(typed.get("zone", ""))
    cells = decisions.room(match, zone, phases, crew, changing) if zone and phases else []
    lines = board.room_lines(cells, crew)
    mine = access.profile(user).organisation
    consent = decisions.consent_needed(match, zone, mine.key if mine else None) if lines else None
    if consent:  # the core's own reason, as the request would be refused without it
        lines.insert(0, f"{consent} yet: its officer gives consent on the board; without it")
        lines[0] += " the request is refused"
    run = match.runs.order_by("-number").first()
    return {
        "lines": lines,
        "asked": bool(phases),
        "left_out": changing,
        "stale": run is not None and decisions.changed_since_run(user, match, run),
    }


@login_required
def what_if(request: HttpRequest, match_key: str) -> HttpResponse:
    """Tick requests to grant or refuse, change capacities, and see what would change."""
    user = user_of(request)
    match = check(user, match_key)
    if not access.manages(user, match):
        raise ServiceError(ErrorCode.FORBIDDEN, "only the home club's officer or an admin")
    # Posted from the panel, or asked by a link (the board's "what if there were room?"):
    # nothing is saved either way.
    asked = request.POST if request.method == "POST" else request.GET
    standing = decisions.standing(match)
    status = {d["request"]: d["status"] for d in standing["decisions"]}
    requests = list(match.requests.filter(revoked="").select_related("by", "zone"))
    capacities = [{**u, "name": f"capacity:{u['zone']}@{u['phase']}"} for u in standing["usage"]]
    values = context(
        request,
        match=match,
        requests=[
            {"request": r, "status": status.get(r.key, ""), "by_hand": r.key in standing["by_hand"]}
            for r in requests
        ],
        capacities=board.grid(capacities),
        phases=list(match.competition.phases.values_list("key", flat=True)),
        typed=asked,
        grant=set(asked.getlist("grant")),
        refuse=set(asked.getlist("refuse")),
    )
    if request.method == "POST" or asked:  # a link from the board asks at once
        try:
            body = _what_if_body(asked, standing["usage"])
            answer = decisions.what_if_for(user, match_key, body)
            names = {r.key: r.by.name for r in requests}
            values["story"] = board.what_if_story(answer, names, body["refuse"])
        except ServiceError as error:
            values["error"] = error
        except ValueError as error:
            values["error"] = ServiceError(ErrorCode.INVALID, str(error))
        if request.htmx:  # type: ignore[attr-defined]
            # 200 even with an error in it: htmx swaps in only successful answers. (The
            # whole page says an error once, at its top.)
            values["partial"] = True
            return render(request, "pitchpass/_what_if_result.html", values)
    return render(request, "pitchpass/what_if.html", values, status=_status(values))


def _status(values: dict[str, Any]) -> int:
    return values["error"].status if values.get("error") else 200


def _what_if_body(posted: Any, usage: list[dict[str, Any]]) -> dict[str, Any]:
    """The API's what-if body from the panel: ticked ids, and the capacities changed."""
    capacity = {}
    for u in usage:
        key = f"{u['zone']}@{u['phase']}"
        label = f"the places in {u['zone']}, {u['phase']}"
        typed = board.form_int(posted, f"capacity:{key}", u["capacity"], label)
        if typed is not None and typed != u["capacity"]:
            capacity[key] = typed
    return {
        "grant": posted.getlist("grant"),
        "refuse": posted.getlist("refuse"),
        "capacity": capacity,
    }
