"""What users see of a match and do to it: the lists; submitting, changing and withdrawing
requests; deciding, overriding, publishing. Each `do_*` runs in one transaction that
first locks the match row (SELECT ... FOR UPDATE), so that two people acting on one match
at once are serialised and no zone is ever over-booked.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from pitchpass.core import Scenario, ScenarioInvalid, check_document, decide_match
from pitchpass.core.report import match_json
from pitchpass.web import access, store
from pitchpass.web import models as m
from pitchpass.web.errors import ErrorCode, ServiceError

REQUEST_FIELDS = ("id", "zone", "phases", "crew", "cameras", "consent")


def matches_for(user: User) -> list[dict[str, Any]]:
    """The matches the user may see, in kick-off order."""
    return [
        {
            "id": match.key,
            "competition": match.competition.key,
            "venue": match.venue.key,
            "home": match.home.key,
            "away": match.away.key,
            "kickoff": match.kickoff.isoformat(),
            "host": match.host.key if match.host else None,
        }
        for match in access.visible_matches(user)
    ]


def requests_for(user: User, match_key: str) -> list[dict[str, Any]]:
    """The match's requests the user may see, in SCENARIO.md's shape."""
    match = access.check_match(user, match_key)
    return [store.request_json(match.key, r) for r in access.visible_requests(user, match)]


def _locked(match: m.Match) -> m.Match:
    return m.Match.objects.select_for_update().get(pk=match.pk)


def _changed(match: m.Match) -> None:
    """Record that the match's decisions may now differ (the caller holds the lock)."""
    m.Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    match.version += 1


def _audit(user: User, action: str, match: m.Match, target: str, before: Any, after: Any) -> None:
    m.AuditEntry.objects.create(
        user=user, action=action, match=match, target=target, before=before, after=after
    )


def _scenario(match: m.Match) -> Scenario:
    """The core's scenario of the stored match; rows edited into nonsense are a conflict."""
    try:
        return store.scenario_of(match.key)
    except ScenarioInvalid as invalid:
        raise ServiceError(ErrorCode.CONFLICT, _stored_invalid(invalid.problems[0])) from None


def _stored_invalid(problem: Any) -> str:
    return f"the match as stored is not a valid scenario ({problem}); load its file again"


ID_LENGTH = 100  # the models' max_length for keys


def _check_id(value: str) -> str:
    """An id that can be stored and addressed in a URL."""
    if len(value) > ID_LENGTH:
        raise ServiceError(ErrorCode.INVALID, f"an id has at most {ID_LENGTH} characters", "id")
    if "/" in value:
        raise ServiceError(
            ErrorCode.INVALID, 'an id cannot hold "/" (URLs could not name it)', "id"
        )
    return value


def _check_text(value: Any, path: str = "") -> None:
    """No NUL character anywhere: PostgreSQL cannot store one in text, SQLite would."""
    if isinstance(value, str) and "\x00" in value:
        raise ServiceError(ErrorCode.INVALID, "text cannot hold a NUL character", path)
    if isinstance(value, dict):
        for key, item in value.items():
            _check_text(item, f"{path}.{key}".lstrip("."))
    if isinstance(value, list):
        for n, item in enumerate(value):
            _check_text(item, f"{path}[{n}]")


def _check_deadline(match: m.Match, now: datetime) -> None:
    deadline = _scenario(match).policy.deadline
    if now > match.kickoff - deadline:
        cutoff = (match.kickoff - deadline).isoformat(timespec="minutes")
        raise ServiceError(ErrorCode.DEADLINE_PASSED, f"requests closed at {cutoff}, the deadline")


