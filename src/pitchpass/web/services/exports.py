"""Exports (issue 11, section 5): a match's decisions as CSV. These present what other
services decide and let see; they decide nothing themselves. The stewards' access list
as a PDF is a sheet (services/sheets.py)."""

from __future__ import annotations

import csv
import io
from datetime import datetime

from django.contrib.auth.models import User

from pitchpass.web.services import access, views

COLUMNS = (
    "request",
    "organisation",
    "zone",
    "phases",
    "crew",
    "cameras",
    "status",
    "published",
    "tier",
    "reasons",
    "granted by hand",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """A cell as text a spreadsheet never runs: one starting with = + - @, a tab or a
    carriage return gets a leading apostrophe (OWASP's CSV injection advice)."""
    text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def decisions_csv(user: User, match_key: str, now: datetime) -> str:
    """The board's requests with their decisions as CSV, the rows this user sees there
    and no other (views.board_of: media their own; a club's officer also those in its
    room; the home officer and admins all). Stewards see no requests: refused."""
    access.visible_requests(user, access.check_match(user, match_key))  # 404 or 403 first
    found = views.board_of(user, match_key, {}, now)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS)
    for row in found.rows:
        writer.writerow(
            [
                csv_cell(x)
                for x in (
                    row.key,
                    row.org,
                    row.zone,
                    " ".join(row.phases),
                    row.crew,
                    row.cameras,
                    row.status.value,
                    "yes" if row.locked else "no",
                    row.tier,
                    "; ".join(reason.text for reason in row.reasons),
                    row.by_hand or "",
                )
            ]
        )
    return out.getvalue()
