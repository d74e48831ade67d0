"""Deciding a match and what follows: the proposal (decide, a numbered run), overrides by
hand, publishing (locking the grants), revoking; and reading it: the current decisions,
the match as it stands, the coverage of its incidents, what-if. Every change locks the
match first (changes.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from pitchpass.core import (
    Changes,
    ScenarioInvalid,
    apply_changes,
    decide_match,
    parse_capacity,
    what_if,
    what_if_json,
)
from pitchpass.core.policy import beyond_override, tier_of
from pitchpass.core.report import match_json
from pitchpass.web import access
from pitchpass.web import models as m
from pitchpass.web.changes import (
    audit,
    changed,
    check_manages,
    check_text,
    managed,
    scenario_of,
)
from pitchpass.web.errors import ErrorCode, ServiceError


def do_decide(user: User, match_key: str) -> dict[str, Any]:
    """Decide the match as stored (a proposal) and keep the run. Locks the match."""
    with transaction.atomic():
        match = managed(user, match_key)
        output = match_json(decide_match(scenario_of(match), match.key))
        run = _save_run(match, user, output, [])
        audit(user, "decide", match, f"run {run.number}", None, output)
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
    check_text(reason, "reason")

    if status not in ("granted", "refused"):
        raise ServiceError(
            ErrorCode.INVALID, f"{request_id}: status must be granted or refused", "status"
        )
    if not reason.strip():
        raise ServiceError(
            ErrorCode.INVALID, f"{request_id}: an override needs a written reason", "reason"
        )
    with transaction.atomic():
        match = managed(user, match_key)
        run = match.runs.order_by("-number").first()
        if run is None:
            raise ServiceError(ErrorCode.NOT_DECIDED, "decide the match before overriding")
        row = match.requests.filter(key=request_id).first()
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "request")
        if row.locked and status == "refused":
            raise ServiceError(
                ErrorCode.PUBLISHED, f"{request_id}: a published grant is revoked, not overridden"
            )
        if row.revoked:
            raise ServiceError(ErrorCode.CONFLICT, f"{request_id} was revoked: {row.revoked}")
        scenario = scenario_of(match)
        if status == "granted":
            _check_grantable(scenario, match.key, request_id)
        kept = _kept_overrides(match, scenario)  # not those withdrawn or lapsed since
        overrides = [o for o in kept if o["request"] != request_id]
        overrides.append({"request": request_id, "status": status, "reason": reason})
        try:
            result = what_if(scenario, _as_changes(overrides), [match.key])
        except ScenarioInvalid as invalid:
            message = _in_web_words(invalid.problems[0].message)
            raise ServiceError(ErrorCode.CONFLICT, f"{request_id}: {message}") from None
        output = match_json(result.after[0])
        output["decisions"] = _with_refusals(
            scenario, match.key, output["decisions"], _refusals(overrides)
        )
        before = next(
            (
                {"status": d["status"], "reasons": d["reasons"]}
                for d in run.output["decisions"]
                if d["request"] == request_id
            ),
            None,  # submitted since the run was made
        )
        _save_run(match, user, output, overrides)
        audit(user, "override", match, request_id, before, {"status": status, "reason": reason})
        return output


def _check_grantable(scenario: Any, match_key: str, request_id: str) -> None:
    """A grant by hand overrides the policy's order, room and deadline, never another's
    say (the core's `beyond_override`): a 409 naming what stands in the way."""
    reasons = _beyond_override(scenario, match_key, request_id)
    if reasons:
        raise ServiceError(
            ErrorCode.CONFLICT,
            f"{request_id}: {'; '.join(reasons)}; a grant by hand does not set that aside",
        )


def _beyond_override(scenario: Any, match_key: str, request_id: str) -> list[str]:
    match = scenario.match(match_key)
    venue = scenario.venue(match.venue)
    request = next(r for r in scenario.requests_of(match_key) if r.id == request_id)
    return [r.text for r in beyond_override(request, match, venue, scenario.policy)]


def _with_refusals(
    scenario: Any, match_key: str, decisions: list[dict[str, Any]], refusals: dict[str, str]
) -> list[dict[str, Any]]:
    """The decisions in document order, the requests refused by hand (id -> the officer's
    reason) put back as refused, in their tier, with the reason code `override`."""
    match = scenario.match(match_key)
    decided = {d["request"]: d for d in decisions}
    out = []
    for r in scenario.requests_of(match_key):
        if r.id in refusals:
            organisation = scenario.organisation(r.by)
            partners = scenario.competition.partners
            _, tier = tier_of(r, organisation, match, scenario.policy, partners)
            reason = {"code": OVERRIDE, "text": refusals[r.id]}
            out.append({"request": r.id, "status": "refused", "tier": tier, "reasons": [reason]})
        elif r.id in decided:
            out.append(decided[r.id])
    return out


def _in_web_words(message: str) -> str:
    """A core problem as the pages say it: a locked request is a published grant or a
    grant by hand (what-if --grant locks, as an override does)."""
    return message.replace("locked requests alone", "published grants and grants by hand alone")


def _refusals(overrides: list[dict[str, str]]) -> dict[str, str]:
    return {o["request"]: o["reason"] for o in overrides if o["status"] == "refused"}


def current_decisions(user: User, match_key: str) -> dict[str, Any]:
    """The newest run's output; media see their own organisation's decisions only. A
    request sent or changed since the run (or its consent) is not among its decisions but
    listed in `waiting`, with the new ones: the run decided it as it was."""
    match = access.check_match(user, match_key)
    run = match.runs.order_by("-number").first()
    if run is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "this match has not been decided yet")
    output = dict(run.output)
    visible = list(access.visible_requests(user, match))
    decided = decided_in(run, visible)
    output["decisions"] = [d for d in output["decisions"] if d["request"] in decided]
    output["waiting"] = [r.key for r in visible if r.key not in decided and not r.revoked]
    output["incidents"] = _hide_others(user, match, output["incidents"])
    return output


