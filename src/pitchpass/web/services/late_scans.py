"""A scan that a door made offline and sent after a no-show release of its crew's place:
judged against the pass as it was at its moment (core.release.released_by), and, if it
let one of the crew in by a release time, that release undone (core.release.contradicted)
where the place still fits beside every place held now; else the scan is a conflict for
the officer (core.doors.place_gone). The rules are the core's; this module reads, locks
and writes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

from pitchpass.core.match_day import doors as core
from pitchpass.core.match_day import release
from pitchpass.core.match_day.record import State, publish_fits, taken
from pitchpass.core.model import Request, Scenario
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import audit
from pitchpass.web.persistence.changes import lock_match, recorded
from pitchpass.web.services import notices
from pitchpass.web.services.snapshot import scenario_of
from pitchpass.web.services.times import clock


def _minute(match: m.Match, when: datetime) -> float:
    return (when - match.kickoff).total_seconds() / 60


def _request(match: m.Match, row: m.Request, released: list[str]) -> Request:
    """The grant as the core's release rules see it: its phases held but for `released`."""
    phases = release.kept(row.phases, released, store.offered_phases(row))
    return Request(row.key, match.key, row.by.key, row.zone.key, phases, row.crew,
                   row.submitted, row.cameras, locked=True)  # fmt: skip


def _granted(match: m.Match, row: m.Request) -> float | None:
    return None if row.granted_at is None else _minute(match, row.granted_at)


def _by_release(match: m.Match, row: m.Request) -> bool:
    """Whether the request's grant was taken back by its releases, not by hand."""
    return store.record_of(match, [row])[row.key].state is State.RELEASED


def pass_then(match: m.Match, row: m.Request, found: core.Pass, minute: float) -> core.Pass:
    """The pass as it was at `minute`: without the phases whose release had come by then,
    and not taken back if its whole release came later (a revoke by hand stands)."""
    released = list(row.released or ())
    if not released or (found.revoked is not None and not _by_release(match, row)):
        return found
    scenario = scenario_of(match)
    whole = _request(match, row, [])
    lost = release.released_by(whole, scenario, _granted(match, row), released, minute)
    held = release.kept(row.phases, lost, store.offered_phases(row))
    revoked = found.revoked if not held else None
    return dataclasses.replace(found, phases=held, revoked=revoked)


@dataclass(frozen=True)
class Undone:
    """What an offline scan sent after a release did to it: the phases given back, or
    (`gone`) why they could not be."""

    phases: tuple[str, ...] = ()
    gone: str = ""
    released_at: str = ""  # when the release was made, in words (given back)


def check_undo(match: m.Match, row: m.Request, scan: core.Scan) -> tuple[str, ...]:
    """The released phases of `row` that `scan` (admitted in, made offline) shows were
    released wrongly: by their release time one of the crew had gone in."""
    released = list(row.released or ())
    if not released or (row.revoked and not _by_release(match, row)):
        return ()
    admitted = m.Scan.objects.filter(match=match, request=row.key, result="admitted",
                                     direction="in").values_list("zone", "scanned")  # fmt: skip
    scans = [core.Scan(row.key, z, core.IN, _minute(match, at)) for z, at in admitted]
    whole = _request(match, row, [])
    return release.contradicted(whole, scenario_of(match), _granted(match, row), released,
                                [*scans, scan])  # fmt: skip


def _taken(scenario: Scenario, match: m.Match, back: Request, others: tuple[Request, ...]) -> str:
    """Where the crew's places are held by others now, in words (core.record.taken)."""
    holding = {r.id for r in others if r.locked and r.match == match.key}
    return "; ".join(
        f"{t.zone}, {t.phase}: {t.used} of {t.capacity} places held by {', '.join(t.holders)}"
        for t in taken(scenario, match.key, back, holding)
    )


def do_undo(match: m.Match, row: m.Request, phases: tuple[str, ...], at: datetime) -> Undone:
    """Give the crew its released `phases` back, holding the match's lock (taken here: a
    release, an offer or a publish waits), if they fit beside every place held now (the
    core's `publish_fits`); else nothing changes and `gone` says which zone and phase
    would be over, and who is there."""
    match = lock_match(match)  # its version as it is now: the season read after the lock
    row = m.Request.objects.select_related("by", "zone", "offer").get(pk=row.pk)  # as now
    phases = tuple(p for p in phases if p in row.released)
    if not phases:
        return Undone()
    keep = [p for p in row.released if p not in phases]
    scenario = scenario_of(match)
    back = _request(match, row, keep)
    others = tuple(r for r in scenario.requests if r.id != row.key)
    problems = publish_fits(dataclasses.replace(scenario, requests=(*others, back)), match.key,
                            [row.key])  # fmt: skip
    if problems:
        gone = _taken(scenario, match, back, others)
        _contest(match, row, phases, at, gone)
        return Undone((), gone)
    released_at = clock(match, row.no_show) if row.no_show else ""
    before = {"released": list(row.released), "locked": row.locked, "revoked": row.revoked}
    row.released, row.locked, row.revoked = keep, True, ""
    if not keep:
        row.no_show = None  # it was no no-show at all: the bar does not count it
    row.save(update_fields=["released", "locked", "revoked", "no_show"])
    recorded(match)
    said = (
        f"one of its crew was let in at {clock(match, at)} by a door that was offline: its"
        f" {', '.join(phases)} place is given back"
    )
    notices.given_back(match, row, said)
    audit(None, "release-undone", match, row.key, before,
          {"released": keep, "locked": True, "reason": said}, username="door")  # fmt: skip
    return Undone(phases, released_at=released_at)


def _contest(
    match: m.Match, row: m.Request, phases: tuple[str, ...], at: datetime, gone: str
) -> None:
    """The release stands (its place has gone), but the crew was no no-show: its reason
    says so (core.release.contested) on every view, the bar does not count it, and its
    organisation is told. Once a request: another scan of its crew adds nothing."""
    if row.no_show is None:
        return
    before = {"revoked": row.revoked, "no_show": row.no_show.isoformat()}
    said = release.contested("", phases, clock(match, at), gone)
    row.revoked = (
        release.contested(row.revoked, phases, clock(match, at), gone) if row.revoked else ""
    )
    row.no_show = None
    row.save(update_fields=["revoked", "no_show"])
    recorded(match)
    notices.release_contested(match, row, said)
    audit(None, "release-contested", match, row.key, before,
          {"revoked": row.revoked, "no_show": None, "reason": said}, username="door")  # fmt: skip
