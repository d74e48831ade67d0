"""Match day after publishing, on the desk: a match's waitlist, the places it is offered
when places free up, the answers to those offers, and the no-show release at each grant's
release time. core/match_day/waitlist.py decides all of it; this module stores, locks, tells and
schedules (`do_match_day`, run by the worker at each moment something is due)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.deciding.overrides import grant_blockers
from pitchpass.core.match_day import notices as notice_kinds
from pitchpass.core.match_day import release
from pitchpass.core.match_day import waitlist as core
from pitchpass.core.match_day.doors import Scan
from pitchpass.core.match_day.record import Entry
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import passes, store
from pitchpass.web.persistence.audit import audit
from pitchpass.web.persistence.changes import lock_match, recorded
from pitchpass.web.services import access, notices
from pitchpass.web.services.queue import job
from pitchpass.web.services.snapshot import once, requests_of, scenario_at, scenario_of
from pitchpass.web.services.times import clock


def minute_of(match: m.Match, moment: datetime) -> float:
    return (moment - match.kickoff).total_seconds() / 60


def moment_of(match: m.Match, minute: float) -> datetime:
    return match.kickoff + timedelta(minutes=minute)


def rules_of(match: m.Match) -> Any:
    return scenario_of(match).policy.match_day


def record_of(match: m.Match) -> dict[str, Entry]:
    """Each request's state after publish, now (core/match_day/record.py): what every view shows of
    a request over its run's decision, and what the engine is given (store.export)."""
    return store.record_of(match, requests_of(match), timezone.now())


def _published_run(match: m.Match) -> m.DecisionRun | None:
    """The newest published run (read once per version while a page is read)."""
    return once(
        "published-run",
        match,
        lambda: match.runs.filter(published__isnull=False).order_by("-number").first(),
    )


def _offers(match: m.Match) -> dict[str, m.Offer]:
    """The match's offers by request (read once per version while a page is read)."""

    def read() -> dict[str, m.Offer]:
        offers = m.Offer.objects.filter(request__match=match).select_related("request__match")
        return {o.request.key: o for o in offers}

    return once("offers", match, read)


def offered(match: m.Match) -> list[str]:
    """The requests offered a place and not answered yet, now (one past its time has
    lapsed, whether or not the worker has marked it: it holds nothing)."""
    now = timezone.now()
    return [
        key
        for key, o in _offers(match).items()
        if core.offer_state(o.state, o.until, now) == m.Offer.OPEN
    ]


def held_and_waiting(
    match: m.Match, offers: dict[str, m.Offer] | None = None
) -> tuple[list[str], list[str]]:
    """The requests holding places and those waiting (core/match_day/waitlist.py decides which)."""
    offers = _offers(match) if offers is None else offers
    run = _published_run(match)
    rows = match.requests.filter(revoked="").values_list("key", "locked", "changed_in")
    standing = [
        core.Kept(
            key,
            locked,
            run is not None and changed_in <= run.version,
            offers[key].state if key in offers else None,
        )
        for key, locked, changed_in in rows
    ]
    published = None
    if run is not None:
        published = [
            (d["request"], d["status"], [r.get("code", "") for r in d["reasons"]])
            for d in run.output["decisions"]
        ]
    return core.held_and_waiting(standing, published)


@dataclasses.dataclass(frozen=True)
class MatchDayDone:
    lapsed: list[str]
    released: list[str]
    promoted: list[str]
    next_at: datetime | None
    warned: list[str] = dataclasses.field(default_factory=list)


def do_match_day(match_key: str, now: datetime) -> MatchDayDone:
    """What is due at `now` for the match, under its lock: offers not answered in time
    lapse, crews not checked in by their release time lose their places, and the freed
    places go to the waitlist (core/match_day/waitlist.py). Schedules itself for the next moment."""
    with transaction.atomic():
        match = lock_match(m.Match.objects.get(key=match_key))
        lapsed = _lapse(match, now)
        released = _release(match, now)
        warned = _warn(match, now)
        promoted = _promote(match, now)
        next_at = _next_moment(match, now)
        _schedule(match, next_at)
        return MatchDayDone(lapsed, released, promoted, next_at, warned)


