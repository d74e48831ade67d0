"""Deciding a match and what follows: the proposal (decide, a numbered run), overrides by
hand, publishing (locking the grants), revoking; and reading it: the current decisions,
the match as it stands, the coverage of its incidents, what-if. Every change locks the
match first (changes.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from pitchpass.core import (
    Changes,
    ScenarioInvalid,
    apply_changes,
    decide_match,
    load_document,
    parse_capacity,
    what_if_json,
)
from pitchpass.core.codes import Mode, ReasonCode, Status
from pitchpass.core.deciding.overrides import (
    ByHand,
    Overridden,
    Override,
    crowding,
    decide_overridden,
    grant_blockers,
    only_if,
    what_if_overridden,
    without_room,
)
from pitchpass.core.deciding.overrides import standing as standing_overrides
from pitchpass.core.deciding.places import footprint
from pitchpass.core.deciding.policy import needs_consent
from pitchpass.core.deciding.reasons import Reason, places_to_fit
from pitchpass.core.deciding.room import Room, room_for
from pitchpass.core.explaining.coverage import would_have_caught
from pitchpass.core.explaining.fairness import (
    RankedAfter,
    full_cells,
    its_tier_or_below,
    ranked_after,
)
from pitchpass.core.explaining.report import match_json
from pitchpass.core.match_day.record import HOLDS, Entry, State, publish_fits, shown, to_publish
from pitchpass.core.match_day.record import usage as record_usage
from pitchpass.core.match_day.release import at_publish as release_at_publish
from pitchpass.core.match_day.release import exempt_tiers
from pitchpass.core.model import Scenario
from pitchpass.core.season.season_rules import names_of, quotas_over
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import passes, store
from pitchpass.web.persistence.audit import audit
from pitchpass.web.persistence.changes import changed, check_text, recorded
from pitchpass.web.services import access, doors, notices, times, waitlist
from pitchpass.web.services.access import check_manages, managed
from pitchpass.web.services.snapshot import (
    document_of,
    frame_scenario,
    once,
    requests_of,
    scenario_from,
    scenario_of,
)


def do_decide(user: User, match_key: str) -> dict[str, Any]:
    """Decide the match as stored (a proposal) and keep the run. Locks the match."""
    with transaction.atomic():
        match = managed(user, match_key)
        document = document_of(match)  # read once: decided from, and its fingerprint of it
        output = match_json(decide_match(scenario_from(match, document), match.key))
        run = save_run(match, user, output, [], decided_from=document)
        audit(user, "decide", match, f"run {run.number}", None, output)
        return output


def save_run(
    match: m.Match, user: User, output: dict[str, Any], overrides: list[dict[str, str]],
    together: Sequence[str] = (), batch: str = "", decided_from: dict[str, Any] | None = None,
) -> m.DecisionRun:  # fmt: skip
    """Keep a run of the match (its decisions too) and tell what it changed. Under season
    rules its fingerprint of the season (`store.held_digest`) is read from `decided_from`,
    the export it was decided from, where given."""
    number = (match.runs.aggregate(n=Max("number"))["n"] or 0) + 1
    rows = {r.key: r for r in match.requests.select_related("zone")}
    record = waitlist.record_of(match)
    before = match.runs.order_by("-number").first()
    run = m.DecisionRun.objects.create(
        match=match,
        number=number,
        version=match.version,
        output=output,
        overrides=overrides,
        # held when it was made: the published grants and the offers open
        locked=sorted(key for key, e in record.items() if e.state in HOLDS),
        made_by=user,
        # What the season held elsewhere when it was decided (season_changed below).
        season_held=store.held_digest(match, together=together, document=decided_from)
        if match.competition.season is not None
        else "",
        together=list(together),
        batch=batch,
    )
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
    # Only of what a run decides: a request the record decides is told by its event.
    notices.after_run(match, before, output, rows, decided_by_record(record))
    return run


def do_override(
    user: User, match_key: str, request_id: str, status: ByHand, reason: str
) -> dict[str, Any]:
    """Change one decision of the current proposal by hand, with a written reason: the
    core's overrides (docs/scenario-extensions.md). A grant is made as `what-if --grant`
    makes it (others may be bumped) and only where it can be: a zone closed on the way or
    a club's own room without its consent is `cannot-override`, no room beside the
    published grants and the other grants by hand `no-room` (as what-if says it). A
    refusal is made as `--refuse`, then listed refused with the reason. Overrides made
    before stay in effect until the next `decide`. Locks the match."""
    check_text(reason, "reason")
    # `status` is granted or refused: checked where it comes in (the API's OverrideIn,
    # the board's OverrideForm), not again here.
    if not reason.strip():
        raise ServiceError(
            ErrorCode.INVALID, f"{request_id}: an override needs a written reason", "reason"
        )
    with transaction.atomic():
        match = managed(user, match_key)
        run = latest_run(match)
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
        if request_id in waitlist.offered(match):
            raise ServiceError(
                ErrorCode.CONFLICT,
                f"{request_id} has been offered a place and holds it until its crew answers or"
                " the offer lapses: it is decided by hand after that",
            )
        scenario = scenario_of(match)
        kept = _kept_overrides(match, scenario)  # not those withdrawn or lapsed since
        if status == "granted":
            check_grant(scenario, match.key, kept, request_id)
        overrides = [o for o in kept if o.request != request_id]
        overrides.append(Override(request_id, Status(status), reason))
        output = match_json(decide_overridden(scenario, match.key, overrides).result)
        before = next(
            (
                {"status": d["status"], "reasons": d["reasons"]}
                for d in run.output["decisions"]
                if d["request"] == request_id
            ),
            None,  # submitted since the run was made
        )
        save_run(match, user, output, [_stored(o) for o in overrides])
        audit(user, "override", match, request_id, before, {"status": status, "reason": reason})
        return output


def check_grant(
    scenario: Scenario,
    match_key: str,
    kept: list[Override],
    request_id: str,
    room_only: bool = False,
) -> None:
    """A grant by hand of the request on top of the `kept` overrides, or a 409 that
    names what stands in the way and what would make it work. What-if checks its ticked
    grants with `room_only` (it answers the others "only if")."""
    blockers = grant_blockers(scenario, match_key, kept, request_id)
    beyond = [r for r in blockers if r.code is not ReasonCode.CAPACITY]
    if beyond and not room_only:
        raise ServiceError(
            ErrorCode.CANNOT_OVERRIDE,
            f"{request_id}: {'; '.join(r.text for r in beyond)}; a grant by hand does not"
            " set that aside",
        )
    full = [r for r in blockers if r.code is ReasonCode.CAPACITY]
    if full:
        raise _no_room(request_id, full)


def _no_room(request_id: str, full: Sequence[Reason], path: str = "") -> ServiceError:
    """A grant by hand (an override's or a what-if's) with no room, in the same words."""
    more = ", ".join(f"{z}@{p}={n}" for (z, p), n in places_to_fit(full).items())
    return ServiceError(
        ErrorCode.NO_ROOM,
        f"{request_id}: {'; '.join(r.text for r in full)}: a grant by hand must fit beside"
        f" the published grants and the other grants by hand; revoke one there, or add"
        f" places (capacity {more})",
        path,
    )


def current_decisions(user: User, match_key: str) -> dict[str, Any]:
    """The newest run's output; media see their own organisation's decisions only. A
    request sent or changed since the run (or its consent) is not among its decisions but
    listed in `waiting`, with the new ones: the run decided it as it was. Its `usage` is
    the board's grid: the places the match day's record holds (with the run's grants of
    the open requests for those who manage the match; published places only for others)."""
    match = access.check_match(user, match_key)
    run = latest_run(match)
    if run is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "this match has not been decided yet")
    output = dict(run.output)
    manages = access.manages(user, match)
    output["usage"] = proposal_usage(match, run) if manages else published_usage(match, run)
    visible = list(access.visible_requests(user, match))
    shown = as_recorded(match, run, visible)
    output["decisions"] = [
        {"request": r.key, **shown[r.key]} for r in visible if shown[r.key]["state"] != "waiting"
    ]
    output["waiting"] = [r.key for r in visible if shown[r.key]["state"] == "waiting"]
    # Who catches each incident as the decisions say now (the record over the run), as
    # GET /coverage says it: the run's own coverage was of the places as it decided them.
    caught = _as_shown(match, run) if manages else _as_known(user, match, run)
    output["incidents"] = _hide_others(user, match, caught)
    return output


def as_recorded(
    match: m.Match, run: m.DecisionRun | None, requests: Sequence[m.Request]
) -> dict[str, dict[str, Any]]:
    """Each of `requests` as every view shows it (core.record.shown): the match day's
    record over the run's decision of it (status, tier, reasons, state)."""
    record = waitlist.record_of(match)
    decided = decided_in(run, requests)
    published = run is not None and run.published is not None
    out = {}
    for r in requests:
        decision = decided.get(r.key)
        if decision is not None:
            decision = {k: v for k, v in decision.items() if k != "request"}
        out[r.key] = shown(record.get(r.key, Entry(State.OPEN)), decision, published)
    return out


