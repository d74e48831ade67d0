"""Reading a competition's fixture list from CSV or ICS into plain rows (docs/fixtures.md).

Nothing is matched here: a row names its clubs and venue as the file does (by id or by
name); core/reading/fixtures.py matches them against the scenario. Every problem names its row or
event. Pure: the caller reads the file and gives its text.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pitchpass.core.reading.problems import Problem

MAX_ROWS = 20_000  # a federation's season; a file beyond it is refused, not read halfway
MAX_OCCURRENCES = 400  # one recurring event expands to at most this many matches
COLUMNS = (
    "id", "kickoff", "date", "time", "timezone", "home", "away", "venue", "host", "televised_by",
)  # fmt: skip
_VERSUS = re.compile(r"\s+(?:v|vs\.?|versus|-|\u2013|\u2014)\s+", re.IGNORECASE)  # - en em


@dataclass(frozen=True)
class Fixture:
    """One match as the file gives it."""

    where: str  # "row 3" (the file's line) or "event 2" / "event 2, 2024-05-04"
    kickoff: datetime  # with a timezone
    home: str  # an organisation id or name
    away: str
    venue: str = ""  # a venue id or name; "" when the file gives none
    id: str = ""  # the match id; "" when the file gives none
    host: str = ""  # the host broadcaster, id or name
    televised_by: tuple[str, ...] = ()  # the broadcasters televising it, ids or names


def read_csv(text: str, timezone: str = "") -> tuple[list[Fixture], list[Problem]]:
    """A CSV with a header: `home`, `away`, and `kickoff` (ISO 8601 with an offset) or
    `date` and `time` (local, in the row's `timezone` column or `timezone` given);
    optional `id`, `venue`, `host`, `televised_by` (ids or names, `;` between). Unknown
    columns are problems (a misspelt `venue` would otherwise be dropped without a word)."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    problems = [
        Problem("header", f'unknown column "{h}" (columns: {", ".join(COLUMNS)})')
        for h in header
        if h not in COLUMNS
    ]
    missing = [c for c in ("home", "away") if c not in header]
    if "kickoff" not in header and "date" not in header:
        missing.append("kickoff (or date and time)")
    if missing:
        problems.append(Problem("header", "missing column " + ", ".join(missing)))
    if problems:
        return [], problems
    reader.fieldnames = header
    fixtures = []
    for n, raw in enumerate(reader, 2):
        if n - 1 > MAX_ROWS:
            return [], [Problem("", f"more than {MAX_ROWS:,} rows")]
        row = {k: (v or "").strip() for k, v in raw.items() if k is not None}
        if not any(row.values()):
            continue  # a blank line
        where = f"row {n}"
        found = _row(where, row, timezone)
        if isinstance(found, Problem):
            problems.append(found)
        else:
            fixtures.append(found)
    return fixtures, problems


def _row(where: str, row: dict[str, str], timezone: str) -> Fixture | Problem:
    for column in ("home", "away"):
        if not row.get(column):
            return Problem(f"{where}.{column}", "missing")
    kickoff = _kickoff(where, row, timezone)
    if isinstance(kickoff, Problem):
        return kickoff
    return Fixture(
        where, kickoff, row["home"], row["away"], row.get("venue", ""), row.get("id", ""),
        row.get("host", ""),
        tuple(name.strip() for name in row.get("televised_by", "").split(";") if name.strip()),
    )  # fmt: skip


def _kickoff(where: str, row: dict[str, str], timezone: str) -> datetime | Problem:
    if row.get("kickoff"):
        try:
            moment = datetime.fromisoformat(row["kickoff"])
        except ValueError:
            return Problem(f"{where}.kickoff", f'"{row["kickoff"]}" is not a date and time')
        if moment.tzinfo is None:
            return Problem(f"{where}.kickoff", "needs a UTC offset, e.g. +01:00")
        return moment
    zone_name = row.get("timezone") or timezone
    try:
        day = date.fromisoformat(row.get("date", ""))
        clock = time.fromisoformat(row.get("time", ""))
    except ValueError:
        return Problem(f"{where}.date", "date is YYYY-MM-DD and time HH:MM")
    if not zone_name:
        return Problem(f"{where}.timezone", "a local date and time need a timezone")
    try:
        zone = ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        return Problem(f"{where}.timezone", f'unknown timezone "{zone_name}"')
    return datetime.combine(day, clock, zone)


