"""Tokens and their users, kept in this process across calls while no account has
changed anywhere (persistence/marks.py): a broadcaster's system calling every second
costs no query for its token. A token is kept by its digest only, with its user, role
and organisation as read, its expiry and its last use; whether it may be used is decided
at every call as for a token just read (accounts.user_for_token). Anything kept is
dropped when the accounts' mark moves on, and at the latest after MOST_SECONDS (should
a new mark have failed to reach Redis).
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from pitchpass.web import shared_cache
from pitchpass.web.persistence import marks

MOST_SECONDS = 60.0
SIZE = 4096  # tokens kept at most, the least recently used dropped first


@dataclass
class Kept:
    mark: str
    since: float  # time.monotonic() when read
    token: int  # the token's row
    user: User  # with its profile and organisation
    expires: datetime | None
    last_used: datetime | None


_KEPT: OrderedDict[str, Kept] = OrderedDict()
_LOCK = threading.Lock()


def mark() -> str | None:
    """The accounts' mark to read and keep under; None: keep nothing."""
    return marks.current()


def find(digest: str, mark: str | None) -> Kept | None:
    """What is kept for this digest under this mark, if it is recent; the user is a copy
    of the one kept (the call may add to it; no other call sees that)."""
    if mark is None:
        return None
    found = find_unconfirmed(digest)
    return found if found is not None and found.mark == mark else None


def find_unconfirmed(digest: str) -> Kept | None:
    """What is kept for this digest, if it is recent, under whatever mark it was kept:
    usable only once that mark is found to be the current one (mark_key). None while the
    cache is not Redis (nothing would find the mark)."""
    if shared_cache.redis_client() is None:
        return None
    with _LOCK:
        found = _KEPT.get(digest)
        if found is None:
            return None
        if time.monotonic() - found.since > MOST_SECONDS:
            del _KEPT[digest]
            return None
        _KEPT.move_to_end(digest)
    return Kept(**{**found.__dict__, "user": copy.copy(found.user)})


def mark_key() -> str:
    """The accounts' mark's key in Redis, to read it with other keys in one round trip."""
    return marks.key()


def is_current(kept_under: str, read: Any) -> bool:
    """Whether the mark read from Redis (mark_key) is the one a token was kept under."""
    return marks.as_text(read) == kept_under


def keep(digest: str, mark: str | None, kept: Kept) -> None:
    """Keep a token just read, under the mark read before it was (a change committed in
    between has moved the mark on, so this is never used)."""
    if mark is None:
        return
    own = Kept(**{**kept.__dict__, "user": copy.copy(kept.user)})  # the caller's stays its own
    with _LOCK:
        _KEPT[digest] = own
        _KEPT.move_to_end(digest)
        while len(_KEPT) > SIZE:
            _KEPT.popitem(last=False)


def last_use(digest: str) -> tuple[int, datetime | None] | None:
    """The kept token's row and its last use as kept (no copy of its user), if kept."""
    with _LOCK:
        found = _KEPT.get(digest)
        return None if found is None else (found.token, found.last_used)


def used(digest: str, when: datetime) -> None:
    """The token's last use as now written to its row."""
    with _LOCK:
        found = _KEPT.get(digest)
        if found is not None:
            found.last_used = when


def drop(digest: str) -> None:
    with _LOCK:
        _KEPT.pop(digest, None)


def forget() -> None:
    with _LOCK:
        _KEPT.clear()
