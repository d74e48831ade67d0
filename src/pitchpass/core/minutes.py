"""Football minutes ("45+2", "90+3") and the clock minutes of the phases.

A scenario's `minute` is the clock: minutes after kick-off, half-time break included, as
the phases are laid out (SCENARIO.md). A steward thinks in football minutes: the 47th
minute of the first half is "45+2", and the second half starts again at 46. This turns one
into the other, through the plan's `first-half` and `second-half` phases: football
minute N of a half is the clock minute (N - first of that half) after the half starts,
stoppage time "+K" counting on from the half's last regular minute.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pitchpass.core.model import Phase

HALVES = (("first-half", 1, 45), ("second-half", 46, 90))  # phase, first and last minute
FOOTBALL = re.compile(r"^\s*(\d{1,3})\s*\+\s*(\d{1,2})\s*'?\s*$")


class NotAMinute(ValueError):
    """A football minute that the plan cannot place; the message says why."""


def clock_minute(text: str, plan: Sequence[Phase]) -> float | None:
    """The clock minute of a football minute written "45+2" (None: not written so)."""
    found = FOOTBALL.match(text)
    if found is None:
        return None
    regular, added = int(found[1]), int(found[2])
    for phase_id, first, last in HALVES:
        if regular == last:
            phase = next((p for p in plan if p.id == phase_id), None)
            if phase is None:
                raise NotAMinute(f'"{text}": this competition\'s phases have no {phase_id}')
            return phase.start + (last - first) + added
    raise NotAMinute(f'"{text}": stoppage time follows 45 or 90 ("45+2", "90+3")')


def football_minute(clock: float, plan: Sequence[Phase]) -> str | None:
    """The football minute shown for a clock minute in a half ("45+2" for 46 in the
    default plan); None outside the halves (before kick-off, at half-time, after)."""
    for phase_id, first, last in HALVES:
        phase = next((p for p in plan if p.id == phase_id), None)
        if phase is None or not phase.holds(clock):
            continue
        played = int(clock - phase.start)  # whole minutes played in the half
        if first + played <= last:
            return str(first + played)
        return f"{last}+{first + played - last}"
    return None
