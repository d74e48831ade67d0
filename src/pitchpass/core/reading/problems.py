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
    """The exact solver found no choice at all (none within its time limit, and no choice
    that holds to fall back on): nothing is decided."""


@dataclass(frozen=True)
class Unproven:
    """A choice kept when the solver's time limit passed before it was proven the best:
    from `objective` on (most important first), the best found, not proven. `most` is the
    most `objective` could count, proven; None when it was not searched at all."""

    where: str  # "match m1", "the season's 3 linked matches (...)"
    objective: str  # its name in the model ("granted[tier 0]", "minimums", ...)
    found: int
    most: int | None
    seconds: float
    limit: float  # the time limit, seconds

    def text(self) -> str:
        bound = "not searched" if self.most is None else f"at most {self.most} possible"
        return (
            f"not proven the best choice for {self.where}: the time limit of {self.limit:g} s"
            f" passed after {self.seconds:.1f} s; {_words(self.objective)}: {self.found}"
            f" found, {bound}; the best choice found is kept"
        )


def _words(objective: str) -> str:
    """An objective's name in the solver's model, as the officer reads it."""
    if objective.startswith("granted[tier "):
        return f"requests granted at priority rank {int(objective[13:-1]) + 1}"
    if objective.startswith("granted["):  # one request's own: which one is not said
        return "a request's own place in the priority order (granted 1, or not 0)"
    if objective == "minimums":
        return "season minimums met"
    if objective.startswith("rotation[") and "] turns >= " in objective:
        number, turns = objective[9:].split("] turns >= ")
        return f"organisations with {turns} turns or more in rotation {int(number) + 1}"
    return objective


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """' (did you mean "x"?)' for the nearest known word, or '' when none is near."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""