def do_submit_request(user: User, match_key: str, body: dict[str, Any], now: datetime) -> str:
    """Add a request (media: for their own organisation; admin: for `by`); the core checks
    it against the match as stored. Locks the match."""
    _check_text(body)
    with transaction.atomic():
        match = _locked(access.check_match(user, match_key))
        by = _requester(user, body)
        _check_deadline(match, now)
        admin = access.profile(user).role == "admin"
        if body.get("consent") and not admin:
            raise ServiceError(
                ErrorCode.FORBIDDEN, "consent is given by the occupant club's officer", "consent"
            )
        request_id = _check_id(_request_id(match, by, body.get("id"), admin))
        if match.requests.filter(key=request_id).exists():
            raise ServiceError(ErrorCode.DUPLICATE, f'request "{request_id}" exists already', "id")
        entry = {k: body[k] for k in REQUEST_FIELDS if body.get(k) is not None}
        entry |= {"id": request_id, "match": match.key, "by": by, "submitted": now.isoformat()}
        _check_with_core(match, entry)
        row = m.Request.objects.create(
            match=match,
            key=request_id,
            by=m.Organisation.objects.get(key=by),
            zone=match.venue.zones.get(key=entry["zone"]),
            phases=list(entry["phases"]),
            crew=entry["crew"],
            cameras=entry.get("cameras", 1),
            submitted=now,
            submitted_offset=0,
            position=(match.requests.aggregate(n=Max("position"))["n"] or 0) + 1,
        )
        row.consent.set(m.Organisation.objects.filter(key__in=entry.get("consent", [])))
        _changed(match)
        _audit(user, "submit", match, request_id, None, store.request_json(match.key, row))
        return request_id


def _requester(user: User, body: dict[str, Any]) -> str:
    who = access.profile(user)
    if who.role == "media" and who.organisation is not None:
        if body.get("by") not in (None, who.organisation.key):
            raise ServiceError(ErrorCode.FORBIDDEN, "media users submit for their own organisation")
        return who.organisation.key
    if who.role == "admin":
        if not body.get("by"):
            raise ServiceError(ErrorCode.INVALID, "an admin names the requester in by", "by")
        return str(body["by"])
    who_they = {"officer": "club officers", "steward": "stewards"}.get(
        who.role, "users without a role"
    )
    raise ServiceError(ErrorCode.FORBIDDEN, f"{who_they} do not submit requests")


def _request_id(match: m.Match, by: str, wanted: Any, admin: bool) -> str:
    """Admins choose ids freely; others' ids start with their organisation's, so that a
    clash (409) can only ever be with their own requests, never tell of another's."""
    if admin and wanted:
        return str(wanted)
    prefix = f"{by}."
    if wanted:
        return prefix + str(wanted)
    taken = set(match.requests.filter(key__startswith=prefix).values_list("key", flat=True))
    return _free_id(prefix, taken)


def _free_id(prefix: str, taken: set[str]) -> str:
    """The prefix and the first number that makes an id not taken yet."""
    number = 1
    while f"{prefix}{number}" in taken:
        number += 1
    return f"{prefix}{number}"


def _check_with_core(match: m.Match, entry: dict[str, Any]) -> None:
    """The stored match plus the new request must be a valid scenario; the first problem
    of the new request is reported with its field as the path."""
    document = store.export(match.key)
    named = {entry["by"], *entry.get("consent", [])}
    known = {o["id"] for o in document["organisations"]}
    extra = m.Organisation.objects.filter(key__in=named - known)
    document["organisations"] += [{"id": o.key, "name": o.name, "kind": o.kind} for o in extra]
    _check_entry(document, "requests", entry)


def _check_entry(document: dict[str, Any], section: str, entry: dict[str, Any]) -> None:
    """Put `entry` in `section` (in the place of the entry with its id, else last) and let
    the core validate the whole; a problem of the entry comes back with its own field as
    the path."""
    entries = document[section]
    place = next((n for n, e in enumerate(entries) if e["id"] == entry["id"]), len(entries))
    old = entries[place : place + 1]
    entries[place : place + 1] = [entry]
    _, problems, _ = check_document(document)
    if problems:
        prefix = f"{section}[{place}]"
        own = [p for p in problems if _within(p.path, prefix)]
        if not own:
            entries[place : place + 1] = old
            if check_document(document)[1]:  # the match as stored is at fault, not the entry
                raise ServiceError(ErrorCode.CONFLICT, _stored_invalid(problems[0]))
            own = problems
        path = own[0].path.removeprefix(prefix).lstrip(".")
        raise ServiceError(ErrorCode.INVALID, own[0].message, path)


def _within(path: str, prefix: str) -> bool:
    """Whether `path` is `prefix` or under it (`requests[3].zone`; not `requests[30]`)."""
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


