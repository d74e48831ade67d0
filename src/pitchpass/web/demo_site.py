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
from pitchpass.web import models as m
from pitchpass.web import store
from pitchpass.web.accounts import do_add_user

# Who signs in to the demo: (username, role, organisation, what they do there).
DEMO_USERS = (
    ("admin", "admin", None, "league admin: everything, and /admin/"),
    ("officer", "officer", "man-united", "home club: decides, overrides, publishes"),
    ("away-officer", "officer", "man-city", "away club: consent for its dressing room"),
    ("documentary", "media", "man-city-documentary", "the crew that was kept out"),
    ("steward", "steward", None, "logs incidents"),
)
DAYS_AHEAD = 7  # the demo match kicks off a week from now, so requests are still open


@dataclass(frozen=True)
class DemoSite:
    loaded: bool  # False: the match was there already (kept, with any changes made to it)
    kickoff: datetime
    users: list[tuple[str, str, str]]  # username, password, what they do


def prepare(path: Path, now: datetime) -> DemoSite:
    """Load the scenario at `path` with its dates moved so that its first match kicks off
    DAYS_AHEAD days after `now` (whole days: the time of day, the order of submissions
    and every deadline keep their places), unless its matches are loaded already; then
    give each demo user a new random password (creating the user the first time)."""
    document = parse_text(path.read_text(encoding="utf-8"), path.name)
    keys = [match["id"] for match in document["matches"]]
    loaded = not m.Match.objects.filter(key__in=keys).exists()
    if loaded:
        kickoff = datetime.fromisoformat(document["matches"][0]["kickoff"])
        shift = timedelta(days=(now.date() - kickoff.date()).days + DAYS_AHEAD)
        store.load(moved(document, shift))
    users = []
    for username, role, org, does in DEMO_USERS:
        password = secrets.token_urlsafe(9)
        user = User.objects.filter(username=username).first()
        if user is None:
            do_add_user(username, role, org, password)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        users.append((username, password, does))
    first = m.Match.objects.get(key=keys[0])
    return DemoSite(loaded, first.kickoff, users)


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