def decided_in(run: m.DecisionRun | None, requests: Any) -> dict[str, dict[str, Any]]:
    """The run's decision of each of these requests that it decided as they are now."""
    if run is None:
        return {}
    current = {r.key for r in requests if r.changed_in <= run.version}
    return {d["request"]: d for d in run.output["decisions"] if d["request"] in current}


def do_publish(user: User, match_key: str) -> list[str]:
    """Lock every grant of the current run: published grants stay granted whatever is
    decided later, until revoked. Locks the match; the ids newly published."""
    with transaction.atomic():
        match = managed(user, match_key)
        run = match.runs.order_by("-number").first()
        if run is None:
            raise ServiceError(ErrorCode.NOT_DECIDED, "decide the match before publishing")
        if run.version != match.version:
            raise ServiceError(
                ErrorCode.STALE_RUN,
                "the match changed since the last decide (a request, a consent, or its venue or"
                " competition data): decide again",
            )
        rows = match.requests.filter(decisions__run=run, decisions__status="granted", locked=False)
        newly = sorted(rows.values_list("key", flat=True))
        already = sorted(published_keys(match))
        m.Request.objects.filter(pk__in=[r.pk for r in rows]).update(locked=True)
        changed(match)
        # The run stays current: publishing locked its own grants and changed no decision.
        m.DecisionRun.objects.filter(pk=run.pk).update(version=match.version)
        audit(
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
    check_text(reason, "reason")
    if not reason.strip():
        raise ServiceError(ErrorCode.INVALID, "a revoke needs a written reason", "reason")
    with transaction.atomic():
        match = managed(user, match_key)
        row = match.requests.filter(key=request_id).first()
        if row is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'no request "{request_id}"', "id")
        if not row.locked:
            raise ServiceError(ErrorCode.CONFLICT, f'request "{request_id}" is not published')
        row.locked, row.revoked = False, reason.strip()
        row.save(update_fields=["locked", "revoked"])
        changed(match)
        # Out of every decision from now on: the run's decision of it no longer counts.
        m.Request.objects.filter(pk=row.pk).update(changed_in=match.version)
        audit(
            user, "revoke", match, request_id, {"locked": True}, {"locked": False, "reason": reason}
        )


