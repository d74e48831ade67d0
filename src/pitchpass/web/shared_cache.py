"""The Redis client of Django's cache, when the cache is Redis (PITCHPASS_CACHE_URL):
where the API's rates (http/throttles.py) and the accounts' mark (persistence/marks.py)
are kept, shared by every process."""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.core.cache.backends.redis import RedisCache

_MINE = threading.local()


def redis_client() -> Any:
    """The client, None when the cache is not Redis. Django's RedisCache makes a client
    object at every call (over its kept connections); one is kept here per thread and
    cache backend instead (settings changed in tests make another backend)."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(backend, RedisCache):
        return None
    kept = getattr(_MINE, "kept", None)
    if kept is None or kept[0] is not backend:
        kept = (backend, backend._cache.get_client(write=True))
        _MINE.kept = kept
    return kept[1]


def key(name: str) -> str:
    """`name` as the cache names it in Redis (its prefix and version)."""
    return str(caches[DEFAULT_CACHE_ALIAS].make_and_validate_key(name))
