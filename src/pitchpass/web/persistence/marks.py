"""The accounts' mark: a random value in the shared cache (Redis), replaced whenever a
user, a role, an organisation or a token is written or deleted, by any process (a
server, the admin, the command line). What a process keeps of accounts across calls
(services/kept_tokens.py) is used only under the mark it was kept with, so an account
changed anywhere is read afresh by every process at its next call.

The mark is replaced as the change is made and again once its transaction has
committed: a call between the two may read the accounts as they were before the commit
and keep them under the first new mark; the second one drops that. With no shared cache
(this process's memory, the database's table) nothing is kept; a change made in such a
process (the command line without PITCHPASS_CACHE_URL) replaces the mark where the
servers keep it, as the last of them to start wrote it in the database (MarkPlace).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from pitchpass.web import shared_cache
from pitchpass.web.persistence import models as m
from pitchpass.web.shared_cache import redis_client

log = logging.getLogger(__name__)

KEY = "pitchpass-accounts-mark"


def key() -> str:
    """The mark's key in Redis."""
    return shared_cache.key(KEY)


def current() -> str | None:
    """The mark now; None when there is no shared cache or it cannot be reached (then
    nothing may be kept). A mark missing (Redis restarted, the key evicted) is made anew,
    so what was kept before is never taken for current."""
    client = redis_client()
    if client is None:
        return None
    try:
        found = client.get(key())
        if found is None:
            client.set(key(), secrets.token_hex(8), nx=True)
            found = client.get(key())
    except Exception as error:  # Redis away: keep nothing, read the accounts every call
        log.warning("the accounts' mark cannot be read (%s): nothing kept", error)
        return None
    return as_text(found)


def as_text(found: Any) -> str | None:
    """A mark as Redis gives it (bytes), as kept."""
    if found is None:
        return None
    return found.decode() if isinstance(found, bytes) else str(found)


def replace() -> None:
    """A new mark, now and again when the current transaction commits (at once if there
    is none)."""
    _new_mark()
    transaction.on_commit(_new_mark)


def _new_mark() -> None:
    """A new mark where this process's cache is Redis; else where the servers keep theirs
    (MarkPlace, written by `pitchpass serve`), if anywhere."""
    client, name = redis_client(), ""
    try:
        if client is not None:
            name = key()
        else:
            place = m.MarkPlace.objects.order_by("-pk").first()
            if place is None:
                return  # no server has kept anything
            client, name = _client_at(place.url), place.key
        client.set(name, secrets.token_hex(8))
    except Exception as error:
        # What was kept is then dropped by its age (kept_tokens.MOST_SECONDS) at the latest.
        log.error("the accounts' mark cannot be replaced (%s)", error)


def _client_at(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)


def record_place() -> None:
    """At a server's start: where its processes keep the mark, for processes that change
    accounts without that setting (none, if its cache is not Redis)."""
    if redis_client() is None:
        return
    url = str(settings.CACHES["default"]["LOCATION"])
    with transaction.atomic():
        m.MarkPlace.objects.all().delete()
        m.MarkPlace.objects.create(url=url, key=key())


def _changed(sender: Any, **kwargs: Any) -> None:
    replace()


def watch(*models: Any) -> None:
    """Replace the mark whenever a row of these models is saved or deleted."""
    for model in models:
        post_save.connect(_changed, sender=model, dispatch_uid=f"mark-save-{model.__name__}")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"mark-delete-{model.__name__}")
