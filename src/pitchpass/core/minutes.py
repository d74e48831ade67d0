"""Football minutes ("45+2", "90+3") and the clock minutes of the phases.

A scenario's `minute` is the clock: minutes after kick-off, half-time break included, as
the phases are laid out (SCENARIO.md). A steward thinks in football minutes: the 47th
minute of the first half is "45+2", and the second half starts again at 46. This turns one
into the other, through the plan's `first-half` and `second-half` phases: football
minute N of a half is the clock minute (N - first of that half) after the half starts,
stoppage time "+K" counting on from the half's last regular minute.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Clock:
    """Where a match stands at a clock minute: the phase it is in (None between or
    outside them), the football minute in a half ("45+2"), and the next phase to start."""

    minute: float
    phase: str | None
    football: str | None
    next_phase: str | None
    next_start: float | None

    @property
    def typed(self) -> str:
        """The minute as the incident form takes it: stoppage time as the referee's board
        shows it ("45+2"), else the clock minute (a plain number is the clock's)."""
        if self.football and "+" in self.football:
            return self.football
        return str(math.floor(self.minute))


def clock_at(minute: float, plan: Sequence[Phase]) -> Clock:
    """The match's clock at `minute` after kick-off, by its phases."""
    phase = next((p.id for p in plan if p.holds(minute)), None)
    ahead = sorted((p for p in plan if p.start > minute), key=lambda p: p.start)
    nxt = ahead[0] if ahead else None
    return Clock(
        minute,
        phase,
        football_minute(minute, plan),
        nxt.id if nxt else None,
        nxt.start if nxt else None,
    )