def still_open(match: m.Match) -> set[str]:
    """The match's requests that the runs decide: nothing published or offered of them,
    none declined, lapsed, released or revoked (the match day's record decides those)."""
    return {key for key, e in waitlist.record_of(match).items() if e.state is State.OPEN}


def decided_by_record(record: dict[str, Entry]) -> set[str]:
    """The requests whose state the match day's record decides, not a run."""
    return {key for key, e in record.items() if e.state is not State.OPEN}


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
        run = latest_run(match)
        if run is None:
            raise ServiceError(ErrorCode.NOT_DECIDED, "decide the match before publishing")
        if run.version != match.version:
            raise ServiceError(
                ErrorCode.STALE_RUN,
                "the match changed since the last decide (a request, a consent, or its venue"
                " or competition data): decide again",
            )
        _check_bar_unchanged(match, run)
        why = season_changed(match, run)
        if why is not None:
            raise ServiceError(ErrorCode.STALE_RUN, f"{why}: decide again")
        granted = match.requests.filter(decisions__run=run, decisions__status=Status.GRANTED)
        # Only the grants still open: published ones are, an offer is when accepted.
        newly = to_publish(granted.values_list("key", flat=True), waitlist.record_of(match))
        _check_fits(match, newly)
        _check_season(match, newly)
        already = sorted(published_keys(match))
        m.Request.objects.filter(match=match, key__in=newly).update(
            locked=True, granted_at=timezone.now()
        )
        passes.make_passes(match.requests.filter(key__in=newly))
        changed(match)
        notices.after_publish(match, run, newly)
        # The run stays current: publishing locked its own grants and changed no decision.
        m.DecisionRun.objects.filter(pk=run.pk).update(
            version=match.version, published=timezone.now()
        )
        waitlist.queue_match_day(match)  # the worker keeps the release times and the waitlist
        audit(
            user,
            "publish",
            match,
            f"run {run.number}",
            {"published": already},
            {"published": sorted([*already, *newly]), "newly": newly},
        )
        return newly


