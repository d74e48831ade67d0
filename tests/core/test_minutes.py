"""Football minutes and the clock of the phases (core/minutes.py)."""

from __future__ import annotations

import pytest

from pitchpass.core.minutes import NotAMinute, clock_minute, football_minute
from pitchpass.core.model import DEFAULT_PHASES, Phase


@pytest.mark.parametrize(
    ("typed", "clock"), [("45+2", 46), ("45 + 1", 45), ("90+3", 109), ("90+3'", 109)]
)
def test_stoppage_time_is_placed_on_the_clock_of_the_default_plan(typed: str, clock: int) -> None:
    assert clock_minute(typed, DEFAULT_PHASES) == clock
    assert football_minute(clock, DEFAULT_PHASES) == typed.replace(" ", "").rstrip("'")


def test_plain_numbers_are_not_football_minutes() -> None:
    assert clock_minute("93", DEFAULT_PHASES) is None


@pytest.mark.parametrize(("clock", "shown"), [(0, "1"), (44, "45"), (62, "46"), (96, "80")])
def test_each_half_counts_from_its_own_start(clock: int, shown: str) -> None:
    assert football_minute(clock, DEFAULT_PHASES) == shown


@pytest.mark.parametrize("clock", [-30, 50, 150])
def test_no_football_minute_outside_the_halves(clock: int) -> None:
    assert football_minute(clock, DEFAULT_PHASES) is None


def test_stoppage_time_needs_a_half_to_follow() -> None:
    with pytest.raises(NotAMinute, match="follows 45 or 90"):
        clock_minute("60+2", DEFAULT_PHASES)
    with pytest.raises(NotAMinute, match="no second-half"):
        clock_minute("90+1", (Phase("first-half", 0, 47), Phase("rest", 47, 200)))
