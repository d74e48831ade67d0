"""Times as people read them: each with its date and the venue's time zone, on pages,
e-mails, passes and exports alike. The venue's time zone is the UTC offset its match's
kick-off was written in (docs/contract.md: a kick-off carries its zone), so "16:30 UTC" or
"20:45 UTC+01:00"; machine formats (the API, webhooks, the calendar feed) keep ISO 8601."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone, tzinfo

from django.utils import dateformat

from pitchpass.web.persistence import models as m

FORMAT = "D j M Y, H:i T"  # Sun 10 Dec 2017, 16:30 UTC
SHORT = "D j M, H:i:s T"  # a door's scans: Sun 10 Dec, 16:31:07 UTC
SECONDS = "D j M Y, H:i:s T"  # Sun 10 Dec 2017, 16:30:20 UTC
DAY = "D j M Y"  # a match's day, beside its name: Sun 10 Dec 2017


def zone_of(match: m.Match) -> tzinfo:
    """The venue's time zone: the kick-off's UTC offset as written."""
    if not match.kickoff_offset:
        return UTC
    return timezone(timedelta(minutes=match.kickoff_offset))


def zone_name(match: m.Match) -> str:
    """The venue's time zone as a browser's Intl names it ("UTC", "Etc/GMT-1" for
    UTC+01:00); "" for an offset Intl has no name for (the device's own is used)."""
    minutes = match.kickoff_offset
    if not minutes:
        return "UTC"
    if minutes % 60:
        return ""
    return f"Etc/GMT{-minutes // 60:+d}"  # Etc/GMT-1 is UTC+01:00: the sign is turned


def local(match: m.Match, moment: datetime) -> datetime:
    """`moment` in the venue's time zone."""
    return moment.astimezone(zone_of(match))


def text(match: m.Match, moment: datetime, form: str = FORMAT) -> str:
    """`moment` in words, in the venue's time zone: "Sun 10 Dec 2017, 16:30 UTC"."""
    return written(local(match, moment), form)


def written(moment: datetime, form: str = FORMAT) -> str:
    """An aware `moment` in words, in its own time zone (pages' `when` filter)."""
    return dateformat.format(moment, form)


def span(match: m.Match, start: datetime, end: datetime) -> str:
    """From `start` to `end`: "Sun 10 Dec 2017, 15:30 UTC to 16:30 UTC", the end's date
    written too when it is another day ("... to Mon 11 Dec 2017, 00:30 UTC")."""
    same_day = local(match, start).date() == local(match, end).date()
    return f"{text(match, start)} to {text(match, end, 'H:i T' if same_day else FORMAT)}"


def clock(match: m.Match, moment: datetime) -> str:
    """A match-day moment with its minute from kick-off: "Sun 10 Dec 2017, 15:45 UTC
    (minute -45)"; to the second where it is not on a whole minute (a release due at
    20:09:30 is not told as 20:10, nor as 20:09): "..., 20:09:30 UTC (minute -65.5)", the
    minute cut to a tenth, never past the moment (as the time is cut to its second, as
    every time shown is). A moment a day or more from kick-off has no minute: it is not
    on the match day (an offer's deadline days before the match)."""
    seconds = math.floor((moment - match.kickoff).total_seconds())  # cut to its second
    shown = match.kickoff + timedelta(seconds=seconds)
    form = FORMAT if seconds % 60 == 0 else SECONDS
    if abs(seconds) >= 24 * 60 * 60:
        return text(match, shown, form)
    if seconds % 60 == 0:
        return f"{text(match, shown)} (minute {seconds // 60:+d})"
    tenths = math.trunc(seconds / 6)  # toward kick-off: -60.55 is -60.5, 161.97 is 161.9
    minute = f"{tenths / 10:+.1f}".replace(".0", "")
    return f"{text(match, shown, form)} (minute {minute})"