def do_withdraw_request(user: User, match_key: str, request_id: str, now: datetime) -> None:
    """Remove a request of the user's organisation (admin: any) before the deadline.
    Locks the match. Another organisation's request is "not found", as if absent."""
    with transaction.atomic():
        match = _locked(access.check_match(user, match_key))
        who = access.profile(user)
        row = _own_request(user, match, request_id)
        if row.locked:
            raise ServiceError(ErrorCode.PUBLISHED, "a published grant is revoked, not withdrawn")
        if who.role != "admin":
            _check_deadline(match, now)
        before = store.request_json(match.key, row)
        row.delete()
        _changed(match)
        _audit(user, "withdraw", match, request_id, before, None)


CHANGE_FIELDS = ("zone", "phases", "crew", "cameras", "consent")


def do_change_request(
    user: User, match_key: str, request_id: str, body: dict[str, Any], now: datetime
) -> dict[str, Any]:
    """Change a request's zone, phases, crew or cameras (admin: also consent) before the
    deadline (admins after it too, as for withdrawing). The changed request replaces the
    old one and counts as submitted now: a change never keeps an earlier place in the
    first-come order. A change of zone drops the consent given for the old zone. Locks
    the match; another organisation's request is "not found", as if absent."""
    _check_text(body)
    changes = {k: body[k] for k in CHANGE_FIELDS if body.get(k) is not None}
    if not changes:
        raise ServiceError(ErrorCode.INVALID, f"change one of {', '.join(CHANGE_FIELDS)}")
    with transaction.atomic():
        match = _locked(access.check_match(user, match_key))
        who = access.profile(user)
        admin = who.role == "admin"
        if not admin and who.role != "media":
            raise ServiceError(ErrorCode.FORBIDDEN, "media users change their own requests")
        if "consent" in changes and not admin:
            raise ServiceError(
                ErrorCode.FORBIDDEN, "consent is given by the occupant club's officer", "consent"
            )
        row = _own_request(user, match, request_id)
        if row.locked:
            raise ServiceError(ErrorCode.PUBLISHED, "a published grant is revoked, not changed")
        if row.revoked:
            raise ServiceError(ErrorCode.CONFLICT, f"it was revoked ({row.revoked}): withdraw it")
        if not admin:
            _check_deadline(match, now)
        before = store.request_json(match.key, row)
        entry = {k: v for k, v in before.items() if k != "locked"} | changes
        entry["submitted"] = now.isoformat()
        if entry["zone"] != before["zone"] and "consent" not in changes:
            entry.pop("consent", None)
        _check_with_core(match, entry)
        row.zone = match.venue.zones.get(key=entry["zone"])
        row.phases = list(entry["phases"])
        row.crew = entry["crew"]
        row.cameras = entry["cameras"]
        row.submitted = now
        row.submitted_offset = 0
        row.save()
        row.consent.set(m.Organisation.objects.filter(key__in=entry.get("consent", [])))
        after = store.request_json(match.key, row)
        _changed(match)
        _audit(user, "change", match, request_id, before, after)
        return after


def _own_request(user: User, match: m.Match, request_id: str) -> m.Request:
    """The request, if it is the user's organisation's (admin: any); else "not found"."""
    who = access.profile(user)
    rows = match.requests.select_related("by", "zone").filter(key=request_id)
    if who.role != "admin":
        rows = rows.filter(by=who.organisation)
    row = rows.first()
    if row is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")
    return row


def do_decide(user: User, match_key: str) -> dict[str, Any]:
    """Decide the match as stored (a proposal) and keep the run. Locks the match."""
    with transaction.atomic():
        match = _managed(user, match_key)
        output = match_json(decide_match(_scenario(match), match.key))
        run = _save_run(match, user, output, [])
        _audit(user, "decide", match, f"run {run.number}", None, output)
        return output


def _save_run(
    match: m.Match, user: User, output: dict[str, Any], overrides: list[dict[str, str]]
) -> m.DecisionRun:
    number = (match.runs.aggregate(n=Max("number"))["n"] or 0) + 1
    run = m.DecisionRun.objects.create(
        match=match,
        number=number,
        version=match.version,
        output=output,
        overrides=overrides,
        made_by=user,
    )
    rows = {r.key: r for r in match.requests.all()}
    m.Decision.objects.bulk_create(
        m.Decision(
            run=run,
            request=rows[d["request"]],
            status=d["status"],
            tier=d["tier"],
            reasons=d["reasons"],
        )
        for d in output["decisions"]
    )
    return run


