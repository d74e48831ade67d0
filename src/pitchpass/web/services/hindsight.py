"""The price of deciding match by match on the season page (issue 27, section 4;
docs/scenario-extensions.md, "Hindsight"): the season as published match by match against
the season decided with hindsight, worked out by the core (core.hindsight) in a task of
`pitchpass worker`, never inside a request (a 380-match season takes about a minute: each
match is a decide of its own). The page asks for it; the worker works it out at the
competition's data as it then is, telling its progress; the page shows the newest result,
and says when the season has changed since."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from pitchpass.core import check_document
from pitchpass.core.explaining.report import unproven_texts
from pitchpass.core.season.hindsight import compared, hindsight
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.fixtures_store import season_document, season_version
from pitchpass.web.services.queue import job
from pitchpass.web.services.season import check_season

ASK_AGAIN = timedelta(minutes=10)  # asked again after this, with nothing made: queued again
SHOWN = 50  # refusals listed on the page, each way (the JSON has them all)


@dataclass(frozen=True)
class HindsightView:
    """What the season page says of hindsight: `result` (core.hindsight.compared's, ids as
    the season report writes them: `match:id`), whether it is of the data as it is now,
    and whether the worker is at it (with its progress)."""

    result: dict[str, Any] | None
    current: bool  # the result is of the competition's data as it is now
    working: bool  # asked and not made yet
    matches_done: int
    matches: int
    failed: str
    made: str  # when the result was made, ISO 8601 ("" without one)


def hindsight_of(user: User, competition_key: str) -> HindsightView:
    competition = check_season(user, competition_key)
    row = m.Hindsight.objects.filter(competition=competition).first()
    if row is None:
        return HindsightView(None, False, False, 0, 0, "", "")
    now = season_version(competition)
    return HindsightView(
        row.result,
        row.result is not None and row.made == now,
        row.wanted != row.made and not row.failed,
        row.matches_done,
        row.matches,
        row.failed,
        row.done.isoformat() if row.done else "",
    )


def do_ask_hindsight(user: User, competition_key: str) -> bool:
    """Have the worker work hindsight out for the data as it is now; False when it is made
    already for it, or asked for it lately (queued once, however often it is asked).
    Locks the competition's hindsight row."""
    competition = check_season(user, competition_key)
    wanted = season_version(competition)
    with transaction.atomic():
        row, _ = m.Hindsight.objects.select_for_update().get_or_create(competition=competition)
        if row.made == wanted and row.result is not None:
            return False
        now = timezone.now()
        if row.wanted == wanted and row.asked and row.asked > now - ASK_AGAIN and not row.failed:
            return False
        row.wanted, row.asked, row.failed = wanted, now, ""
        row.matches_done = 0
        row.save(update_fields=["wanted", "asked", "failed", "matches_done"])
        work_out_hindsight.enqueue(competition.pk)
    return True


@job(attempts=2)
def work_out_hindsight(competition_pk: int) -> str:
    """The worker's task: hindsight of the competition's data as it is now (the version
    read before the data: a change meanwhile makes the result older, never newer, than
    it says), its progress written as it goes."""
    competition = m.Competition.objects.filter(pk=competition_pk).first()
    if competition is None:
        return "no such competition"
    version = season_version(competition)
    scenario, problems, _ = check_document(season_document(competition))
    rows = m.Hindsight.objects.filter(competition=competition)
    if scenario is None:
        said = f"the season does not decide as stored ({problems[0].path}: {problems[0].message})"
        rows.update(failed=said)
        return said
    rows.update(matches=len(scenario.matches), matches_done=0)

    def progress(done: int, of: int) -> None:
        if done % 10 == 0 or done == of:
            rows.update(matches_done=done)

    try:
        found = hindsight(scenario, progress)
    except Exception as error:  # said on the page; the queue keeps the traceback
        rows.update(failed=f"the worker failed working it out: {error}")
        raise
    result = compared(scenario, found)
    unproven = unproven_texts((*found.match_by_match, *found.jointly))
    if unproven:
        result["unproven"] = unproven
    rows.update(made=version, wanted=version, result=result, done=timezone.now(), failed="")
    return f"{result['granted']}"
