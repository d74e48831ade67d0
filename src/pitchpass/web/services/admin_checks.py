"""An admin edit must leave every match it touches a scenario the core accepts.

The rules are the core's own (docs/contract.md): each match an edit touches is exported and
validated after the edit, inside the admin's transaction. A problem that was not there
before the edit refuses it, and the transaction rolls back. Problems that were already
there (data loaded long ago, say) do not block an edit that leaves them as they were.

Only an edit that leaves problems pays for a look at the rows as they were: `after_edit`
raises `Recheck`, the transaction rolls back, `new_problems` compares, and the caller
either refuses or does the edit again allowing the problems found before.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Model, Q

from pitchpass.core import ScenarioInvalid, load_document
from pitchpass.core.codes import ReasonCode
from pitchpass.core.deciding.policy import beyond_override, club_names
from pitchpass.core.model import Scenario
from pitchpass.core.reading.problems import Problem
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import audit

SHOWN = 8  # problems listed in one refusal; the count says if there were more

# A problem as compared before and after an edit: the match (by primary key, so that a
# renamed match is the same match), the path with list positions replaced by the ids of
# the entries (so that moving a zone does not make its old problem new), the message.
Found = dict[tuple[int, str, str], str]  # -> the problem as shown


class EditRefused(Exception):
    """The edit would make a match invalid; `problems` say why, in the core's words."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


class Recheck(Exception):
    """Problems `found` after an edit of the matches `pks`: are they new? (Raised inside
    the edit's transaction, so that it rolls back and the rows are as before.)"""

    def __init__(self, pks: set[int], found: Found):
        super().__init__(f"{len(found)} problems after the edit")
        self.pks, self.found = pks, found


def touched(obj: Model) -> set[int]:
    """The matches (primary keys) whose scenario an edit of `obj` may make invalid."""
    matches = m.Match.objects.all()
    if obj.pk is None and not isinstance(obj, m.Zone | m.Camera):
        return set()  # a new row: nothing refers to it yet
    if isinstance(obj, m.Match):
        matches = matches.filter(pk=obj.pk)
    elif isinstance(obj, m.Incident):
        matches = matches.filter(pk=obj.match_id)
    elif isinstance(obj, m.Competition):
        matches = matches.filter(competition_id=obj.pk)
    elif isinstance(obj, m.Venue):
        matches = matches.filter(venue_id=obj.pk)
    elif isinstance(obj, m.Zone | m.Camera):  # a zone may move venue: its old matches too
        near = Q(venue_id=obj.venue_id)
        if isinstance(obj, m.Zone) and obj.pk:
            near |= Q(pk__in=m.Request.objects.filter(zone=obj.pk).values("match"))
            near |= Q(pk__in=m.Incident.objects.filter(zone=obj.pk).values("match"))
        matches = matches.filter(near)
    elif isinstance(obj, m.Organisation):  # as named by its rows and by tier rules
        rules = m.Tier.objects.filter(rule=f"org:{obj.key}").values("competition")
        partner_of = m.Competition.objects.filter(partners=obj.pk).values("pk")
        matches = matches.filter(
            Q(home_id=obj.pk)
            | Q(away_id=obj.pk)
            | Q(host_id=obj.pk)
            | Q(pk__in=m.Request.objects.filter(by=obj.pk).values("match"))
            | Q(competition__in=partner_of)
            | Q(competition__in=rules)
            | Q(venue__in=m.Camera.objects.filter(operator=obj.pk).values("venue"))
        )
    return set(matches.values_list("pk", flat=True))


def problems_of(pks: set[int]) -> Found:
    """Every problem the core finds in these stored matches, and every published grant
    in a zone closed since (the core grants a locked request whatever; a steward would
    let a crew into a closed zone)."""
    found: Found = {}
    for match in m.Match.objects.filter(pk__in=pks).order_by("key"):
        document = store.export(match.key, season=False)  # the match's own rows
        try:
            problems = _closed_over_published(load_document(document), match.key)
        except ScenarioInvalid as invalid:
            problems = list(invalid.problems)
        for problem in problems:
            path = _by_id(problem.path, document).lstrip(".")
            found[(match.pk, path, problem.message)] = f"match {match.key}: {path}: " + (
                problem.message
            )
    return found


def _closed_over_published(scenario: Scenario, match_key: str) -> list[Problem]:
    match = scenario.match(match_key)
    venue = scenario.venue(match.venue)
    problems = []
    for n, request in enumerate(scenario.requests):
        if request.match != match_key or not request.locked:
            continue
        names = club_names(scenario, match)
        for reason in beyond_override(request, match, venue, scenario.policy, names):
            if reason.code == ReasonCode.CLOSED:
                problems.append(
                    Problem(
                        f"requests[{n}]",
                        f"{request.id} is a published grant there: {reason.text}; revoke it first",
                    )
                )
    return problems


def _by_id(path: str, document: Any) -> str:
    """`venues[0].zones[3].closed[0]` as `venues[old-trafford].zones[tunnel].closed[0]`."""
    out, node = [], document
    for token in re.findall(r"\[\d+\]|[^.\[\]]+", path):
        if token.startswith("["):
            n = int(token[1:-1])
            node = node[n] if isinstance(node, list) and n < len(node) else None
            named = isinstance(node, dict) and isinstance(node.get("id"), str)
            out.append(f"[{node['id']}]" if named else token)  # type: ignore[index]
        else:
            node = node.get(token) if isinstance(node, dict) else None
            out.append(f".{token}")
    return "".join(out)


def lock(pks: set[int]) -> None:
    """Take the match lock (changes.lock_match) on these matches, in the order of their
    primary keys (as `store.load` does), so that no decide, publish or submission changes
    them between the check and the commit. Taking it again in the same transaction is
    free."""
    store.frames_changed()  # first: what a request is checked against may change
    list(m.Match.objects.select_for_update().filter(pk__in=pks).order_by("pk").values("pk"))


def after_edit(pks: set[int], allowed: set[tuple[int, str, str]]) -> None:
    """Inside the edit's transaction, with the matches locked: Recheck if they have
    problems not `allowed`."""
    lock(pks)
    found = problems_of(pks)
    if set(found) - allowed:
        raise Recheck(pks, found)


def new_problems(recheck: Recheck) -> list[str]:
    """With the edit rolled back: the problems it would make, to be shown (none: the edit
    left only problems there before, and may be done again allowing them)."""
    before = problems_of(recheck.pks)
    new = sorted(shown for where, shown in recheck.found.items() if where not in before)
    more = [f"and {len(new) - SHOWN} more"] if len(new) > SHOWN else []
    return new[:SHOWN] + more


def record_edit(
    user: User | None, matches: list[m.Match], target: str, before: Any, after: Any
) -> None:
    """An admin's edit in the audit: an entry for each match it touches (one all the same
    if it touches none)."""
    for match in list[m.Match | None](matches) or [None]:
        audit(user, "admin", match, target, before, after)
