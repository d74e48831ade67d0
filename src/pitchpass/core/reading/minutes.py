"""Football minutes ("45+2", "90+3") and the clock minutes of the phases.

A scenario's `minute` is the clock: minutes after kick-off, half-time break included, as
the phases are laid out (docs/contract.md). A steward thinks in football minutes: the 47th
minute of the first half is "45+2", and the second half starts again at 46. This turns one
into the other, through the plan's `first-half` and `second-half` phases: football
minute N of a half is the clock minute (N - first of that half) after the half starts,
stoppage time "+K" counting on from the half's last regular minute. A football minute is
written with its mark ("87'") or as stoppage time ("45+2"); a plain number is the clock.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pitchpass.core.model import Phase

HALVES = (("first-half", 1, 45), ("second-half", 46, 90))  # phase, first and last minute
FOOTBALL = re.compile(r"^\s*(\d{1,3})\s*\+\s*(\d{1,2})\s*['\u2019]?\s*$")
MARKED = re.compile(
    r"^\s*(\d{1,3})\s*['\u2019]\s*$"
)  # 87' (or with a phone's right quote): a football minute


class NotAMinute(ValueError):
    """A football minute that the plan cannot place; the message says why."""


def clock_minute(text: str, plan: Sequence[Phase]) -> float | None:
    """The clock minute of a football minute written "45+2" or "87'" (None: not written
    so)."""
    marked = MARKED.match(text)
    if marked is not None:
        return _in_a_half(int(marked[1]), text, plan)
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


def _in_a_half(minute: int, text: str, plan: Sequence[Phase]) -> float:
    """The clock minute of football minute `minute` (1 to 45 in the first half, 46 to 90
    in the second): the clock at the start of that minute of play."""
    for phase_id, first, last in HALVES:
        if first <= minute <= last:
            phase = next((p for p in plan if p.id == phase_id), None)
            if phase is None:
                raise NotAMinute(f'"{text}": this competition\'s phases have no {phase_id}')
            return phase.start + (minute - first)
    raise NotAMinute(f'"{text}": a football minute is 1 to 90 ("87\'"), then stoppage time')


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
    def whole(self) -> int:
        """The clock minute as the header shows it: cut, as the incident form's "now" is
        (minute 112.6 is 112, as a clock reads 12:52 until 12:53)."""
        return math.floor(self.minute)

    @property
    def typed(self) -> str:
        """The minute as the header shows it and the incident form takes it: in a half the
        football minute ("87'", or stoppage time as the referee's board shows it, "45+2"),
        else the clock minute (a plain number is the clock's)."""
        if self.football:
            return self.football if "+" in self.football else f"{self.football}'"
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
