"""How often the API may be called (ninja's throttles, counted in Django's cache): per
user, every call (PITCHPASS_API_RATE) and each change (PITCHPASS_API_WRITE_RATE, a
request sent, a decide, an incident...); per address, wrong tokens
(PITCHPASS_API_BAD_TOKEN_RATE), so a token cannot be guessed at speed. Past a limit the
answer is 429 `too-many-requests` with Retry-After. The rates are read from the settings
at each call (settings.py; tests change them)."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from ninja.throttling import AuthRateThrottle, BaseThrottle

from pitchpass.web.errors import ErrorCode, ServiceError


class Limit(BaseThrottle):
    """Per user (per address before signing in), at the rate a setting names. ninja keeps
    one throttle for every call, and the server answers on several threads: each call
    is counted by a throttle of its own (ninja's AuthRateThrottle keeps the call's key and
    history on itself between reading and writing them), kept for its thread."""

    def __init__(self, setting: str, scope: str) -> None:
        self.setting, self.scope = setting, scope
        self.mine = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        counter = AuthRateThrottle(getattr(settings, self.setting))
        counter.scope = self.scope
        self.mine.counter = counter
        allowed: bool = counter.allow_request(request)
        return allowed

    def wait(self) -> float | None:
        counter = getattr(self.mine, "counter", None)
        return counter.wait() if counter is not None else None


CALLS: list[BaseThrottle] = [Limit("PITCHPASS_API_RATE", "calls")]
WRITES: list[BaseThrottle] = [*CALLS, Limit("PITCHPASS_API_WRITE_RATE", "writes")]


def check_bad_tokens(request: HttpRequest) -> None:
    """Before a token is looked up: refused (429) if this address sent too many wrong
    ones lately."""
    allowed, seconds = _bad_token_rate()
    if cache.get(_key(request), 0) >= allowed:
        raise ServiceError(
            ErrorCode.TOO_MANY,
            f"too many wrong tokens from this address: wait {seconds} seconds",
        )


def count_bad_token(request: HttpRequest) -> None:
    _, seconds = _bad_token_rate()
    key = _key(request)
    cache.add(key, 0, seconds)
    try:
        cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, seconds)


def _bad_token_rate() -> tuple[int, int]:
    allowed, period = settings.PITCHPASS_API_BAD_TOKEN_RATE.split("/")
    return int(allowed), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]


def _key(request: HttpRequest) -> Any:
    return f"pitchpass-bad-token:{client_address(request)}"


def client_address(request: HttpRequest) -> str:
    """Where a call came from: with PITCHPASS_PROXIES trusted proxies in front, the
    address the last of them added to X-Forwarded-For; else the connection's own."""
    proxies = int(getattr(settings, "PITCHPASS_PROXIES", 0))
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if proxies and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",")]
        return str(hops[-min(proxies, len(hops))])
    return str(request.META.get("REMOTE_ADDR", ""))