def coverage(user: User, match_key: str) -> dict[str, Any]:
    """Who caught each incident, incidents logged since the run included.

    For those who manage the match: the match as it stands, with the current run's
    overrides. While the run is up to date this is its decisions; with no run, or
    requests changed since it, `if_decided_now` says that these are the crews that would
    be let in if decided now. For everyone else, only what is theirs to know, as decided:
    fixed cameras, their own requests granted in the current run (as they were then) and
    other organisations' crews once published (without request ids); nothing another
    organisation sends or withdraws changes it, and `if_decided_now` is true only before
    the first decide."""
    match = access.check_match(user, match_key)
    run = match.runs.order_by("-number").first()
    if access.manages(user, match):
        return {
            "match": match.key,
            "if_decided_now": run is None or run.version != match.version,
            "incidents": standing(match)["incidents"],
        }
    return {
        "match": match.key,
        "if_decided_now": run is None,
        "incidents": _hide_others(user, match, _as_known(user, match, run)),
    }


def _as_known(user: User, match: m.Match, run: m.DecisionRun | None) -> list[dict[str, Any]]:
    """The incidents' coverage with only the crews this user may know of: published
    grants and its own grants of the run (each request as the run decided it)."""
    scenario = scenario_of(match)
    there = [r.id for r in scenario.requests_of(match.key)]  # revoked ones are not
    seen = list(access.seen_requests(user, match))
    granted = {k for k, d in decided_in(run, seen).items() if d["status"] == "granted"}
    published = published_keys(match)
    own = [k for k in there if k in granted and k not in published]
    others = [k for k in there if k not in granted and k not in published]
    # Its own grants of the run, each while it still fits beside the published ones and
    # those before it (a capacity lowered since may leave no room for some).
    kept: list[str] = []
    for key in own:
        out = [k for k in others + own if k not in (*kept, key)]
        if _fits(scenario, Changes(grant=(*kept, key), refuse=tuple(out))):
            kept.append(key)
    known = apply_changes(
        scenario,
        Changes(grant=tuple(kept), refuse=tuple(others + [k for k in own if k not in kept])),
    )
    incidents: list[dict[str, Any]] = match_json(decide_match(known, match.key))["incidents"]
    return incidents


def changed_since_run(user: User, match: m.Match, run: m.DecisionRun | None) -> bool:
    """Whether the match changed since its newest run, as far as this user may know: for
    those who manage it, any change; for others, one of the requests they see (that
    others sent or withdrew requests is not theirs to learn)."""
    if run is None:
        return True
    if access.manages(user, match):
        return run.version != match.version
    return access.seen_requests(user, match).filter(changed_in__gt=run.version).exists()


def standing(match: m.Match, leaving_out: str | None = None) -> dict[str, Any]:
    """The match decided as it stands now, with the current run's overrides (the
    `decide --json` match object, requests refused by hand listed refused with the
    officer's reason); without the request `leaving_out` if given (one being changed).
    `by_hand` lists the requests whose override is in effect. Not filtered: callers show
    only what a user may see."""

    scenario = scenario_of(match)
    if leaving_out in {r.id for r in scenario.requests}:
        scenario = apply_changes(scenario, Changes(refuse=(leaving_out or "",)))
    kept = _kept_overrides(match, scenario)
    if not kept:
        return {**match_json(decide_match(scenario, match.key)), "by_hand": []}
    result = what_if(scenario, _as_changes(kept), [match.key])
    output = match_json(result.after[0])
    output["decisions"] = _with_refusals(scenario, match.key, output["decisions"], _refusals(kept))
    output["by_hand"] = [o["request"] for o in kept]
    return output


def _kept_overrides(match: m.Match, scenario: Any) -> list[dict[str, str]]:
    """The current run's overrides that still stand. An override is of a request as it
    was: one withdrawn, changed or given or refused consent since the run (a request sent
    again under the same id too) is decided afresh. A grant by hand also lapses when it no
    longer could be made (a zone closed since) or no longer fits beside the published
    grants (a capacity lowered); refusals by hand stay."""
    run = match.runs.order_by("-number").first()
    if run is None:
        return []
    as_run_saw = set(
        match.requests.filter(changed_in__lte=run.version).values_list("key", flat=True)
    )
    there = {r.id for r in scenario.requests_of(match.key)} & as_run_saw
    kept = [
        o
        for o in run.overrides
        if o["request"] in there
        and (o["status"] == "refused" or not _beyond_override(scenario, match.key, o["request"]))
    ]
    if _fits(scenario, _as_changes(kept)):
        return kept
    # Some grant no longer fits: keep the grants, in the order they were made, that fit
    # beside the published ones and the grants kept before them; the others lapse.
    fitting = [o for o in kept if o["status"] == "refused"]
    for grant in (o for o in kept if o["status"] == "granted"):
        if _fits(scenario, _as_changes([*fitting, grant])):
            fitting.append(grant)
    return [o for o in kept if o in fitting]  # in the order they were made