OVERRIDE = "override"  # the reason code of a refusal an officer made by hand


def do_override(
    user: User, match_key: str, request_id: str, status: str, reason: str
) -> dict[str, Any]:
    """Change one decision of the current proposal by hand, with a written reason. A grant
    is made as `what-if --grant` makes it (others may be bumped; it must fit beside the
    published grants); a refusal as `--refuse`, then listed refused with the reason.
    Overrides made before stay in effect until the next `decide`. Locks the match."""
    _check_text(reason, "reason")
    from pitchpass.core import Changes, ScenarioInvalid, what_if

    if status not in ("granted", "refused"):
        raise ServiceError(ErrorCode.INVALID, "status must be granted or refused", "status")
    if not reason.strip():
        raise ServiceError(ErrorCode.INVALID, "an override needs a written reason", "reason")
    with transaction.atomic():
        match = _managed(user, match_key)
        run = match.runs.order_by("-number").first()
        if run is None:
            raise ServiceError(ErrorCode.NOT_DECIDED, "decide the match before overriding")
        row = match.requests.filter(key=request_id).first()
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "request")
        if row.locked and status == "refused":
            raise ServiceError(ErrorCode.PUBLISHED, "a published grant is revoked, not overridden")
        if row.revoked:
            raise ServiceError(ErrorCode.CONFLICT, f"{request_id} was revoked: {row.revoked}")
        overrides = [o for o in run.overrides if o["request"] != request_id]
        overrides.append({"request": request_id, "status": status, "reason": reason})
        grants = tuple(o["request"] for o in overrides if o["status"] == "granted")
        refusals = tuple(o["request"] for o in overrides if o["status"] == "refused")
        scenario = _scenario(match)
        try:
            result = what_if(scenario, Changes(grant=grants, refuse=refusals), [match.key])
        except ScenarioInvalid as invalid:
            raise ServiceError(ErrorCode.CONFLICT, invalid.problems[0].message) from None
        output = match_json(result.after[0])
        output["decisions"] = _with_refusals(result.before[0], output["decisions"], overrides)
        before = next(
            (
                {"status": d["status"], "reasons": d["reasons"]}
                for d in run.output["decisions"]
                if d["request"] == request_id
            ),
            None,  # submitted since the run was made
        )
        _save_run(match, user, output, overrides)
        _audit(user, "override", match, request_id, before, {"status": status, "reason": reason})
        return output


def _with_refusals(
    before: Any, decisions: list[dict[str, Any]], overrides: list[dict[str, str]]
) -> list[dict[str, Any]]:
    """The decisions in document order, the requests refused by hand put back as refused."""
    by_hand = {o["request"]: o["reason"] for o in overrides if o["status"] == "refused"}
    decided = {d["request"]: d for d in decisions}
    out = []
    for d in before.decisions:
        request_id = d.request.id
        if request_id in by_hand:
            reason = {"code": OVERRIDE, "text": by_hand[request_id]}
            out.append({"request": request_id, "status": "refused", "tier": d.tier,
                        "reasons": [reason]})  # fmt: skip
        else:
            out.append(decided[request_id])
    return out


def current_decisions(user: User, match_key: str) -> dict[str, Any]:
    """The newest run's output; media see their own organisation's decisions only."""
    match = access.check_match(user, match_key)
    run = match.runs.order_by("-number").first()
    if run is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "this match has not been decided yet")
    output = dict(run.output)
    visible = {r.key for r in access.visible_requests(user, match)}
    output["decisions"] = [d for d in output["decisions"] if d["request"] in visible]
    output["incidents"] = _hide_others(user, match, output["incidents"])
    return output


def _managed(user: User, match_key: str) -> m.Match:
    """The match, locked, if the user manages it (home club's officer, admin)."""
    return _locked(_check_manages(user, match_key))


