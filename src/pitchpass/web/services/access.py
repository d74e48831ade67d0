"""Who may see what. Every read of the API goes through these, so that nothing shows
another organisation's requests, or even that they exist.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Exists, OuterRef, Q, QuerySet

from pitchpass.core.deciding.policy import occupant_club
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import changes
from pitchpass.web.persistence import models as m
from pitchpass.web.services.snapshot import once, remembered, requests_of


def profile(user: User) -> m.Profile:
    """The user's role and organisation: read with the user already when it came by a
    token (accounts.user_for_token), else once per read-only request."""
    known = user._state.fields_cache.get("profile")
    found = known if isinstance(known, m.Profile) else None
    if found is None:
        found = remembered(
            ("profile", user.pk),
            lambda: m.Profile.objects.select_related("organisation").filter(user=user).first(),
        )
    if found is None:
        raise ServiceError(ErrorCode.FORBIDDEN, "this user has no role; ask a league admin")
    return found


def visible_matches(user: User) -> QuerySet[m.Match]:
    """Admins, media and stewards see every match; a club's officer sees its club's
    (`sees`, the same rule for one match already read)."""
    who = profile(user)
    matches = m.Match.objects.select_related("venue", "home", "away", "host", "competition")
    if who.role == "officer":
        return matches.filter(Q(home=who.organisation) | Q(away=who.organisation))
    return matches


def sees(who: m.Profile, match: m.Match) -> bool:
    """Whether `visible_matches` holds this match for the profile's user."""
    return who.role != "officer" or who.organisation_id in (match.home_id, match.away_id)


def check_match(user: User, match_key: str) -> m.Match:
    """The match, if this user may see it; 404 alike whether absent or hidden."""
    found = remembered(
        ("match", user.pk, match_key), lambda: _one(visible_matches(user), match_key)
    )
    return _found(found, match_key)


def check_match_of(who: m.Profile, match_key: str, door: bool = False) -> m.Match:
    """`check_match` for a profile read already (one statement, as `visible_matches`);
    `door`: with whether a steward is assigned to the match's venue (`assigned`, what
    doors.check_door asks), in the same statement."""
    matches = m.Match.objects.select_related("venue", "home", "away", "host", "competition")
    if door and who.role == "steward":
        venues = m.Profile.venues.through.objects.filter(profile_id=who.pk)
        matches = matches.annotate(assigned=Exists(venues.filter(venue_id=OuterRef("venue_id"))))
    found = _one(matches, match_key)
    return _found(found if found is not None and sees(who, found) else None, match_key)


def check_match_row(user: User, match_key: str, competition: bool = False) -> m.Match:
    """`check_match`, the match's own row (its venue and clubs read if used), with its
    `competition` (deadline, policy) if asked: what the API needs at every call."""
    who = profile(user)
    rows = m.Match.objects.all()
    found = _one(rows.select_related("competition") if competition else rows, match_key)
    return _found(found if found is not None and sees(who, found) else None, match_key)


def _one(rows: QuerySet[m.Match], match_key: str) -> m.Match | None:
    return next(iter(rows.filter(key=match_key).order_by()[:1]), None)


def _found(match: m.Match | None, match_key: str) -> m.Match:
    if match is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'no match "{match_key}"', "match")
    return match


def manages(user: User, match: m.Match) -> bool:
    """League admins, and the officer of the home club (the venue's club)."""
    who = profile(user)
    return who.role == "admin" or (who.role == "officer" and who.organisation_id == match.home_id)


def visible_requests(user: User, match: m.Match) -> QuerySet[m.Request]:
    """All of the match's requests for those who manage it; an organisation's own for its
    members, and for a club's officer also those in the zones its club occupies (its
    dressing room, where it consents); stewards are refused (they see coverage)."""
    if profile(user).role == "steward":
        raise ServiceError(ErrorCode.FORBIDDEN, "stewards do not see requests")
    return seen_requests(user, match)


def seen_requests(user: User, match: m.Match) -> QuerySet[m.Request]:
    """The requests of `visible_requests`, none for a steward."""
    who = profile(user)
    requests = match.requests.select_related("by", "zone", "offer").prefetch_related("consent")
    if manages(user, match):
        return requests
    if who.role == "steward" or who.organisation is None:
        return requests.none()
    mine = Q(by=who.organisation)
    if who.role == "officer":
        for side in ("home", "away"):
            if occupant_club(side, match.home.key, match.away.key) == who.organisation.key:
                mine |= Q(zone__occupant=side)
    return requests.filter(mine)


def sees_access_list(user: User, match: m.Match) -> bool:
    """The stewards assigned to the match's venue, and those who manage the match, see its
    access list (who may be where and when: the board's, the PDF's)."""
    who = profile(user)
    if who.role == "steward":
        return who.venues.filter(pk=match.venue_id).exists()
    return manages(user, match)


def published_for(organisation: m.Organisation) -> QuerySet[m.Request]:
    """An organisation's published grants at every match, and those revoked since: its own
    requests, which its members see (`seen_requests`; media see every match), and only
    those, never another organisation's."""
    rows = m.Request.objects.filter(by=organisation).filter(Q(locked=True) | ~Q(revoked=""))
    return rows.select_related(
        "by", "zone", "offer", "match__home", "match__away", "match__venue", "match__competition"
    )


def managed(user: User, match_key: str) -> m.Match:
    """The match, locked, if the user manages it (home club's officer, admin)."""
    return changes.lock_match(check_manages(user, match_key))


def check_manages(user: User, match_key: str) -> m.Match:
    match = check_match(user, match_key)
    if not manages(user, match):
        raise ServiceError(ErrorCode.FORBIDDEN, "only the home club's officer or an admin")
    return match


def seen_list(user: User, match: m.Match) -> list[m.Request]:
    """`seen_requests` as a list, read once per page (all of them: the match's list)."""
    if manages(user, match):
        return requests_of(match)
    return once(f"seen:{user.pk}", match, lambda: list(seen_requests(user, match)))
