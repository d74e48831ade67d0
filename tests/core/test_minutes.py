"""Football minutes and the clock of the phases (core/reading/minutes.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pitchpass.core.model import DEFAULT_PHASES, Phase
from pitchpass.core.reading.minutes import NotAMinute, clock_at, clock_minute, football_minute


@pytest.mark.parametrize(
    ("typed", "clock"), [("45+2", 46), ("45 + 1", 45), ("90+3", 109), ("90+3'", 109)]
)
def test_stoppage_time_is_placed_on_the_clock_of_the_default_plan(typed: str, clock: int) -> None:
    assert clock_minute(typed, DEFAULT_PHASES) == clock
    assert football_minute(clock, DEFAULT_PHASES) == typed.replace(" ", "").rstrip("'")


def test_plain_numbers_are_not_football_minutes() -> None:
    assert clock_minute("93", DEFAULT_PHASES) is None


@pytest.mark.parametrize(("typed", "clock"), [("1'", 0), ("45'", 44), ("46'", 62), ("87'", 103)])
def test_a_marked_football_minute_is_placed_in_its_half(typed: str, clock: int) -> None:
    assert clock_minute(typed, DEFAULT_PHASES) == clock
    assert (
        clock_minute(typed.replace("'", "\u2019"), DEFAULT_PHASES) == clock
    )  # a phone's right quote
    assert football_minute(clock, DEFAULT_PHASES) == typed.rstrip("'")


def test_a_football_minute_is_1_to_90() -> None:
    with pytest.raises(NotAMinute, match="1 to 90"):
        clock_minute("91'", DEFAULT_PHASES)
    with pytest.raises(NotAMinute, match="1 to 90"):
        clock_minute("0'", DEFAULT_PHASES)


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


def test_the_clock_names_the_phase_the_half_minute_and_the_next_phase() -> None:
    plan = {p.id: p for p in DEFAULT_PHASES}
    at = clock_at(46.5, DEFAULT_PHASES)  # the first half's stoppage time
    assert (at.phase, at.football, at.typed) == ("first-half", "45+2", "45+2")
    second = clock_at(103.2, DEFAULT_PHASES)
    assert (second.phase, second.football, second.typed) == ("second-half", "87", "87'")
    assert clock_at(50, DEFAULT_PHASES).typed == "50"  # half-time: the clock
    assert at.next_phase == "half-time" and at.next_start == plan["half-time"].start
    early = clock_at(-200, DEFAULT_PHASES)
    assert early.phase is None and early.football is None
    assert early.next_phase == min(DEFAULT_PHASES, key=lambda p: p.start).id
    late = clock_at(10_000, DEFAULT_PHASES)
    assert (late.phase, late.next_phase, late.next_start) == (None, None, None)


@given(st.floats(-300, 300, allow_nan=False))
def test_the_minute_filled_in_reads_back_as_the_same_clock_minute(minute: float) -> None:
    """What the incident form is given ("87'", "45+2" or a clock minute) is read back (as
    the form reads it) as the whole clock minute now."""
    typed = clock_at(minute, DEFAULT_PHASES).typed
    back = clock_minute(typed, DEFAULT_PHASES)
    assert (float(typed) if back is None else back) == math.floor(minute)
