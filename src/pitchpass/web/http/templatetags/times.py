"""`{{ moment|when:zone }}`: a time with its date and time zone (services/times.py), in
`zone` (a match's `zone`, the venue's) if given, else in its own."""

from __future__ import annotations

from datetime import datetime, tzinfo

from django import template

from pitchpass.web.services import times

register = template.Library()


@register.filter
def when(moment: datetime | str | None, zone: tzinfo | None = None) -> str:
    """A moment as every page writes it; an ISO 8601 text (what the API also says) too."""
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return times.written(moment.astimezone(zone) if zone else moment)


@register.filter
def when_short(moment: datetime | None, zone: tzinfo | None = None) -> str:
    """The same without the year, to the second (a door's scans)."""
    if moment is None or moment == "":
        return ""
    return times.written(moment.astimezone(zone) if zone else moment, times.SHORT)
