"""Match day after publishing, on the desk: a match's waitlist, the places it is offered
when places free up, the answers to those offers, and the no-show release at each grant's
release time. core/waitlist.py decides all of it; this module stores, locks, tells and
schedules (`tend`, run by the worker at each moment something is due)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from pitchpass.core import waitlist as core
from pitchpass.core.codes import ReasonCode, Status
from pitchpass.core.doors import Scan
from pitchpass.core.overrides import grant_blockers
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.audit import audit
from pitchpass.web.persistence.changes import changed, lock_match
from pitchpass.web.services import access, notices
from pitchpass.web.services.queue import job
from pitchpass.web.services.snapshot import once, scenario_of


def minute_of(match: m.Match, moment: datetime) -> float:
    return (moment - match.kickoff).total_seconds() / 60


def moment_of(match: m.Match, minute: float) -> datetime:
    return match.kickoff + timedelta(minutes=minute)


def rules_of(match: m.Match) -> Any:
    return scenario_of(match).policy.match_day


def _published_run(match: m.Match) -> m.DecisionRun | None:
    return match.runs.filter(published__isnull=False).order_by("-number").first()


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
    """The requests holding places and those waiting (core/waitlist.py decides which)."""
    offers = _offers(match) if offers is None else offers
    run = _published_run(match)
    rows = match.requests.filter(revoked="").values_list("key", "locked", "changed_in")
    standing = [
        core.Standing(
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
class Tended:
    lapsed: list[str]
    released: list[str]
    promoted: list[str]
    next_at: datetime | None


def tend(match_key: str, now: datetime) -> Tended:
    """What is due at `now` for the match, under its lock: offers not answered in time
    lapse, crews not checked in by their release time lose their places, and the freed
    places go to the waitlist (core/waitlist.py). Schedules itself for the next moment."""
    with transaction.atomic():
        match = lock_match(m.Match.objects.get(key=match_key))
        lapsed = _lapse(match, now)
        released = _release(match, now)
        promoted = _promote(match, now)
        next_at = _next_moment(match, now)
        _schedule(match, next_at)
        return Tended(lapsed, released, promoted, next_at)


def _schedule(match: m.Match, next_at: datetime | None) -> None:
    """Queue the tend of `next_at` unless one is queued for that moment already (the
    match's `tend_at`, read under its lock): one chain of tasks per match, not one per
    change that asked for a tend."""
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
        changed(match)
    return [o.request.key for o in due]


def _release(match: m.Match, now: datetime) -> list[str]:
    rules = rules_of(match)
    scenario = scenario_of(match)
    grants = [r for r in scenario.requests_of(match.key) if r.locked]
    if not grants:
        return []
    scans = [
        Scan(s.request, s.zone, s.direction, minute_of(match, s.scanned))
        for s in m.Scan.objects.filter(match=match, result="admitted", direction="in").order_by(
            "scanned", "id"
        )
    ]
    plan = scenario.phases
    made = match.requests.filter(locked=True, granted_at__isnull=False)
    since = {key: minute_of(match, at) for key, at in made.values_list("key", "granted_at") if at}
    out = core.no_shows(grants, plan, scans, minute_of(match, now), rules.release_before, since)
    if not out:
        return []
    rows = {r.key: r for r in match.requests.filter(key__in=out).select_related("zone", "by")}
    changed(match)
    for key in out:
        row = rows[key]
        request = next(r for r in grants if r.id == key)
        at = moment_of(match, core.release_minute(request, plan, rules.release_before))
        reason = f"no-show: none of its crew had checked in by {_clock(match, at)}"
        row.locked, row.revoked, row.no_show, row.changed_in = False, reason, at, match.version
        row.save(update_fields=["locked", "revoked", "no_show", "changed_in"])
        notices.after_revoke(match, row, reason)
        audit(
            None,
            "no-show",
            match,
            key,
            {"locked": True},
            {"locked": False, "reason": reason},
            username="worker",
        )
    return out


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
        m.Offer.objects.create(request=rows[key], made=now, until=until)
        notices.promoted(match, rows[key], _clock(match, until))
        audit(None, "promote", match, key, {}, {"until": until.isoformat()}, username="worker")
    changed(match)
    return list(promotion.promoted)


def _next_moment(match: m.Match, now: datetime) -> datetime | None:
    """The next moment something falls due: an open offer's end, a grant's release."""
    moments = [o.until for o in _offers(match).values() if o.state == m.Offer.OPEN]
    scenario = scenario_of(match)
    rules = scenario.policy.match_day
    for r in scenario.requests_of(match.key):
        if r.locked:
            moments.append(
                moment_of(match, core.release_minute(r, scenario.phases, rules.release_before))
            )
    later = [t for t in moments if t > now]
    return min(later) if later else None


def _clock(match: m.Match, moment: datetime) -> str:
    """A moment as the match's local time of day and its minute from kick-off."""
    minute = round(minute_of(match, moment))
    local = match.kickoff + timedelta(minutes=minute + match.kickoff_offset)
    return f"{local:%H:%M} (minute {minute:+d})"


@job(attempts=5)
def tend_match(match_key: str) -> str:
    """The worker's task: `tend` the match now (a match deleted since has nothing due)."""
    if not m.Match.objects.filter(key=match_key).exists():
        return "no such match"
    done = tend(match_key, timezone.now())
    return f"lapsed {done.lapsed}, released {done.released}, promoted {done.promoted}"


def soon(match: m.Match) -> None:
    """Have the worker tend the match as soon as it can (places may have freed up), in the
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
            _check_fits(match, row.key)
            row.locked, row.granted_at = True, now
            row.save(update_fields=["locked", "granted_at"])
            row.told = {"status": Status.GRANTED, "reasons": []}
            m.Request.objects.filter(pk=row.pk).update(told=row.told)
        offer.state = m.Offer.ACCEPTED if accept else m.Offer.DECLINED
        offer.answered, offer.by = now, user
        offer.save(update_fields=["state", "answered", "by"])
        changed(match)
        if not accept:
            soon(match)
        audit(
            user, "offer-" + offer.state, match, row.key, {"state": "open"}, {"state": offer.state}
        )
        return offer_json(offer, now)


def _may_answer(user: User, row: m.Request) -> bool:
    who = access.profile(user)
    return who.role == "admin" or (
        who.organisation is not None and who.organisation.pk == row.by_id
    )


def _check_fits(match: m.Match, request_id: str) -> None:
    """An accepted offer can still be granted: it fits beside the published grants and
    the other open offers (an officer's publish since could have taken its places), and
    nothing a grant by hand cannot set aside stands in its way since (a zone closed, the
    club's consent taken back): the core's `grant_blockers`, every one of them."""
    scenario = scenario_of(match)
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
        "until_text": _clock(offer.request.match, offer.until),
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
    seen = set() if everything else {r.key for r in access.seen_requests(user, match)}
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
