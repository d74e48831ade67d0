"""Users, their roles and their API tokens (the CLI's `user add` and `token ...`)."""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.audit import COMMAND_LINE, audit

ROLE_NAMES = [role for role, _ in m.ROLES]
ORG_KIND = {"officer": ("club",), "media": ("broadcaster", "producer", "agency", "other")}
NAME_MAX = 150  # Django's first_name, where the name an e-mail greets is kept
# Control, bidirectional and lone surrogate characters: unprintable, spoofable, unstorable.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# A name to sign in with: ASCII letters, digits and . _ @ + - (Django's ASCII usernames),
# starting with a letter or digit, at most Django's 150: no spaces, no control
# characters, no letters of other scripts that look like these (a Cyrillic "a", U+0430).
USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,149}")


def do_add_user(
    username: str,
    role: str,
    org_key: str | None,
    password: str,
    email: str = "",
    venues: list[str] | None = None,
    name: str = "",
) -> User:
    """Create a user with a role; officers belong to a club, media users to the
    organisation they submit for, stewards work the doors of their `venues`' matches;
    notices are e-mailed to `email` (none: not e-mailed), greeting the user by `name`
    (none: by username). Fails on a username already taken."""
    if not USERNAME.fullmatch(username):
        raise ServiceError(
            ErrorCode.INVALID,
            "a username is 1 to 150 of the letters A-Z and a-z, the digits and . _ @ + -,"
            " starting with a letter or a digit",
            "username",
        )
    found_venues = _venues(role, venues or [])
    name = name.strip()
    if len(name) > NAME_MAX or UNSAFE.search(name):
        raise ServiceError(
            ErrorCode.INVALID,
            f"a name has at most {NAME_MAX} characters, none a control or bidirectional one",
            "name",
        )
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise ServiceError(
                ErrorCode.INVALID, f'"{email[:80]}" is not an e-mail address', "email"
            ) from None
    if role not in ROLE_NAMES:
        raise ServiceError(
            ErrorCode.INVALID, f"role must be one of {', '.join(ROLE_NAMES)}", "role"
        )
    organisation = None
    if role in ORG_KIND:
        if not org_key:
            raise ServiceError(ErrorCode.INVALID, f"a {role} user needs --org", "org")
        organisation = m.Organisation.objects.filter(key=org_key).first()
        if organisation is None:
            raise ServiceError(ErrorCode.NOT_FOUND, f'unknown organisation "{org_key}"', "org")
        if organisation.kind not in ORG_KIND[role]:
            raise ServiceError(
                ErrorCode.INVALID,
                f"{'an' if role == 'officer' else 'a'} {role} acts for a "
                f"{' or '.join(ORG_KIND[role])}, "
                f'and "{org_key}" is a {organisation.kind}',
                "org",
            )
    taken = User.objects.filter(username__iexact=username).values_list("username", flat=True)
    if taken:  # "Al" is "al" to whoever reads a list of users
        clash = f'user "{taken[0]}" exists already'
        if taken[0] != username:
            clash += f' (a name differing from "{username}" only in case)'
        raise ServiceError(ErrorCode.DUPLICATE, clash, "username")
    try:
        validate_password(password, User(username=username))
    except ValidationError as weak:
        raise ServiceError(ErrorCode.INVALID, " ".join(weak.messages), "password") from None
    with transaction.atomic():
        user = User.objects.create_user(
            username=username, password=password, email=email, first_name=name
        )
        user.is_staff = user.is_superuser = role == "admin"  # league admins use Django admin
        user.save()
        profile = m.Profile.objects.create(user=user, role=role, organisation=organisation)
        profile.venues.set(found_venues)
        said: dict[str, Any] = {"role": role, "org": org_key}
        if found_venues:
            said["venues"] = [v.key for v in found_venues]
        _account(None, "user-add", username, None, said)
    return user


def _venues(role: str, keys: list[str]) -> list[m.Venue]:
    """The venues a steward is assigned (only stewards are), each one known."""
    if keys and role != "steward":
        raise ServiceError(ErrorCode.INVALID, "only stewards are assigned venues", "venues")
    found = {v.key: v for v in m.Venue.objects.filter(key__in=keys)}
    for key in keys:
        if key not in found:
            raise ServiceError(ErrorCode.NOT_FOUND, f'unknown venue "{key[:100]}"', "venues")
    return [found[k] for k in dict.fromkeys(keys)]


TOKEN_DAYS = 90  # a token's life unless another is asked for
MAX_TOKEN_DAYS = 3650