def _schedule(match: m.Match, next_at: datetime | None) -> None:
    """Queue the match day's work at `next_at` unless it is queued for that moment already (the
    match's `tend_at`, read under its lock): one chain of tasks per match, not one per
    change that asked for it."""
    queued = m.Match.objects.filter(pk=match.pk).values_list("tend_at", flat=True).first()
    if next_at is None or next_at == queued:
        return
    tend_match.using(run_after=next_at).enqueue(match.key)
    m.Match.objects.filter(pk=match.pk).update(tend_at=next_at)


def _lapse(match: m.Match, now: datetime) -> list[str]:
    due = [o for o in _offers(match).values() if o.state != core.offer_state(o.state, o.until, now)]
    for offer in due:
        offer.state, offer.answered = m.Offer.LAPSED, now
        offer.save(update_fields=["state", "answered"])
        audit(
            None,
            "offer-lapsed",
            match,
            offer.request.key,
            {"state": "open"},
            {"state": "lapsed"},
            username="worker",
        )
    if due:
        recorded(match)
    return [o.request.key for o in due]


def _release(match: m.Match, now: datetime) -> list[str]:
    """Release each phase due (core/match_day/release.py): a grant that loses every phase is
    released whole (revoked as a no-show, counted against its organisation); one that
    keeps a phase keeps its grant. The ids of the grants that lost places."""
    due = release.due(*_release_view(match), minute_of(match, now), *_made(match))
    if not due:
        return []
    rules = rules_of(match)
    wanted = {x.request for x in due}
    read = match.requests.filter(key__in=wanted).select_related("zone", "by", "offer")
    rows = {r.key: r for r in read}
    recorded(match)
    for x in due:
        row = rows[x.request]
        at = moment_of(match, x.minute)
        reason = release.why(x, rules, clock(match, at))
        row.released = [*row.released, x.phase]
        row.no_show = row.no_show or at  # one no-show a grant, at its first release
        whole = release.released_whole(row.phases, row.released, store.offered_phases(row))
        if whole:
            row.locked, row.revoked = False, reason
        row.save(update_fields=["released", "no_show", "locked", "revoked"])
        if whole:
            notices.after_revoke(match, row, reason)
        else:
            notices.released(match, row, x.phase, reason)
        audit(
            None,
            "no-show",
            match,
            x.request,
            {"locked": True, "phase": x.phase},
            {"locked": row.locked, "released": row.released, "reason": reason},
            username="worker",
        )
    return list(dict.fromkeys(x.request for x in due))


def _warn(match: m.Match, now: datetime) -> list[str]:
    """Warn each crew not in yet whose place is to be released within `release_warning`
    minutes, once a phase (the notices sent say who was warned). The ids warned."""
    sent = m.Notice.objects.filter(match=match, kind=notice_kinds.RELEASE_WARNING)
    warned = {(n.request, n.data.get("phase")) for n in sent.only("request", "data")}
    since, released = _made(match)
    view = _release_view(match)
    due = release.warnings(*view, minute_of(match, now), since, released, warned)
    wanted = {x.request for x in due}
    rows = {r.key: r for r in match.requests.filter(key__in=wanted).select_related("zone", "by")}
    for x in due:
        at = moment_of(match, x.minute)
        notices.release_warning(match, rows[x.request], x.phase, clock(match, at), at)
    return list(dict.fromkeys(x.request for x in due))


def _release_view(
    match: m.Match, published: set[str] | None = None
) -> tuple[Any, str, list[Any], list[Scan]]:
    """What the core's release rules are given: the scenario, the match, its published
    grants (`published`: their ids, if read already; an open offer, which the engine also
    gets locked, is not one: it is released by nobody) and the admitted scans in, in the
    order made."""
    scenario = scenario_of(match)
    scans = [
        Scan(request, zone, direction, minute_of(match, scanned))
        for request, zone, direction, scanned in m.Scan.objects.filter(
            match=match, result="admitted", direction="in"
        ).order_by("scanned", "id").values_list("request", "zone", "direction", "scanned")
    ]  # fmt: skip
    if published is None:
        published = set(match.requests.filter(locked=True).values_list("key", flat=True))
    grants = [r for r in scenario.requests_of(match.key) if r.id in published]
    return scenario, match.key, grants, scans