def read_ics(text: str) -> tuple[list[Fixture], list[Problem]]:
    """An iCalendar file: each VEVENT a match, its SUMMARY "Home v Away" (or vs, -),
    DTSTART a date and time with a timezone, LOCATION the venue (optional), UID kept out
    of the id (uids are not ids); a recurring event (RRULE, less EXDATE) is expanded, at
    most MAX_OCCURRENCES times."""
    from icalendar import Calendar

    events = len(_EVENT.findall(text))  # counted before the file is parsed: parsing is costly
    if events > MAX_ROWS:
        return [], [Problem("", f"{events:,} events, more than the {MAX_ROWS:,} a list may have")]
    try:
        calendar = Calendar.from_ical(text)
    except ValueError as error:
        return [], [Problem("", f"not an iCalendar file: {error}")]
    fixtures: list[Fixture] = []
    problems: list[Problem] = []
    for n, event in enumerate(calendar.walk("VEVENT"), 1):
        where = f"event {n}"
        summary = str(event.get("SUMMARY", "")).strip()
        sides = _VERSUS.split(summary, maxsplit=1)
        if len(sides) != 2 or not all(s.strip() for s in sides):
            problems.append(Problem(f"{where}.summary", f'"{summary}" is not "Home v Away"'))
            continue
        start = event.get("DTSTART")
        moment = start.dt if start is not None else None
        if not isinstance(moment, datetime) or moment.tzinfo is None:
            problems.append(Problem(f"{where}.dtstart", "needs a date and time with a timezone"))
            continue
        venue = str(event.get("LOCATION", "")).strip()
        home, away = (s.strip() for s in sides)
        for when in _occurrences(event, moment, where, problems):
            label = where if when == moment else f"{where}, {when.date().isoformat()}"
            fixtures.append(Fixture(label, when, home, away, venue))
        if len(fixtures) > MAX_ROWS:
            return [], [Problem("", f"more than {MAX_ROWS:,} matches")]
    return fixtures, problems


# The parts of a recurrence rule read. With these alone every period (a day, a week, a
# month, a year) from DTSTART on has an occurrence, or one within a few, so expanding it
# stops after at most MAX_OCCURRENCES of them. Any other part can make a rule that never
# occurs (BYMONTH=2;BYMONTHDAY=30), which the expansion would walk to the year 9999.
FREQUENCIES = ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
RULE_PARTS = ("FREQ", "INTERVAL", "COUNT", "UNTIL", "WKST", "BYDAY")
_WEEKDAY = re.compile(r"(MO|TU|WE|TH|FR|SA|SU)")
_EVENT = re.compile(r"^BEGIN:VEVENT", re.IGNORECASE | re.MULTILINE)


def _unbounded(rule: object) -> str:
    """Why a recurrence rule is not expanded ("" when it is read): a part other than
    RULE_PARTS, a frequency finer than a day, or days (BYDAY) other than plain weekdays
    of a daily or weekly rule."""
    parts = {str(k).upper(): v for k, v in dict(rule).items()}  # type: ignore[call-overload]
    other = sorted(set(parts) - set(RULE_PARTS))
    if other:
        return (
            f"{', '.join(other)} {'is' if len(other) == 1 else 'are'} not read in a fixture"
            f" list (only "
            f"{', '.join(RULE_PARTS)}); list those matches as events of their own"
        )
    frequency = str((parts.get("FREQ") or [""])[0]).upper()
    if frequency not in FREQUENCIES:
        return (
            f"FREQ={frequency or '(none)'}: a match recurs at most daily ({', '.join(FREQUENCIES)})"
        )
    days = [str(d).upper() for d in parts.get("BYDAY") or []]
    if days and frequency not in ("DAILY", "WEEKLY"):
        return f"BYDAY with FREQ={frequency} is not read; list those matches as events of their own"
    wrong = [d for d in days if not _WEEKDAY.fullmatch(d)]
    if wrong:
        return f"BYDAY={','.join(wrong)}: only weekdays (MO to SU), without a number before them"
    return ""


def _occurrences(
    event: object, start: datetime, where: str, problems: list[Problem]
) -> list[datetime]:
    from dateutil.rrule import rrulestr  # type: ignore[import-untyped]  # icalendar's own

    rule = event.get("RRULE")  # type: ignore[attr-defined]
    if rule is None:
        return [start]
    refused = _unbounded(rule)
    if refused:
        problems.append(Problem(f"{where}.rrule", refused))
        return []
    text = rule.to_ical().decode()
    try:
        rules = rrulestr(text, dtstart=start)
    except (ValueError, TypeError) as error:
        problems.append(Problem(f"{where}.rrule", f"cannot be read: {error}"))
        return []
    skipped = set()
    exdates = event.get("EXDATE")  # type: ignore[attr-defined]
    for listed in exdates if isinstance(exdates, list) else [exdates] if exdates else []:
        skipped |= {d.dt for d in listed.dts}
    out: list[datetime] = []
    for when in rules:
        if len(out) == MAX_OCCURRENCES:
            problems.append(Problem(f"{where}.rrule", f"repeats more than {MAX_OCCURRENCES} times"))
            return []
        if when not in skipped:
            out.append(when)
    return out
