"""Reasons a request is refused, each with a stable code, numbers to check and a sentence."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pitchpass.core.codes import ReasonCode


@dataclass(frozen=True)
class Reason:
    code: ReasonCode
    text: str
    zone: str | None = None
    phase: str | None = None
    used: int | None = None
    capacity: int | None = None
    needed: int | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code.value}
        if self.zone is not None:
            out["zone"] = self.zone
            out["phase"] = self.phase
        if self.code is ReasonCode.CAPACITY:
            out.update(used=self.used, capacity=self.capacity, needed=self.needed)
        elif self.code is ReasonCode.QUOTA:  # a quota's limit is kept in `capacity`
            out.update(used=self.used, at_most=self.capacity, needed=self.needed)
        out["text"] = self.text
        return out


def capacity_reason(
    zone: str, phase: str, used: int, capacity: int, needed: int, holders: Sequence[tuple[str, int]]
) -> Reason:
    """A refusal for room in one cell; `holders` are (tier name, crews) in tier order."""
    taken = f"{used} of {capacity} {'place' if capacity == 1 else 'places'} taken"
    if holders:
        taken += " by " + _and(
            [f"{n} {tier} crew" + ("" if n == 1 else "s") for tier, n in holders]
        )
    text = f"{zone}, {phase}: {taken}; {needed} needed"
    if needed > capacity:
        text += ", more than it holds"
    return Reason(ReasonCode.CAPACITY, text, zone, phase, used, capacity, needed)


def places_to_fit(reasons: Iterable[Reason]) -> dict[tuple[str, str], int]:
    """For each `capacity` reason, the capacity of its zone and phase that would let the
    request in there (the places used beside it, and its own): the way forward in numbers."""
    return {
        (r.zone or "", r.phase or ""): (r.used or 0) + (r.needed or 0)
        for r in reasons
        if r.code is ReasonCode.CAPACITY
    }


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