def _fits(scenario: Any, changes: Changes) -> bool:
    """Whether the changes can be made: what they lock fits beside the published grants."""
    try:
        apply_changes(scenario, changes)
    except ScenarioInvalid:
        return False
    return True


def overrides_in_effect(match: m.Match) -> list[dict[str, str]]:
    """The current run's overrides that a decide would drop: those that still stand (see
    `_kept_overrides`), but for grants by hand since published (they stand as published)."""
    published = published_keys(match)
    return [
        o
        for o in _kept_overrides(match, scenario_of(match))
        if not (o["status"] == "granted" and o["request"] in published)
    ]


def published_keys(match: m.Match) -> set[str]:
    """The ids of the match's published grants."""
    return set(match.requests.filter(locked=True).values_list("key", flat=True))


def _as_changes(overrides: list[dict[str, str]]) -> Changes:
    return Changes(
        grant=tuple(o["request"] for o in overrides if o["status"] == "granted"),
        refuse=tuple(o["request"] for o in overrides if o["status"] == "refused"),
    )


def _hide_others(user: User, match: m.Match, incidents: list[dict[str, Any]]) -> list[Any]:
    """For those who do not manage the match: fixed cameras, the requests they see, and
    another organisation's crew only once its grant is published (a proposal, or a
    request sent, is not theirs to learn of), without its request id."""
    if access.manages(user, match):
        return incidents
    own = set(access.seen_requests(user, match).values_list("key", flat=True))
    published = published_keys(match)

    def shown(source: dict[str, Any]) -> dict[str, Any] | None:
        if source["source"] != "request" or source["id"] in own:
            return source
        return {**source, "id": None} if source["id"] in published else None

    return [
        {**incident, "covered_by": [s for s in map(shown, incident["covered_by"]) if s]}
        for incident in incidents
    ]


def what_if_for(user: User, match_key: str, body: dict[str, Any]) -> dict[str, Any]:
    """`pitchpass what-if --json` for one stored match; changes nothing."""
    match = check_manages(user, match_key)
    for field in ("grant", "refuse"):
        ticked = [t for t in body.get(field) or () if isinstance(t, str)]
        revoked = match.requests.exclude(revoked="").filter(key__in=ticked)
        for row in revoked.order_by("position")[:1]:
            raise ServiceError(
                ErrorCode.CONFLICT,
                f"{row.key} was revoked ({row.revoked}): it is out of every decision",
                field,
            )
    scenario = scenario_of(match)
    try:
        changes = Changes(
            tuple(body.get("grant") or ()),
            tuple(body.get("refuse") or ()),
            tuple(
                parse_capacity(f"{k}={n}", "capacity")
                for k, n in (body.get("capacity") or {}).items()
            ),
        )
        # "Before" is the match as it stands, the current run's overrides in effect; the
        # ticks come on top of them (a tick wins over an override of the same request).
        kept = _kept_overrides(match, scenario)
        answer = what_if_json(what_if(scenario, changes, [match.key], base=_as_changes(kept)))
    except ScenarioInvalid as invalid:
        problem = invalid.problems[0]
        message = _in_web_words(problem.message)
        path = ", ".join(p.strip().lstrip("-") for p in problem.path.split(","))  # the body's
        raise ServiceError(ErrorCode.INVALID, message, path) from None
    # The result lists every request, as the board does: those refused by hand that no
    # tick grants are there as refused, with the officer's reason.
    standing = {k: v for k, v in _refusals(kept).items() if k not in changes.grant}
    result = answer["result"]["matches"][0]
    result["decisions"] = _with_refusals(scenario, match.key, result["decisions"], standing)
    return answer
