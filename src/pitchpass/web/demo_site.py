"""`make demo`: the database prepared, the seed match loaded and open for requests, and one
user per role to sign in with. Run before the server starts.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user

# Who signs in to the demo: (username, role, organisation, what they do there).
DEMO_USERS = (
    ("admin", "admin", None, "league admin: everything, and /admin/", "Alex Admin"),
    ("officer", "officer", "man-united", "home club: decides, overrides, publishes", "Olivia Reed"),
    ("away-officer", "officer", "man-city", "away club: consent for its dressing room", "Sam Blue"),
    ("documentary", "media", "man-city-documentary", "the crew that was kept out", "Dana Frame"),
    ("steward", "steward", None, "works the doors, logs incidents", "Pat Gate"),
)  # username, role, organisation, what they do, the name their e-mails greet


@dataclass(frozen=True)
class DemoSite:
    loaded: bool  # False: the match was there already (kept, with any changes made to it)
    kickoff: datetime
    users: list[tuple[str, str, str]]  # username, password, what they do
    match_day: m.Match | None = None  # the copy being played now, if asked for


# The match day copy of the seed match kicked off this long before the demo started: the
# second half is being played, the post-match tunnel is released 7 minutes later.
IN_PLAY = timedelta(minutes=100)
MATCH_DAY_SUFFIX = "-match-day"


def prepare(path: Path, now: datetime, match_day: bool = False) -> DemoSite:
    """Load the scenario at `path` with its dates moved by whole days (the time of day,
    the order of submissions and every deadline keep their places) so that its last
    submission is as recent as can be but not after `now`: every seed request was sent
    before any made in the demo, and the seed match (the derby: 6 days 6.5 hours after
    its last request) kicks off in 5d 6.5h to 6d 6.5h, its requests open for 6.5 to 30.5 hours
    more. Nothing is moved if its matches are loaded already. Then each demo user gets a
    new random password (created the first time). With `match_day`, the first match also
    as it is being played (`<id>-match-day`, kicked off IN_PLAY before `now`, decided and
    published by the home officer), the first time only: the worker then releases its
    crews not checked in and offers their places down the waitlist as the clock runs."""
    document = parse_text(path.read_text(encoding="utf-8"), path.name)
    keys = [match["id"] for match in document["matches"]]
    loaded = not m.Match.objects.filter(key__in=keys).exists()
    if loaded:
        store.load(moved(document, _shift(document, now)))
    users = []
    for username, role, org, does, name in DEMO_USERS:
        password = secrets.token_urlsafe(12)
        user = User.objects.filter(username=username).first()
        if user is None:
            venues = [v["id"] for v in document["venues"]] if role == "steward" else None
            address = f"{username}@demo.pitchpass.invalid"
            do_add_user(username, role, org, password, address, venues, name)  # venues: doors
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        users.append((username, password, does))
    first = m.Match.objects.get(key=keys[0])
    playing = _match_day(document, keys[0], now) if match_day else None
    return DemoSite(loaded, first.kickoff, users, playing)


def _match_day(document: dict[str, Any], key: str, now: datetime) -> m.Match:
    """The match `key` of the document as it is being played: its copy kicked off IN_PLAY
    ago (every time moved with it), published. Kept as it is if there already."""
    from pitchpass.web.services.decisions import do_decide, do_publish

    copy_key = key + MATCH_DAY_SUFFIX
    found = m.Match.objects.filter(key=copy_key).first()
    if found is not None:
        return found
    original = next(x for x in document["matches"] if x["id"] == key)
    kickoff = now.replace(second=0, microsecond=0) - IN_PLAY
    shift = kickoff - datetime.fromisoformat(str(original["kickoff"]))
    playing = moved(document, shift)
    playing["matches"] = [{**original, "id": copy_key, "kickoff": kickoff.isoformat()}]
    playing["requests"] = [
        {**r, "match": copy_key} for r in playing.get("requests", []) if r["match"] == key
    ]
    playing["incidents"] = [
        {**i, "match": copy_key} for i in playing.get("incidents", []) if i["match"] == key
    ]
    store.load(playing)
    officer = User.objects.get(username="officer")
    do_decide(officer, copy_key)
    do_publish(officer, copy_key)
    return m.Match.objects.get(key=copy_key)


def _shift(document: dict[str, Any], now: datetime) -> timedelta:
    """Whole days that bring the last submission (else the first kick-off, to a week from
    now) to the latest moment not after `now`."""
    sent = [datetime.fromisoformat(str(r["submitted"])) for r in document.get("requests", [])]
    if not sent:
        kickoff = datetime.fromisoformat(str(document["matches"][0]["kickoff"]))
        return timedelta(days=(now.date() - kickoff.date()).days + 7)
    return timedelta(days=(now - max(sent)).days)  # floor: not after now, within a day


def moved(document: dict[str, Any], shift: timedelta) -> dict[str, Any]:
    """The document with every time in it (kick-offs, submissions, incidents' `at`) moved
    by `shift`, offsets kept."""

    def later(text: Any) -> Any:
        return (datetime.fromisoformat(str(text)) + shift).isoformat()

    out = dict(document)
    out["matches"] = [{**x, "kickoff": later(x["kickoff"])} for x in document["matches"]]
    out["requests"] = [
        {**x, "submitted": later(x["submitted"])} if "submitted" in x else x
        for x in document.get("requests", [])
    ]
    out["incidents"] = [
        {**x, "at": later(x["at"])} if "at" in x else x for x in document.get("incidents", [])
    ]
    return out