def _check_fits(match: m.Match, newly: list[str]) -> None:
    """The grants about to be published fit beside what the match day's record holds
    now (an offer accepted or made since the run may have taken their places): else a
    409 naming each zone and phase, its places and who is there."""
    problems = publish_fits(scenario_of(match), match.key, newly)
    if problems:
        said = "; ".join(p.message.replace("locked requests alone", "these") for p in problems)
        raise ServiceError(
            ErrorCode.NO_ROOM,
            f"places taken on match day since the last decide: {said}; decide again to give"
            " the places left to the requests still open",
        )


def _check_season(match: m.Match, newly: list[str]) -> None:
    """Under season rules, the grants about to be published keep every quota they count
    for within its limit beside what the season holds now: checked holding the lock of
    the competition's row (two officers publishing two of its matches take turns, so both
    cannot take a quota's last place), with the season read after it. Else a 409 naming
    the quota, where the season stands and who counts (core.season_rules.quotas_over)."""
    competition = match.competition
    if competition.season is None or not newly:
        return
    m.Competition.objects.select_for_update().filter(pk=competition.pk).first()
    scenario = load_document(store.export(match.key))  # after the lock: the season now
    held = {r.id for r in scenario.requests if r.locked} | set(newly)
    rules = scenario.policy.season
    over = quotas_over(scenario, held, newly)
    if over and rules is not None:
        names = names_of(scenario)
        said = "; ".join(f"{o.text(rules, names)} ({', '.join(o.requests)})" for o in over)
        raise ServiceError(
            ErrorCode.QUOTA,
            f"publishing would go past the season's rules: {said}. Another match of the"
            " season was published since this decide: decide again",
        )


def _check_bar_unchanged(match: m.Match, run: m.DecisionRun) -> None:
    """The no-show bar depends on the competition's other matches (a no-show, a request
    withdrawn or changed there), which move no version of this one: a run whose `no-shows`
    refusals are not those of now is stale (a request it did not decide is stale anyway;
    one by hand or published is not barred)."""
    by_hand = {o["request"] for o in run.overrides or []}
    decided = decided_in(run, requests_of(match))
    barred_then = {
        key
        for key, d in decided.items()
        if any(r.get("code") == ReasonCode.NO_SHOWS for r in d["reasons"])
    }
    barred_now = {key for key in store.no_show_bar_of(match) if key in decided}
    locked = {r.key for r in requests_of(match) if r.locked}
    differ = (barred_then ^ barred_now) - by_hand - locked
    if differ:
        raise ServiceError(
            ErrorCode.STALE_RUN,
            f"the no-show bar changed since the last decide ({', '.join(sorted(differ))}):"
            " decide again",
        )


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
        if not row.locked and row.revoked:  # taken back already: say so, and why
            raise ServiceError(
                ErrorCode.CONFLICT,
                f'request "{request_id}" is taken back already ({row.revoked}): nothing to revoke',
            )
        if not row.locked:
            raise ServiceError(
                ErrorCode.CONFLICT,
                f'request "{request_id}" holds no published grant: only a published grant is'
                " revoked (a proposal is changed by a decide, or refused by hand)",
            )
        row.locked, row.revoked = False, reason.strip()
        row.save(update_fields=["locked", "revoked"])
        recorded(match)  # out of every decision from now on: the record says revoked
        notices.after_revoke(match, row, reason.strip())
        waitlist.queue_match_day(match)  # its places go to the waitlist
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
    run = latest_run(match)
    if access.manages(user, match):
        fresh = run is None or run.version != match.version
        incidents = standing(match)["incidents"] if fresh else _as_shown(match, run)
        return {
            "match": match.key,
            "if_decided_now": fresh,
            "incidents": _with_present(user, match, incidents),
        }
    incidents = _hide_others(user, match, _as_known(user, match, run))
    return {
        "match": match.key,
        "if_decided_now": run is None,
        "incidents": _with_present(user, match, incidents),
    }