def do_create_token(username: str, days: int = TOKEN_DAYS) -> str:
    """A new bearer token for the user, valid for `days`; shown once, kept only as a
    digest."""
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'unknown user "{username}"', "username")
    if not 1 <= days <= MAX_TOKEN_DAYS:
        raise ServiceError(
            ErrorCode.INVALID, f"a token lives 1 to {MAX_TOKEN_DAYS} days, not {days}", "days"
        )
    token = secrets.token_urlsafe(32)
    expires = timezone.now() + timedelta(days=days)
    with transaction.atomic():
        row = m.ApiToken.objects.create(user=user, digest=digest(token), expires=expires)
        _account(None, "token-create", username, None, {"token": row.pk, "days": days})
    return token


def tokens_of(username: str) -> list[m.ApiToken]:
    """The user's tokens, oldest first (only their ids and times: the tokens are not kept)."""
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'unknown user "{username}"', "username")
    return list(user.api_tokens.order_by("created", "pk"))


def do_revoke_token(token_id: int) -> None:
    """Delete a token: requests bearing it are refused (401) from now on."""
    row = m.ApiToken.objects.select_related("user").filter(pk=token_id).first()
    if row is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f"no token {token_id}", "token_id")
    with transaction.atomic():
        row.delete()
        _account(None, "token-revoke", row.user.username, {"token": token_id}, None)


def user_for_token(token: str) -> User | None:
    """The active user a token stands for (with its role and organisation: one query),
    None for a token unknown, revoked or expired; its last use is kept to the minute
    (not a write at every call)."""
    rows = m.ApiToken.objects.select_related("user__profile__organisation")
    row = next(iter(rows.filter(digest=digest(token))[:1]), None)
    now = timezone.now()
    if row is None or not row.user.is_active or (row.expires is not None and row.expires <= now):
        return None
    if row.last_used is None or row.last_used < now - timedelta(minutes=1):
        m.ApiToken.objects.filter(pk=row.pk).update(last_used=now)
    return row.user


def do_deactivate(username: str) -> None:
    """End a user's access at once: it can no longer sign in, its sessions end (its
    password is made unusable, which no session outlives) and its tokens are deleted. Its
    audit entries keep its name."""
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'unknown user "{username}"', "username")
    with transaction.atomic():
        user.is_active = False
        user.set_unusable_password()
        user.save(update_fields=["is_active", "password"])
        tokens = sorted(m.ApiToken.objects.filter(user=user).values_list("pk", flat=True))
        m.ApiToken.objects.filter(user=user).delete()
        _account(None, "user-deactivate", username, {"active": True, "tokens": tokens}, None)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def do_unlock(username: str) -> int:
    """Clear the failed sign-ins of `username` (django-axes), and of the addresses they
    came from: signing in works again at once. How many attempts were cleared."""
    from axes.models import AccessAttempt
    from axes.utils import reset

    if not User.objects.filter(username=username).exists():
        raise ServiceError(ErrorCode.NOT_FOUND, f'unknown user "{username}"', "username")
    addresses = set(
        AccessAttempt.objects.filter(username=username).values_list("ip_address", flat=True)
    )
    cleared = reset(username=username)
    for address in addresses:
        cleared += reset(ip=address)
    _account(None, "user-unlock", username, {"attempts": int(cleared)}, None)
    return int(cleared)


def _account(user: User | None, action: str, target: str, before: Any, after: Any) -> None:
    """An account's audit entry (no match): by `user`, else by the command line."""
    audit(user, action, None, target, before, after, "" if user else COMMAND_LINE)


def role_of(profile_pk: int | None) -> dict[str, Any] | None:
    """A profile's role as the audit keeps it (None: a new one)."""
    if profile_pk is None:
        return None
    found = m.Profile.objects.filter(pk=profile_pk).select_related("organisation").first()
    if found is None:
        return None
    return {"role": found.role, "org": found.organisation.key if found.organisation else None}


def record_role(by: User, profile: m.Profile, before: dict[str, Any] | None) -> None:
    """A role given or changed in the admin."""
    after = role_of(profile.pk)
    if after != before:
        _account(by, "role", profile.user.username, before, after)


def record_sign_in(user: User, address: str) -> None:
    _account(user, "sign-in", user.username, None, {"address": address})


def record_sign_out(user: User | None, address: str) -> None:
    if user is not None:
        _account(user, "sign-out", user.username, None, {"address": address})


def record_failed_sign_in(tried: str, address: str) -> None:
    """A failed sign-in: the name tried (it may be nobody's) as the target, and where from;
    by nobody known (no username)."""
    audit(None, "sign-in-failed", None, tried, None, {"address": address})
