"""An admin edit must leave every match it touches a scenario the core accepts.

The rules are the core's own (SCENARIO.md): each match an edit touches is exported and
validated after the edit, inside the admin's transaction. A problem that was not there
before the edit refuses it, and the transaction rolls back. Problems that were already
there (data loaded long ago, say) do not block an edit that leaves them as they were.

Only an edit that leaves problems pays for a look at the rows as they were: `after_edit`
raises `Recheck`, the transaction rolls back, `new_problems` compares, and the caller
either refuses or does the edit again allowing the problems found before.
"""

from __future__ import annotations

from django.db.models import Model, Q

from pitchpass.core import ScenarioInvalid
from pitchpass.web import models as m
from pitchpass.web import store

SHOWN = 8  # problems listed in one refusal; the count says if there were more


class Refused(Exception):
    """The edit would make a match invalid; `problems` say why, in the core's words."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


class Recheck(Exception):
    """Problems `found` after an edit of the matches `keys`: are they new? (Raised inside
    the edit's transaction, so that it rolls back and the rows are as before.)"""

    def __init__(self, keys: set[str], found: set[str]):
        super().__init__(f"{len(found)} problems after the edit")
        self.keys, self.found = keys, found


def keys_touched(obj: Model) -> set[str]:
    """The matches whose scenario an edit of `obj` may change."""
    matches = m.Match.objects.all()
    if obj.pk is None and not isinstance(obj, m.Zone | m.Camera):
        return set()  # a new row: nothing refers to it yet
    if isinstance(obj, m.Match):
        matches = matches.filter(pk=obj.pk)
    elif isinstance(obj, m.Competition):
        matches = matches.filter(competition_id=obj.pk)
    elif isinstance(obj, m.Venue):
        matches = matches.filter(venue_id=obj.pk)
    elif isinstance(obj, m.Zone | m.Camera):  # a zone may move venue: its old matches too
        near = Q(venue_id=obj.venue_id)
        if isinstance(obj, m.Zone) and obj.pk:
            near |= Q(requests__zone=obj.pk) | Q(incidents__zone=obj.pk)
        matches = matches.filter(near)
    elif isinstance(obj, m.Organisation):
        matches = matches.filter(
            Q(home_id=obj.pk)
            | Q(away_id=obj.pk)
            | Q(host_id=obj.pk)
            | Q(requests__by=obj.pk)
            | Q(competition__partners=obj.pk)
            | Q(venue__cameras__operator=obj.pk)
        )
    return set(matches.values_list("key", flat=True).distinct())


def problems_of(keys: set[str]) -> set[str]:
    """Every problem the core finds in these stored matches, each naming its match."""
    found: set[str] = set()
    for key in sorted(keys):
        if not m.Match.objects.filter(key=key).exists():
            continue  # deleted with the edit (a cascade): nothing left to decide
        try:
            store.scenario_of(key)
        except ScenarioInvalid as invalid:
            found |= {f"match {key}: {problem}" for problem in invalid.problems}
    return found


def after_edit(keys: set[str], allowed: set[str]) -> None:
    """Inside the edit's transaction: Recheck if the matches have problems not `allowed`."""
    found = problems_of(keys)
    if found - allowed:
        raise Recheck(keys, found)


def new_problems(recheck: Recheck) -> list[str]:
    """With the edit rolled back: the problems it would make, to be shown (none: the edit
    left only problems there before, and may be done again allowing them)."""
    new = sorted(recheck.found - problems_of(recheck.keys))
    more = [f"and {len(new) - SHOWN} more"] if len(new) > SHOWN else []
    return new[:SHOWN] + more