def _check_manages(user: User, match_key: str) -> m.Match:
    match = access.check_match(user, match_key)
    if not access.manages(user, match):
        raise ServiceError(ErrorCode.FORBIDDEN, "only the home club's officer or an admin")
    return match


def do_publish(user: User, match_key: str) -> list[str]:
    """Lock every grant of the current run: published grants stay granted whatever is
    decided later, until revoked. Locks the match; the ids newly published."""
    with transaction.atomic():
        match = _managed(user, match_key)
        run = match.runs.order_by("-number").first()
        if run is None:
            raise ServiceError(ErrorCode.NOT_DECIDED, "decide the match before publishing")
        if run.version != match.version:
            raise ServiceError(
                ErrorCode.STALE_RUN, "requests changed since the last decide: decide again"
            )
        rows = match.requests.filter(decisions__run=run, decisions__status="granted", locked=False)
        newly = sorted(rows.values_list("key", flat=True))
        already = sorted(match.requests.filter(locked=True).values_list("key", flat=True))
        m.Request.objects.filter(pk__in=[r.pk for r in rows]).update(locked=True)
        _changed(match)
        # The run stays current: publishing locked its own grants and changed no decision.
        m.DecisionRun.objects.filter(pk=run.pk).update(version=match.version)
        _audit(
            user,
            "publish",
            match,
            f"run {run.number}",
            {"published": already},
            {"published": sorted([*already, *newly]), "newly": newly},
        )
        return newly


def do_revoke(user: User, match_key: str, request_id: str, reason: str) -> None:
    """Take back a published grant, with a written reason. The request is then out of
    every decision (refused, with that reason, on the board) until withdrawn; its places
    go to others at the next decide. Locks the match."""
    _check_text(reason, "reason")
    if not reason.strip():
        raise ServiceError(ErrorCode.INVALID, "a revoke needs a written reason", "reason")
    with transaction.atomic():
        match = _managed(user, match_key)
        row = match.requests.filter(key=request_id).first()
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")
        if not row.locked:
            raise ServiceError(ErrorCode.CONFLICT, f'request "{request_id}" is not published')
        row.locked, row.revoked = False, reason.strip()
        row.save(update_fields=["locked", "revoked"])
        _changed(match)
        _audit(
            user, "revoke", match, request_id, {"locked": True}, {"locked": False, "reason": reason}
        )


def do_consent(user: User, match_key: str, request_id: str, given: bool) -> None:
    """The occupant club's officer gives or takes back consent for a crew in its own
    dressing room. A request the user may not see is "not found", as if absent (the
    occupant's officer sees those in its zones). Locks the match."""
    with transaction.atomic():
        match = _locked(access.check_match(user, match_key))
        who = access.profile(user)
        row = access.seen_requests(user, match).filter(key=request_id).first()
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")
        occupant = {"home": match.home, "away": match.away}.get(row.zone.occupant)
        if occupant is None:
            raise ServiceError(ErrorCode.CONFLICT, f"{row.zone.key} belongs to no club")
        if who.role not in ("admin", "officer") or (
            who.role == "officer" and who.organisation_id != occupant.pk
        ):
            raise ServiceError(ErrorCode.FORBIDDEN, f"only {occupant.key}'s officer consents here")
        before = sorted(row.consent.values_list("key", flat=True))
        if given:
            row.consent.add(occupant)
        else:
            row.consent.remove(occupant)
        after = sorted(row.consent.values_list("key", flat=True))
        if after != before:
            _changed(match)
        _audit(user, "consent", match, request_id, {"consent": before}, {"consent": after})


INCIDENT_FIELDS = ("id", "zone", "minute", "at", "what")


def do_log_incident(user: User, match_key: str, body: dict[str, Any]) -> str:
    """Stewards, officers and admins log what happened; the core checks it. Locks the match."""
    _check_text(body)
    with transaction.atomic():
        match = _locked(access.check_match(user, match_key))
        if access.profile(user).role not in ("steward", "officer", "admin"):
            raise ServiceError(ErrorCode.FORBIDDEN, "stewards, officers and admins log incidents")
        taken = set(match.incidents.values_list("key", flat=True))
        incident_id = _check_id(str(body.get("id") or _free_id("incident-", taken)))
        if incident_id in taken:
            raise ServiceError(
                ErrorCode.DUPLICATE, f'incident "{incident_id}" exists already', "id"
            )
        entry = {k: body[k] for k in INCIDENT_FIELDS if body.get(k) is not None}
        entry |= {"id": incident_id, "match": match.key}
        _check_entry(store.export(match.key), "incidents", entry)
        _check_instant(entry.get("at"))
        store.add_incident(match, entry)
        _audit(user, "incident", match, incident_id, None, entry)
        return incident_id


