"""A matchweek on the desk (issue 27, section 1; docs/scenario-extensions.md, "A matchweek
together"): a league admin decides several matches of one competition together, their
open requests in one decision, jointly and exactly under the season rules with what the
season holds elsewhere fixed (the core's decide of the competition's export), and
publishes them together, all or none. Officers keep deciding their own matches."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from pitchpass.core import check_document
from pitchpass.core.deciding.decide import decide
from pitchpass.core.explaining.report import match_json
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import audit
from pitchpass.web.persistence.changes import check_text
from pitchpass.web.services import access, decisions

MAX_TOGETHER = 20  # matches: a matchweek of a league of 40 clubs


@dataclass(frozen=True)
class Together:
    """Matches of one competition to decide or publish together, in key order (the order
    their rows are locked in, so two admins never wait on each other in a circle)."""

    competition: str
    matches: list[str]


def offered(user: User) -> bool:
    """Whether the match list offers this user to decide and publish matches together."""
    return access.profile(user).role == "admin"


def check_together(user: User, match_keys: list[str], competition: str | None = None) -> Together:
    """An admin, and 1 to MAX_TOGETHER distinct matches of one competition (`competition`,
    where the caller names it). No locks."""
    if access.profile(user).role != "admin":
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            "only a league admin decides matches together: a club's officer decides its own",
        )
    keys = sorted(set(match_keys))
    if not keys:
        raise ServiceError(
            ErrorCode.INVALID, "tick the matches to decide or publish together", "matches"
        )
    if len(keys) > MAX_TOGETHER:
        raise ServiceError(
            ErrorCode.INVALID,
            f"at most {MAX_TOGETHER} matches together ({len(keys)} ticked)",
            "matches",
        )
    check_text(keys, "matches")  # no NUL, no lone surrogate: PostgreSQL could not look it up
    found = dict(m.Match.objects.filter(key__in=keys).values_list("key", "competition__key"))
    missing = [k for k in keys if k not in found]
    if missing:
        raise ServiceError(ErrorCode.NOT_FOUND, f'no match "{missing[0]}"', "matches")
    competitions = sorted(set(found.values()))
    if len(competitions) > 1:
        raise ServiceError(
            ErrorCode.INVALID,
            f"matches of one competition are decided together, not of {len(competitions)}"
            f" ({', '.join(competitions)})",
            "matches",
        )
    if competition is not None and competitions != [competition]:
        raise ServiceError(
            ErrorCode.INVALID,
            f'the matches are of {competitions[0]}, not of "{competition}"',
            "matches",
        )
    return Together(competitions[0], keys)


def do_decide_together(
    user: User, match_keys: list[str], competition: str | None = None
) -> dict[str, dict[str, Any]]:
    """Decide the matches together and keep a run for each, as its own decide would
    (each match's run is current until that match changes). Locks each match, in key
    order. The output of each match, by key."""
    together = check_together(user, match_keys, competition)
    first, *rest = together.matches
    with transaction.atomic():
        matches = [access.managed(user, key) for key in together.matches]
        document = store.export(first, together=rest)
        scenario, problems, _ = check_document(document)
        if scenario is None:
            raise ServiceError(
                ErrorCode.CONFLICT,
                f"the matches do not decide as stored ({problems[0].path}: "
                f"{problems[0].message}): a league admin has to correct it",
            )
        results = {r.match.id: r for r in decide(scenario, together.matches)}
        batch = uuid.uuid4().hex  # the mark the runs share: current while each's is newest
        out = {}
        for match in matches:
            output = _own_ids(match_json(results[match.key]), match.key)
            partners = [key for key in together.matches if key != match.key]
            run = decisions.save_run(match, user, output, [], partners, batch)
            said = f"run {run.number}, together with {', '.join(together.matches)}"
            audit(user, "decide", match, said, None, output)
            out[match.key] = output
        return out


def do_publish_together(
    user: User, match_keys: list[str], competition: str | None = None
) -> dict[str, list[str]]:
    """Publish each match's current run, in key order, in one transaction: all or none
    (a match changed since its decide, or a quota the season has used since, stops them
    all, with its reason). The ids newly published, by match."""
    together = check_together(user, match_keys, competition)
    published: dict[str, list[str]] = {}
    with transaction.atomic():
        for key in together.matches:
            try:
                published[key] = decisions.do_publish(user, key)
            except ServiceError as refused:  # all or none: say which, and that none was
                raise ServiceError(
                    refused.code,
                    f"{key}: {refused.message}. None of the {len(together.matches)} matches"
                    " ticked was published.",
                    refused.path,
                ) from None
    return published


def _own_ids(output: dict[str, Any], match_key: str) -> dict[str, Any]:
    """A match's output with its requests' own ids (the export writes `match:id` where
    another match of the document took the id first)."""
    prefix = f"{match_key}:"
    for d in output["decisions"]:
        d["request"] = d["request"].removeprefix(prefix)
    for incident in output["incidents"]:
        incident["incident"] = incident["incident"].removeprefix(prefix)
        for source in incident["covered_by"]:
            if source["source"] == "request":
                source["id"] = source["id"].removeprefix(prefix)
    return output
