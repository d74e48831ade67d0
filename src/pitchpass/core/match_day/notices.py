"""What a change tells whom: the kinds of notice an organisation can hear about, and
which of its requests a new proposal, a publish or a logged incident concerns. Pure: the
web app records what these answer (web/services/notices.py) and sends it.

A notice only ever carries its addressee's own requests: a request's proposal changed
(`decided`, or `bumped` when a grant of the last proposal became a refusal), its grant
published (`granted`), its refusal published (`refused`, with the reasons, told again
only when they change), a published grant taken back (`revoked`), a place offered from
the waitlist (`promoted`), a crew not in yet warned before its place is released
(`release-warning`), one phase's place released (`released`), a club asked for consent
to its own room (`consent-asked`), and an incident logged where and when the
organisation holds a published place (`incident`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from pitchpass.core.codes import Status
from pitchpass.core.explaining.coverage import phase_at
from pitchpass.core.model import Incident, Phase, Request

DECIDED = "decided"
BUMPED = "bumped"
GRANTED = "granted"
REFUSED = "refused"
REVOKED = "revoked"
PROMOTED = "promoted"
RELEASE_WARNING = "release-warning"
RELEASED = "released"
CONSENT_ASKED = "consent-asked"
INCIDENT = "incident"

# The kinds, as a type (the API's `?kind=` is one of them) and as a tuple.
Kind = Literal[
    "decided", "bumped", "granted", "refused", "revoked", "promoted", "release-warning",
    "released", "consent-asked", "incident",
]  # fmt: skip
KINDS: tuple[str, ...] = get_args(Kind)

WORDS = {
    DECIDED: "a request's proposed decision (a decide or an override)",
    BUMPED: "a request proposed granted, then refused",
    GRANTED: "a grant published",
    REFUSED: "a refusal published, with its reasons",
    REVOKED: "a published grant revoked",
    PROMOTED: "a place offered from the waitlist",
    RELEASE_WARNING: "a published place about to be released: none of its crew in yet",
    RELEASED: "a phase's published place released, none of its crew having come",
    CONSENT_ASKED: "a club's consent asked for its own room",
    INCIDENT: "an incident logged where the organisation holds a place",
}


@dataclass(frozen=True)
class Outcome:
    """A request's decision as its organisation sees it: the status and the reasons'
    sentences (in the core's order)."""

    status: str
    reasons: tuple[str, ...] = ()


def after_proposal(before: Mapping[str, Outcome], after: Mapping[str, Outcome]) -> dict[str, str]:
    """The requests a new proposal tells of, each with its kind: those it decides that the
    proposal before did not decide alike (`decided`), a grant of that one now refused
    (`bumped`). A request decided alike, or no longer decided, is not told of."""
    told = {}
    for key, new in after.items():
        old = before.get(key)
        if old == new:
            continue
        was_granted = old is not None and old.status == Status.GRANTED
        told[key] = BUMPED if was_granted and new.status == Status.REFUSED else DECIDED
    return told


def after_publish(
    decided: Mapping[str, Outcome], newly: Iterable[str], told: Mapping[str, Outcome | None]
) -> dict[str, str]:
    """The requests a publish tells of: its newly published grants (`granted`) and the
    refusals it publishes that their organisations were not told of as they now stand
    (`refused`; `told` holds what each request's organisation was last told when
    published, None for nothing yet)."""
    result = {key: GRANTED for key in newly}
    for key, outcome in decided.items():
        if key in result or outcome.status != Status.REFUSED:
            continue
        if told.get(key) != outcome:
            result[key] = REFUSED
    return result


def holders(incident: Incident, plan: Sequence[Phase], published: Iterable[Request]) -> list[str]:
    """The organisations holding a published place in the incident's own zone during its
    phase (none outside every phase), in the order of their first such request."""
    phase = phase_at(incident.minute, plan)
    if phase is None:
        return []
    found: dict[str, None] = {}
    for request in published:
        if request.zone == incident.zone and phase in request.phases:
            found.setdefault(request.by, None)
    return list(found)


def wanted(kind: str, organisation: Iterable[str] | None, user: Iterable[str] | None) -> bool:
    """Whether a user hears of a notice of `kind`: as the user chose if they chose (None:
    not), else as their organisation chose, else everything."""
    chosen = user if user is not None else organisation
    return chosen is None or kind in set(chosen)
