"""Input problems: each names its place in the document and says what is wrong."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str  # "requests[3].zone"; "" for the document itself
    message: str

    def as_json(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class ScenarioInvalid(Exception):
    """A scenario (or a what-if change) that cannot be decided; holds every problem found."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = tuple(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


class SolverFailed(Exception):
    """The exact solver did not prove its answer optimal: no answer is given rather than a guess."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """' (did you mean "x"?)' for the nearest known word, or '' when none is near."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""
