"""A minimum's make-up debts (docs/scenario-extensions.md, "Minimum", and docs/section-k.md):
walking a pair's club's matches in kick-off order, a refusal of the pair opens a debt while
the pair's count and its open debts are below the minimum; a later grant pays the oldest.
The season report (season_report) and the desk's season standing (season_rules.standing)
both walk here, so they owe alike."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pitchpass.core.codes import ReasonCode
from pitchpass.core.model import Minimum

# Refusals that are the requester's own doing open no debt.
NO_DEBT = frozenset({ReasonCode.LATE, ReasonCode.NO_SHOWS})


@dataclass(frozen=True)
class MatchOutcome:
    """A request of a pair as decided at one match: granted, or refused for its reasons."""

    request: str
    granted: bool
    codes: frozenset[ReasonCode] = frozenset()


@dataclass
class Debt:
    opened_at: str  # the match of the refusal
    request: str
    refused: tuple[str, ...]  # its reasons' codes
    paid_at: str | None = None  # the match whose grant paid it


def opens_debt(minimum: Minimum, codes: Iterable[ReasonCode]) -> bool:
    """Whether a refusal for these reasons opens a make-up debt: any but the requester's
    own doing (late, no-shows); under `debts: club-refusal`, only the club's own: consent
    refused or never given."""
    codes = set(codes)
    if minimum.debts == "club-refusal":
        return ReasonCode.NO_CONSENT in codes
    return not codes & NO_DEBT


def walk(
    minimum: Minimum, at: Sequence[tuple[str, Sequence[MatchOutcome]]]
) -> tuple[int, list[Debt]]:
    """The pair's count and its debts over `at`: (match id, the pair's outcomes there) for
    each match at which its club owes it, in kick-off order. Under `counts: occasions` a
    match counts once, and owes once."""
    occasions = minimum.counts == "occasions"
    count = 0
    debts: list[Debt] = []
    for match_id, mine in at:
        granted = sum(1 for o in mine if o.granted)
        for _ in range(min(granted, 1) if occasions else granted):
            count += 1
            # debts open now were opened at earlier matches: refusals come after
            owed = next((debt for debt in debts if debt.paid_at is None), None)
            if owed is not None:
                owed.paid_at = match_id
        for o in mine:
            if o.granted or not opens_debt(minimum, o.codes):
                continue
            if occasions and (granted or any(x.opened_at == match_id for x in debts)):
                continue  # an occasion is met or owed here once
            open_now = sum(1 for debt in debts if debt.paid_at is None)
            if count + open_now < minimum.at_least:
                debts.append(Debt(match_id, o.request, tuple(sorted(c.value for c in o.codes))))
    return count, debts