def _with_present(
    user: User, match: m.Match, incidents: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each incident with `present`: the crews with cameras the zone doors counted inside
    its zone at its minute (core/match_day/doors.py), beside the plan's `covered_by`. Another
    organisation's crew is named by its organisation only, as in `covered_by`."""
    if not incidents or not doors.any_admitted(match):  # no door has let anyone in
        return [{**incident, "present": []} for incident in incidents]
    minutes = {i.id: i.minute for i in scenario_of(match).incidents_of(match.key)}
    everything = access.manages(user, match)
    own = set() if everything else {r.key for r in access.seen_list(user, match)}
    orgs = dict(match.requests.values_list("key", "by__key"))
    now = waitlist.minute_of(match, timezone.now())
    out = []
    for incident in incidents:
        minute = minutes.get(incident["incident"])
        # Nobody is present yet at a minute still to come (an incident logged ahead).
        there = []
        if minute is not None and minute <= now:
            there = doors.present_at(match, incident["zone"], minute)
        present = [
            {"id": key if everything or key in own else None, "org": orgs.get(key)} for key in there
        ]
        out.append({**incident, "present": present})
    return out


def _as_shown(match: m.Match, run: m.DecisionRun | None) -> list[dict[str, Any]]:
    """The incidents' coverage as the board shows the match (`as_recorded`): the places
    the record holds, and each open request as the current run decided it. A place freed
    since the run (a revoke, a release) goes down the waitlist by an offer, not to
    whoever a decide now would grant it."""
    scenario = scenario_of(match)
    views = as_recorded(match, run, requests_of(match))
    granted = {k for k, d in views.items() if d["status"] == Status.GRANTED}
    overrides = [
        Override(r.id, Status.GRANTED if r.id in granted else Status.REFUSED, "")
        for r in scenario.requests_of(match.key)
        if not r.locked
    ]
    incidents: list[dict[str, Any]] = match_json(
        decide_overridden(scenario, match.key, overrides).result
    )["incidents"]
    return incidents


def _as_known(user: User, match: m.Match, run: m.DecisionRun | None) -> list[dict[str, Any]]:
    """The incidents' coverage with only the crews this user may know of: published
    grants and its own grants of the run (each request as the run decided it)."""
    scenario = _as_published(match)
    there = [r.id for r in scenario.requests_of(match.key)]  # revoked ones are not
    seen = access.seen_list(user, match)
    granted = {k for k, d in decided_in(run, seen).items() if d["status"] == Status.GRANTED}
    published = published_keys(match)
    own = [k for k in there if k in granted and k not in published]
    others = [k for k in there if k not in granted and k not in published]
    # Its own grants of the run, as grants by hand: each while it still fits beside the
    # published ones and those before it (a capacity lowered since may leave no room).
    overrides = [Override(k, Status.GRANTED, "") for k in own]
    overrides += [Override(k, Status.REFUSED, "") for k in others]
    incidents: list[dict[str, Any]] = match_json(
        decide_overridden(scenario, match.key, overrides).result
    )["incidents"]
    return incidents


def season_changed(
    match: m.Match, run: m.DecisionRun, document: dict[str, Any] | None = None
) -> str | None:
    """Under season rules, why the run is no longer of the season as it is, if it is not:
    another match of the competition published, revoked, offered or released places since
    it was decided (what the engine decided it with), or, for a matchweek, one of the
    matches decided with it was decided again on its own. None while it still is (and
    always without rules). Reads the competition's held places: one query, or none where
    `document`, the match's export as it is now, is given."""
    if match.competition.season is None or not run.season_held:
        return None
    if run.batch:
        latest = (
            m.DecisionRun.objects.filter(match__key__in=run.together)
            .order_by("match", "-number")
            .values_list("match__key", "batch", "number")
        )
        newest: dict[str, str] = {}
        for key, batch, _number in latest:
            newest.setdefault(key, batch)
        again = sorted(key for key in run.together if newest.get(key) != run.batch)
        if again:
            return (
                f"{', '.join(again)} {'was' if len(again) == 1 else 'were'} decided again on"
                f" {'its' if len(again) == 1 else 'their'} own since run {run.number} decided"
                " them together with this match"
            )
    if not store.same_season(match, run.season_held, run.together, document):
        return (
            "the season changed since run"
            f" {run.number}: another of its matches published, revoked, offered or released"
            " places the season's rules count"
        )
    return None


def season_moved_on(match: m.Match, run: m.DecisionRun, seasons: dict[int, dict[str, str]]) -> bool:
    """For a list of matches: whether the run's season moved on elsewhere since it was
    decided (`season_changed`'s fingerprint), the competition's places read once for all
    its matches (`seasons`: competition -> match -> fingerprint, filled as needed). Not
    said of a published run (nothing left to publish), nor of a matchweek's or one
    fingerprinted before fingerprints were sums: their boards say."""
    if match.competition.season is None or not run.season_held or run.together:
        return False
    if run.published is not None or not run.season_held.startswith(store.DIGEST_MARK):
        return False  # published: nothing to publish again; else left to its board
    if match.competition_id not in seasons:
        seasons[match.competition_id] = store.held_digests(match.competition)
    return seasons[match.competition_id].get(match.key) != run.season_held


def changed_since_run(user: User, match: m.Match, run: m.DecisionRun | None) -> bool:
    """Whether the match changed since its newest run, as far as this user may know: for
    those who manage it, any change; for others, one of the requests they see (that
    others sent or withdrew requests is not theirs to learn)."""
    if run is None:
        return True
    if access.manages(user, match):
        return run.version != match.version
    return any(r.changed_in > run.version for r in access.seen_list(user, match))


def standing(match: m.Match, leaving_out: str | None = None) -> dict[str, Any]:
    """The match decided as it stands now, with the current run's overrides (the
    `decide --json` match object, requests refused by hand listed refused with the
    officer's reason); without the request `leaving_out` if given (one being changed).
    `by_hand` lists the requests whose override is in effect. Not filtered: callers show
    only what a user may see."""

    _, overridden = _as_it_stands(match, leaving_out)
    return {
        **match_json(overridden.result),
        "by_hand": [o.request for o in overridden.kept],
    }


def _as_it_stands(match: m.Match, leaving_out: str | None) -> tuple[Scenario, Overridden]:
    """Decided once per match version and request left out, while a page is read."""
    return once(
        f"as-it-stands:{leaving_out}", match, lambda: _decide_as_it_stands(match, leaving_out)
    )


def _decide_as_it_stands(match: m.Match, leaving_out: str | None) -> tuple[Scenario, Overridden]:
    scenario = scenario_of(match)
    if leaving_out in {r.id for r in scenario.requests}:
        scenario = apply_changes(scenario, Changes(refuse=(leaving_out or "",)))
    return scenario, decide_overridden(scenario, match.key, _run_overrides(match))


def room(
    match: m.Match, zone: str, phases: list[str], crew: int, leaving_out: str | None = None
) -> list[Room]:
    """The room a request for `zone` in `phases` would find as the match stands (every
    request decided now, the overrides in effect, but `leaving_out`): the core's
    footprint and closed zones, cell by cell. Nothing for a zone the venue lacks. For
    those who manage the match (room_seen)."""

    def places() -> Places:
        scenario, overridden = _as_it_stands(match, leaving_out)
        return _places(scenario, overridden.result, match.key)

    run = latest_run(match)  # its overrides count: a decide or an override moves no version
    key = ("all", run.pk if run else 0, leaving_out, tuple(waitlist.offered(match)))
    return _room_of(_kept_places(match, key, places), zone, phases, crew)


def room_seen(
    user: User,
    match: m.Match,
    zone: str,
    phases: list[str],
    crew: int,
    leaving_out: str | None = None,
) -> tuple[list[Room], bool]:
    """`room` as this user may know it, and whether it counts every request (True: those
    who manage the match). Anyone else counts the published grants and the requests they
    see (their own) only, decided now: others' unpublished requests, sent or withdrawn,
    never move the places they are shown."""
    if access.manages(user, match):
        return room(match, zone, phases, crew, leaving_out), True
    seen = {r.key for r in access.seen_list(user, match)} - {leaving_out or ""}

    def places() -> Places:
        scenario = _as_published(match)
        kept = tuple(r for r in scenario.requests if r.locked or r.id in seen)
        only = dataclasses.replace(scenario, requests=kept)
        return _places(only, decide_match(only, match.key), match.key)

    key = ("seen", tuple(sorted(seen)), leaving_out)
    return _room_of(_kept_places(match, key, places), zone, phases, crew), False


Places = tuple[Any, dict[Any, int], dict[Any, int]]  # a venue, places used, capacities
ROOM_SECONDS = 3600  # how long the places of a match's version are kept in the cache


def _kept_places(match: m.Match, asked: tuple[Any, ...], work: Callable[[], Places]) -> Places:
    """The room hint's places, kept in Django's cache under a key that names the match's
    version and everything else they depend on (`asked`, and the competition's no-show
    bar: a no-show or a change at another match moves no version of this one). The hint
    is asked as a form is filled in, and deciding a match of 500 requests takes most of a
    second (benchmarks/RESULTS-room-hint.md): asked again for the same version, it is read
    back, not decided again."""
    bar = tuple(sorted(store.no_show_bar_of(match).items()))
    named = repr((match.pk, match.version, asked, bar)).encode()
    key = f"pitchpass-room:{match.pk}:{match.version}:{hashlib.sha256(named).hexdigest()}"
    return cache.get_or_set(key, work, ROOM_SECONDS)  # type: ignore[return-value]


def _places(scenario: Scenario, result: Any, match_key: str) -> Places:
    """What the room hint needs of a decided match: its venue, places used, capacities."""
    venue = scenario.venue(scenario.match(match_key).venue)
    used = {(u.zone, u.phase): u.used for u in result.usage}
    capacity = {(u.zone, u.phase): u.capacity for u in result.usage}
    return venue, used, capacity


def _room_of(places: Places, zone: str, phases: list[str], crew: int) -> list[Room]:
    venue, used, capacity = places
    if zone not in {z.id for z in venue.zones}:
        return []
    return room_for(venue, zone, phases, crew, used, capacity)


def consent_needed(match: m.Match, zone: str, by: str | None) -> str | None:
    """What the core would refuse a request of `by` (None: someone else's) in `zone` for,
    as to consent (core.policy.needs_consent, on a request as yet without consent); None:
    no consent is needed there. Asked of the match's frame: its requests play no part."""
    asked = needs_consent(frame_scenario(match), match.key, zone, by or "")
    return None if asked is None else asked[1]


def _run_overrides(match: m.Match) -> list[Override]:
    """The current run's overrides of requests as the run saw them. An override is of a
    request as it was: one withdrawn, changed or given or refused consent since the run (a
    request sent again under the same id too) is decided afresh."""
    run = latest_run(match)
    if run is None or not run.overrides:
        return []
    as_run_saw = {r.key for r in requests_of(match) if r.changed_in <= run.version}
    return [
        Override(o["request"], Status(o["status"]), o["reason"])
        for o in run.overrides
        if o["request"] in as_run_saw
    ]


def _kept_overrides(match: m.Match, scenario: Scenario) -> list[Override]:
    """The current run's overrides that still stand (the core's `standing`: a grant by
    hand lapses, alone, when it could no longer be made or no longer fits beside the
    published grants and the grants by hand made before it)."""
    return list(standing_overrides(scenario, match.key, _run_overrides(match))[0])


def overrides_in_effect(match: m.Match) -> list[dict[str, str]]:
    """The current run's overrides that a decide would drop: those that still stand (see
    `_kept_overrides`), but for grants by hand since published (they stand as published)."""
    if not _run_overrides(match):  # none made: the match need not be read to know it
        return []
    published = published_keys(match)
    return [
        _stored(o)
        for o in _kept_overrides(match, scenario_of(match))
        if not (o.status is Status.GRANTED and o.request in published)
    ]


def overrides_to_drop(user: User, match_key: str) -> list[dict[str, str]]:
    """What a decide by this user would drop (`overrides_in_effect`; none for others)."""
    match = access.check_match(user, match_key)
    return overrides_in_effect(match) if access.manages(user, match) else []


def desk(match: m.Match, run: m.DecisionRun | None) -> dict[str, Any]:
    """For those who manage the match, what the board offers and explains beside each
    request (the core's rules, docs/scenario-extensions.md): `blocked` (request id -> what
    stands in the way of a grant by hand: reasons as JSON, and the capacity per
    "zone@phase" that would make it fit; a request absent here can be granted by hand),
    and `crowded` (a request the run refused for room -> the grants by hand holding places
    there, each {"request", "reason"}). Published and revoked requests are in neither."""
    scenario = scenario_of(match)
    kept = _kept_overrides(match, scenario)
    blocked = {}
    for request in scenario.requests_of(match.key):
        if request.locked:
            continue
        blockers = grant_blockers(scenario, match.key, kept, request.id)
        if blockers:
            blocked[request.id] = {
                "reasons": [b.as_json() for b in blockers],
                "capacity": {f"{z}@{p}": n for (z, p), n in places_to_fit(blockers).items()},
            }
    full = {
        d["request"]: [
            (r["zone"], r["phase"]) for r in d["reasons"] if r["code"] == ReasonCode.CAPACITY
        ]
        for d in (run.output["decisions"] if run else [])
        if d["status"] == Status.REFUSED
    }
    crowded = {
        key: [{"request": o.request, "reason": o.reason} for o in holders]
        for key, holders in crowding(scenario, match.key, kept, full).items()
    }
    return {"blocked": blocked, "crowded": crowded}


def passed_over(
    match: m.Match, run: m.DecisionRun | None, refused: dict[str, list[dict[str, Any]]]
) -> dict[str, tuple[RankedAfter, ...]]:
    """For those who manage the match. For each request of `refused` (id -> the reasons
    the run refused it for, as JSON): the run's grants that the policy ranks after it and
    that hold places where room refused it (the core's `ranked_after`)."""
    found = _policy_grants(match, run, refused)
    if found is None:
        return {}
    scenario, granted = found
    out = {}
    for key, reasons in refused.items():
        named = ranked_after(scenario, match.key, key, full_cells(reasons), granted)
        if named:
            out[key] = named
    return out


def policy_explains(
    match: m.Match, run: m.DecisionRun | None, refused: dict[str, list[dict[str, Any]]]
) -> set[str]:
    """For anyone who sees these refusals: those of `refused` where crews of its tier or a
    lower one, granted by the policy, hold places where room refused it (the core's
    `its_tier_or_below`: what the refusal's numbers already tell, without whose requests
    or when they were sent)."""
    found = _policy_grants(match, run, refused)
    if found is None:
        return set()
    scenario, granted = found
    return {
        key
        for key, reasons in refused.items()
        if its_tier_or_below(scenario, match.key, key, full_cells(reasons), granted)
    }


def _policy_grants(
    match: m.Match, run: m.DecisionRun | None, refused: dict[str, Any]
) -> tuple[Scenario, list[str]] | None:
    """The scenario and the run's grants that were the policy's choice, or None where
    there is nothing to explain: no run, nothing refused, first-come (each request in
    turn: what came first got in), or a match as stored that no longer decides. Grants
    by hand and those published before the run are not the policy's choice. Worked out
    once per run while a page is read (the board asks for names and for notes)."""
    if run is None or not refused:
        return None
    return once(f"policy-grants:{run.pk}", match, lambda: _the_policys(match, run))


def _the_policys(match: m.Match, run: m.DecisionRun) -> tuple[Scenario, list[str]] | None:
    try:
        scenario = scenario_of(match)
    except ServiceError:
        return None
    if scenario.policy.within_tier is not Mode.MOST_GRANTED:
        return None
    current = decided_in(run, requests_of(match))
    before = set(run.locked) if run.locked is not None else published_keys(match)
    not_the_policys = {o["request"] for o in run.overrides} | before
    granted = [
        key
        for key, d in current.items()
        if d["status"] == Status.GRANTED and key not in not_the_policys
    ]
    return scenario, granted


def missed(user: User, match: m.Match, uncaught: set[str]) -> dict[str, list[dict[str, Any]]]:
    """For each incident of `uncaught` (the ones the user's coverage shows caught by
    nobody): the refused requests that would have caught it (the core's
    `would_have_caught`), each {"request", "org", "capacity"}: `capacity` the places per
    "zone@phase" that would have let it in, when room alone refused it (else empty). Those
    who manage the match see every such request as the match stands; others only their
    own, as every view shows them refused (the record over the run). `grantable`: a grant
    by hand of it has room (a what-if granting it outright can be asked)."""
    scenario, overridden = _as_it_stands(match, None)
    result = overridden.result
    if access.manages(user, match):
        refused = [d for d in result.decisions if d.status is Status.REFUSED]
    else:
        run = latest_run(match)
        seen = access.seen_list(user, match)
        # Refused as every view shows it: the record over the run (one offered a place
        # since, or granted again, is not refused).
        shown = as_recorded(match, run, seen)
        mine = {k for k, d in shown.items() if d["status"] == Status.REFUSED}
        refused = [d for d in result.decisions if d.request.id in mine]
    by_id = {d.request.id: d for d in refused}
    kept = list(overridden.kept)
    out = {}
    for coverage in result.incidents:
        if coverage.incident.id not in uncaught:
            continue
        found = would_have_caught(coverage, [d.request for d in refused])
        out[coverage.incident.id] = [
            {
                "request": r.id,
                "org": scenario.organisation(r.by).name,
                "capacity": _room_alone(by_id[r.id].reasons),
                # A what-if grant is a grant by hand: offered only where it has room.
                "grantable": not any(
                    b.code is ReasonCode.CAPACITY
                    for b in grant_blockers(scenario, match.key, kept, r.id)
                ),
            }
            for r in found
        ]
    return out


def _room_alone(reasons: Any) -> dict[str, int]:
    """The places that would let a request in, if room alone refused it."""
    if not reasons or any(r.code is not ReasonCode.CAPACITY for r in reasons):
        return {}
    return {f"{z}@{p}": n for (z, p), n in places_to_fit(reasons).items()}


def proposal_usage(match: m.Match, run: m.DecisionRun) -> list[dict[str, Any]]:
    """The board's grid for those who manage the match (`usage` of docs/contract.md): the
    places the match day's record holds (published, accepted, offered) and the run's
    grants of the requests still open, counted by the core (record.usage). Where those
    are just the run's grants (nothing changed, offered, released or revoked since), the
    run's own usage is that: it is read, not counted (the match list shows every match's)."""
    record = waitlist.record_of(match)
    granted = {
        k for k, d in decided_in(run, requests_of(match)).items() if d["status"] == "granted"
    }
    open_ = {k for k, e in record.items() if e.state is State.OPEN}
    held = {k for k, e in record.items() if e.state in HOLDS}
    partly = any(r.released for r in requests_of(match) if r.locked)  # a phase released
    if run.version == match.version and not partly:
        run_granted = {d["request"] for d in run.output["decisions"] if d["status"] == "granted"}
        if held | (granted & open_) == run_granted:
            usage: list[dict[str, Any]] = run.output["usage"]
            return usage
    scenario = scenario_of(match)
    holding = {r.id for r in scenario.requests if r.locked} | (granted & open_)
    return [u._asdict() for u in record_usage(scenario, match.key, holding)]


def published_usage(match: m.Match, run: m.DecisionRun | None = None) -> list[dict[str, Any]]:
    """The places the published grants hold, in the `usage` shape of docs/contract.md (every
    zone and phase): the grid of those who do not manage the match, the same state as
    their access list and coverage (a proposal is not theirs to learn of). Where the
    run's grants are exactly the published ones (a run published, nothing offered,
    accepted, released or revoked since, no capacity changed), its own usage is that: it
    is read, not counted."""
    published = published_keys(match)
    if run is not None and not published:  # nothing published: no place held yet
        return [{**u, "used": 0} for u in run.output["usage"]]
    partly = any(r.released for r in requests_of(match) if r.locked)  # a phase released
    if run is not None and run.published is not None and run.version == match.version:
        granted = {d["request"] for d in run.output["decisions"] if d["status"] == Status.GRANTED}
        if granted == published and not partly:
            usage: list[dict[str, Any]] = run.output["usage"]
            return usage
    scenario = scenario_of(match)
    return [u._asdict() for u in record_usage(scenario, match.key, published)]


RULES = {
    "host": "the match's host broadcaster",
    "partner": "the competition's broadcast partners",
    "club": "the two clubs of the match themselves (not their channels or producers)",
    "any": "everyone else",
}


def policy_of(match: m.Match) -> dict[str, Any]:
    """The policy the match is decided by, in words: tiers in order, the choice within a
    tier, the deadline."""
    policy = scenario_of(match).policy
    tiers = []
    for tier in policy.tiers:
        kind, _, value = tier.rule.partition(":")
        said = RULES.get(tier.rule) or (
            f"organisation {value}" if kind == "org" else f"organisations of kind {value}"
        )
        tiers.append({"name": tier.name, "rule": tier.rule, "who": said})
    return {
        "tiers": tiers,
        "within_tier": policy.within_tier.value,
        "most_granted": policy.within_tier is Mode.MOST_GRANTED,
        "deadline": _in_words(policy.deadline),
        "release_before": policy.match_day.release_before,
        "release_grace": policy.match_day.release_grace,
        "release_warning": policy.match_day.release_warning,
        "release_exempt_words": _exempt_words(scenario_of(match)),
        "accept_within": policy.match_day.accept_within,
    }


def _exempt_words(scenario: Scenario) -> str:
    tiers = sorted(exempt_tiers(scenario))
    if not tiers:
        return "every tier released alike"
    return f"tier{'s' if len(tiers) > 1 else ''} {', '.join(tiers)} never released"


def release_soon(match: m.Match, run: m.DecisionRun | None, now: datetime) -> list[dict[str, str]]:
    """For those who manage the match, before a publish: the grants it would publish
    whose release the grace after the publish would set (their phase's own release time
    is sooner: core.release.at_publish), each {"request", "org", "phase", "at_text"}."""
    if run is None:
        return []
    scenario = scenario_of(match)
    decided = decided_in(run, requests_of(match))
    granted = {k for k, d in decided.items() if d["status"] == Status.GRANTED}
    newly = set(to_publish(granted, waitlist.record_of(match)))
    grants = [r for r in scenario.requests_of(match.key) if r.id in newly]
    by = {r.id: scenario.organisation(r.by).name for r in grants}
    minute = waitlist.minute_of(match, now)
    return [
        {
            "request": x.request,
            "org": by[x.request],
            "phase": x.phase,
            "at_text": times.clock(match, waitlist.moment_of(match, x.minute)),
        }
        for x in release_at_publish(scenario, match.key, grants, minute)
    ]


def _in_words(deadline: Any) -> str:
    minutes = int(deadline.total_seconds() // 60)
    for unit, size in (("day", 1440), ("hour", 60)):
        if minutes % size == 0:
            n = minutes // size
            return f"{n} {unit}{'' if n == 1 else 's'}"
    return f"{minutes} minutes"


def published_places(match: m.Match) -> list[tuple[str, str, str, int, str]]:
    """Where each published grant puts its crew, by the core's footprint: (zone, phase,
    organisation name, crew, the zone it is bound for when it only passes through, else
    ""), requests by their zone's place in the venue, then as listed."""
    scenario = _as_published(match)
    venue = scenario.venue(scenario.match(match.key).venue)
    order = {z.id: n for n, z in enumerate(venue.zones)}
    published = sorted(
        (r for r in scenario.requests_of(match.key) if r.locked), key=lambda r: order[r.zone]
    )
    return [
        (zone, phase, scenario.organisation(r.by).name, r.crew, "" if zone == r.zone else r.zone)
        for r in published
        for zone, phase in footprint(r, venue)
    ]


def _as_published(match: m.Match) -> Scenario:
    """The match as the engine gets it, but with only its published grants locked: an
    open offer holds its places in every decide, but it is nobody's to learn of but its
    own crew's and those who manage the match."""
    scenario = scenario_of(match)
    published = published_keys(match)
    requests = tuple(
        dataclasses.replace(r, locked=r.id in published) if r.locked else r
        for r in scenario.requests
    )
    return dataclasses.replace(scenario, requests=requests)


def _stored(override: Override) -> dict[str, str]:
    """An override as a run keeps it."""
    return {"request": override.request, "status": override.status, "reason": override.reason}


def published_keys(match: m.Match) -> set[str]:
    """The ids of the match's published grants."""
    return {r.key for r in requests_of(match) if r.locked}


def latest_run(match: m.Match) -> m.DecisionRun | None:
    """The match's newest run (its current decisions), or None before the first decide."""
    return once("run", match, lambda: match.runs.order_by("-number").first())


def _hide_others(user: User, match: m.Match, incidents: list[dict[str, Any]]) -> list[Any]:
    """For those who do not manage the match: fixed cameras, the requests they see, and
    another organisation's crew only once its grant is published (a proposal, or a
    request sent, is not theirs to learn of), without its request id."""
    if access.manages(user, match):
        return incidents
    own = {r.key for r in access.seen_list(user, match)}
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
    """`pitchpass what-if --json` for one stored match; changes nothing. "Before" is the
    match as it stands, the current run's overrides in effect; the ticks come on top of
    them (a tick wins over an override of the same request). A ticked grant is a grant by
    hand: one with no room is the override's `no-room`, word for word; one that a grant by
    hand could not make (a zone closed, no consent) is answered as if it could, and listed
    in `only_if` with what it sets aside."""
    check_text(body)  # a NUL or a lone surrogate anywhere: a 400, not a database's fault
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
        overrides = _run_overrides(match)
        kept = list(standing_overrides(scenario, match.key, overrides)[0])
        _check_room(scenario, match.key, kept, changes)
        result = what_if_overridden(scenario, match.key, overrides, changes)
    except ScenarioInvalid as invalid:
        problem = invalid.problems[0]
        message = _in_web_words(problem.message)
        path = ", ".join(p.strip().lstrip("-") for p in problem.path.split(","))  # the body's
        raise ServiceError(ErrorCode.INVALID, message, path) from None
    answer = what_if_json(result)
    answer["only_if"] = [
        {"request": key, "reasons": [r.as_json() for r in reasons]}
        for key, reasons in only_if(scenario, changes.grant).items()
    ]
    return answer


def _check_room(scenario: Scenario, match_key: str, kept: list[Override], changes: Changes) -> None:
    """The override's `no-room`, word for word, for the first grant by hand of the what-if
    that does not fit (the core's `without_room`)."""
    found = without_room(scenario, match_key, kept, changes)
    if found is not None:
        raise _no_room(*found, path="grant")


def _in_web_words(message: str) -> str:
    """A core problem as the pages say it: a locked request is a published grant or a
    grant by hand (what-if --grant locks, as an override does)."""
    return message.replace("locked requests alone", "published grants and grants by hand alone")
