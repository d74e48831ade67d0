"""Stable codes: every reason a request is refused for, every status, every mode.

Tests and other tools assert these codes, never the sentences that go with them.
(Input problems are located by their path; codes for them come with the web API.)
"""

from enum import StrEnum


class ReasonCode(StrEnum):
    LATE = "late"
    CLOSED = "closed"
    NO_CONSENT = "no-consent"
    CAPACITY = "capacity"
    NO_SHOWS = "no-shows"  # its organisation's no-shows bar it (docs/scenario-extensions.md)
    OVERRIDE = "override"  # refused by hand: the officer's written reason (the desk's own)
    # The season rules' own (docs/scenario-extensions.md, "Season rules"): a quota reached,
    # and a minimum or a rotation that made a grant or cost one (a grant's only reasons).
    QUOTA = "quota"
    MINIMUM = "minimum"
    ROTATION = "rotation"
    SEASON = "season"  # refused where its match on its own grants it, by a rule at one remove
    # The match-day record's own (core/match_day/record.py, the desk only): a place offered from the
    # waitlist declined or not accepted in time, a published grant released as a no-show
    # or revoked by hand.
    DECLINED = "declined"
    LAPSED = "lapsed"
    RELEASED = "released"
    REVOKED = "revoked"


class Status(StrEnum):
    GRANTED = "granted"
    REFUSED = "refused"
    REMOVED = "removed"  # only in what-if changes: the request was taken out
    # Only on the desk (the web app), never in a decide: a published grant taken back,
    # and a request sent or changed since the last decide.
    REVOKED = "revoked"
    WAITING = "waiting"
    OFFERED = "offered"  # offered a place from the waitlist, its crew not answered yet


class Mode(StrEnum):
    MOST_GRANTED = "most-granted"
    FIRST_COME = "first-come"