def releases_ahead(match: m.Match, now: datetime) -> list[release.Release]:
    """The releases still to come after `now`, soonest first (core.release.upcoming): the
    match-day header's "due for release next", from the request rows the page has read."""
    published = [r for r in requests_of(match) if r.locked]
    scenario, key, grants, scans = _release_view(match, {r.key for r in published})
    minute = minute_of(match, now)
    made = _made(match, [(r.key, r.granted_at, r.released) for r in published])
    return release.upcoming(scenario, key, grants, [s for s in scans if s.minute <= minute],
                            minute, *made)  # fmt: skip


def open_offers(match: m.Match, now: datetime) -> list[m.Offer]:
    """The offers open at `now` (not answered, not past their time), soonest to end first."""
    found = [
        o
        for o in _offers(match).values()
        if core.offer_state(o.state, o.until, now) == m.Offer.OPEN
    ]
    return sorted(found, key=lambda o: (o.until, o.request.key))


def _made(match: m.Match, rows: Any = None) -> tuple[dict[str, float], dict[str, list[str]]]:
    """When each published grant was made (the minute; none if loaded so) and the phases
    of each released already (`rows`: its (key, granted_at, released), if read already)."""
    if rows is None:
        rows = match.requests.filter(locked=True).values_list("key", "granted_at", "released")
    since = {key: minute_of(match, at) for key, at, _ in rows if at is not None}
    return since, {key: list(done) for key, _, done in rows if done}


def _promote(match: m.Match, now: datetime) -> list[str]:
    held, waiting = held_and_waiting(match)
    if not waiting:
        return []
    scenario = scenario_of(match)
    minute = minute_of(match, now)
    promotion = core.promote(scenario, match.key, held, waiting, minute)
    if not promotion.promoted:
        return []
    rules = scenario.policy.match_day
    requests = {r.id: r for r in scenario.requests_of(match.key)}
    rows = {
        r.key: r
        for r in match.requests.filter(key__in=promotion.promoted).select_related("zone", "by")
    }
    for key in promotion.promoted:
        until = moment_of(
            match, core.offer_until(requests[key], scenario.phases, minute, rules.accept_within)
        )
        phases = list(promotion.phases[key])
        m.Offer.objects.create(request=rows[key], made=now, until=until, phases=phases)
        notices.promoted(match, rows[key], clock(match, until), until, phases)
        audit(None, "promote", match, key, {}, {"until": until.isoformat()}, username="worker")
    recorded(match)
    return list(promotion.promoted)


def _next_moment(match: m.Match, now: datetime) -> datetime | None:
    """The next moment something falls due: an open offer's end, a grant's release."""
    moments = [o.until for o in _offers(match).values() if o.state == m.Offer.OPEN]
    scenario, key, grants, _ = _release_view(match)
    since, released = _made(match)
    moments += [
        moment_of(match, t) for t in release.moments(scenario, key, grants, since, released)
    ]
    later = [t for t in moments if t > now]
    return min(later) if later else None


@job(attempts=5)
def tend_match(match_key: str) -> str:  # the name queued rows hold: kept
    """The worker's task: `do_match_day` now (a match deleted since has nothing due)."""
    if not m.Match.objects.filter(key=match_key).exists():
        return "no such match"
    done = do_match_day(match_key, timezone.now())
    return f"lapsed {done.lapsed}, released {done.released}, promoted {done.promoted}"


def queue_match_day(match: m.Match) -> None:
    """Have the worker do the match day's work as soon as it can (places may have freed up), in the
    caller's transaction: nothing is queued if the change is rolled back."""
    tend_match.enqueue(match.key)


