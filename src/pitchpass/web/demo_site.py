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

from pitchpass.core.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user

# Who signs in to the demo: (username, role, organisation, what they do there).
DEMO_USERS = (
    ("admin", "admin", None, "league admin: everything, and /admin/"),
    ("officer", "officer", "man-united", "home club: decides, overrides, publishes"),
    ("away-officer", "officer", "man-city", "away club: consent for its dressing room"),
    ("documentary", "media", "man-city-documentary", "the crew that was kept out"),
    ("steward", "steward", None, "logs incidents"),
)


@dataclass(frozen=True)
class DemoSite:
    loaded: bool  # False: the match was there already (kept, with any changes made to it)
    kickoff: datetime
    users: list[tuple[str, str, str]]  # username, password, what they do


def prepare(path: Path, now: datetime) -> DemoSite:
    """Load the scenario at `path` with its dates moved by whole days (the time of day,
    the order of submissions and every deadline keep their places) so that its last
    submission is as recent as can be but not after `now`: every seed request was sent
    before any made in the demo, and the seed match (the derby: 6 days 6.5 hours after
    its last request) kicks off in 5d 6.5h to 6d 6.5h, its requests open for 6.5 to 30.5 hours
    more. Nothing is moved if its matches are loaded already. Then each demo user gets a
    new random password (created the first time)."""
    document = parse_text(path.read_text(encoding="utf-8"), path.name)
    keys = [match["id"] for match in document["matches"]]
    loaded = not m.Match.objects.filter(key__in=keys).exists()
    if loaded:
        store.load(moved(document, _shift(document, now)))
    users = []
    for username, role, org, does in DEMO_USERS:
        password = secrets.token_urlsafe(12)
        user = User.objects.filter(username=username).first()
        if user is None:
            do_add_user(username, role, org, password, f"{username}@demo.pitchpass.invalid")
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        users.append((username, password, does))
    first = m.Match.objects.get(key=keys[0])
    return DemoSite(loaded, first.kickoff, users)


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