def _check_instant(at: Any) -> None:
    """A time the database can keep: in UTC within years 1 to 9999 (Python's calendar)."""
    try:
        instant = store.moment(at)
        if instant is not None:
            instant.astimezone(UTC)
    except (OverflowError, ValueError):
        raise ServiceError(ErrorCode.INVALID, "at is outside the calendar", "at") from None


def coverage(user: User, match_key: str) -> dict[str, Any]:
    """Who caught each incident: the match as it stands, with the current run's overrides
    (so it agrees with /decisions), incidents logged since included."""
    match = access.check_match(user, match_key)
    incidents = standing(match)["incidents"]
    return {"match": match.key, "incidents": _hide_others(user, match, incidents)}


def standing(match: m.Match) -> dict[str, Any]:
    """The match decided as it stands now, with the current run's overrides (the
    `decide --json` match object). Not filtered: callers show only what a user may see."""
    from pitchpass.core import what_if

    scenario = _scenario(match)
    changes = _overrides(match, scenario)
    if changes.grant or changes.refuse:
        result = what_if(scenario, changes, [match.key]).after[0]
    else:
        result = decide_match(scenario, match.key)
    return match_json(result)


def _overrides(match: m.Match, scenario: Any, grant: Any = (), refuse: Any = ()) -> Any:
    """The current run's overrides as what-if changes, for the requests still there; a
    request in `grant` or `refuse` (a what-if's own ticks) is left to those."""
    from pitchpass.core import Changes

    run = match.runs.order_by("-number").first()
    there = {r.id for r in scenario.requests}
    mine = set(grant) | set(refuse)
    kept = [o for o in (run.overrides if run else []) if o["request"] in there - mine]
    return Changes(
        grant=tuple(o["request"] for o in kept if o["status"] == "granted"),
        refuse=tuple(o["request"] for o in kept if o["status"] == "refused"),
    )


def _hide_others(user: User, match: m.Match, incidents: list[dict[str, Any]]) -> list[Any]:
    """Whose camera caught an incident is for all to see; which request it was only for
    those who may see that request (its id is left out for the others)."""
    if access.manages(user, match):
        return incidents
    own = set(access.seen_requests(user, match).values_list("key", flat=True))
    return [
        {
            **incident,
            "covered_by": [
                s if s["source"] != "request" or s["id"] in own else {**s, "id": None}
                for s in incident["covered_by"]
            ],
        }
        for incident in incidents
    ]


def what_if_for(user: User, match_key: str, body: dict[str, Any]) -> dict[str, Any]:
    """`pitchpass what-if --json` for one stored match; changes nothing."""
    from pitchpass.core import (
        Changes,
        ScenarioInvalid,
        apply_changes,
        parse_capacity,
        what_if,
        what_if_json,
    )

    match = _check_manages(user, match_key)
    scenario = _scenario(match)
    try:
        changes = Changes(
            tuple(body.get("grant") or ()),
            tuple(body.get("refuse") or ()),
            tuple(
                parse_capacity(f"{k}={n}", "capacity")
                for k, n in (body.get("capacity") or {}).items()
            ),
        )
        # "Before" is the match as it stands: the current run's overrides in effect.
        base = _overrides(match, scenario, changes.grant, changes.refuse)
        if base.grant or base.refuse:
            scenario = apply_changes(scenario, base)
        return what_if_json(what_if(scenario, changes, [match.key]))
    except ScenarioInvalid as invalid:
        problem = invalid.problems[0]
        raise ServiceError(ErrorCode.INVALID, problem.message, problem.path.lstrip("-")) from None


def export_for(user: User, match_key: str) -> dict[str, Any]:
    match = _check_manages(user, match_key)
    return store.export(match.key)