def answer(
    user: User, match_key: str, request_id: str, accept: bool, now: datetime
) -> dict[str, Any]:
    """The organisation's answer to the place offered to its request: accepted, it is a
    published grant (with its pass); declined, it leaves the waitlist and the place goes
    on. An offer no longer open, or past its time, cannot be answered."""
    with transaction.atomic():
        match = lock_match(access.check_match(user, match_key))
        row = access.seen_requests(user, match).filter(key=request_id).first()
        offer = m.Offer.objects.filter(request=row).first() if row is not None else None
        if row is None or offer is None or not _may_answer(user, row):
            raise ServiceError(ErrorCode.NOT_FOUND, f'no place offered to "{request_id}"', "id")
        state = core.offer_state(offer.state, offer.until, now)
        if state != m.Offer.OPEN:
            raise ServiceError(
                ErrorCode.CONFLICT,
                f'the offer to "{request_id}" is {state}: it can no longer be answered',
            )
        if accept:
            _check_fits(match, row.key, now)
            row.locked, row.granted_at = True, now
            row.save(update_fields=["locked", "granted_at"])
            passes.make_passes(m.Request.objects.filter(pk=row.pk))
            row.told = {"status": Status.GRANTED, "reasons": []}
            m.Request.objects.filter(pk=row.pk).update(told=row.told)
        offer.state = m.Offer.ACCEPTED if accept else m.Offer.DECLINED
        offer.answered, offer.by = now, user
        offer.save(update_fields=["state", "answered", "by"])
        recorded(match)
        if not accept:
            queue_match_day(match)
        audit(
            user, "offer-" + offer.state, match, row.key, {"state": "open"}, {"state": offer.state}
        )
        return offer_json(offer, now)


def _may_answer(user: User, row: m.Request) -> bool:
    who = access.profile(user)
    return who.role == "admin" or (
        who.organisation is not None and who.organisation.pk == row.by_id
    )


def _check_fits(match: m.Match, request_id: str, now: datetime) -> None:
    """An accepted offer can still be granted: it fits beside the published grants and
    the other open offers (an officer's publish since could have taken its places), and
    nothing a grant by hand cannot set aside stands in its way since (a zone closed, the
    club's consent taken back): the core's `grant_blockers`, every one of them."""
    scenario = scenario_at(match, now)
    held, _ = held_and_waiting(match)
    keep = set(held) - {request_id}
    scenario = dataclasses.replace(
        scenario,
        requests=tuple(
            dataclasses.replace(r, locked=r.id in keep) if r.id in keep or r.id == request_id else r
            for r in scenario.requests
        ),
    )
    present = {r.id for r in scenario.requests_of(match.key)}
    if request_id not in present:
        raise ServiceError(ErrorCode.CONFLICT, f'"{request_id}" can no longer be granted')
    blockers = grant_blockers(scenario, match.key, [], request_id)
    if not blockers:
        return
    said = "; ".join(b.text for b in blockers)
    if all(b.code is ReasonCode.CAPACITY for b in blockers):
        raise ServiceError(ErrorCode.NO_ROOM, "the place has gone since it was offered: " + said)
    raise ServiceError(ErrorCode.CONFLICT, "it can no longer be granted: " + said)


def offer_json(offer: m.Offer, now: datetime) -> dict[str, Any]:
    state = core.offer_state(offer.state, offer.until, now)  # marked by the worker or not
    return {
        "request": offer.request.key,
        "state": state,
        "made": offer.made.isoformat(),
        "until": offer.until.isoformat(),
        "until_text": clock(offer.request.match, offer.until),
        "phases": list(offer.phases or offer.request.phases),
    }


def waitlist_for(user: User, match_key: str, now: datetime) -> dict[str, Any]:
    """The match's waitlist and offers as the user may see them: all for those who manage
    the match, with each one's place in the order; else their own organisation's, without
    it (a place would tell how many others wait)."""
    return waitlist_of(user, access.check_match(user, match_key), now)


def waitlist_of(user: User, match: m.Match, now: datetime) -> dict[str, Any]:
    offers = _offers(match)
    if not offers and _published_run(match) is None:
        return {"waitlist": [], "offers": []}  # nothing published, nothing offered
    everything = access.manages(user, match)
    seen = set() if everything else {r.key for r in access.seen_list(user, match)}
    _, waiting = held_and_waiting(match, offers)
    listed = core.waitlist(scenario_of(match), match.key, waiting, minute_of(match, now))
    shown = [
        {**offer_json(o, now), "yours": _may_answer(user, o.request)}
        for o in offers.values()
        if everything or o.request.key in seen
    ]
    return {
        "waitlist": [
            {
                "request": w.request,
                "by": w.by,
                "tier": w.tier,
                "place": w.place if everything else None,
            }
            for w in listed
            if everything or w.request in seen
        ],
        "offers": sorted(shown, key=lambda o: o["made"]),
    }
