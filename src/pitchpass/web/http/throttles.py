"""How often the API may be called (a ninja throttle, counted in Django's cache): per
user, every call (PITCHPASS_API_RATE) and each change (PITCHPASS_API_WRITE_RATE, a
request sent, a decide, an incident...); per address, wrong tokens
(PITCHPASS_API_BAD_TOKEN_RATE), so a token cannot be guessed at speed. Past a limit the
answer is 429 `too-many-requests` with Retry-After. The rates are read from the settings
at each call (settings.py; tests change them).

A rate is counted in windows of its period (a minute for "60/m"), each opened by the
first call after the last one closed: the window's counter is made with the window's
length as its expiry (`cache.add`) and counted with `cache.incr`, which Redis does
atomically for every process; Retry-After is the time left in the window."""

from __future__ import annotations

import math
import threading
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from ninja.errors import Throttled
from ninja.throttling import BaseThrottle

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
clock = time.time  # what the windows are timed by


class Limit(BaseThrottle):
    """Per user (per address before signing in), at the rates the settings name: every
    call (`calls`) and, on a change, also `writes`. A call from an address past the
    wrong tokens' rate is refused too, its token right or not (see count_bad_token).
    ninja keeps one throttle for every call, and the server answers on several threads:
    what a call was told to wait is kept for its thread."""

    def __init__(self, *limits: tuple[str, str]) -> None:
        self.limits = limits  # (setting, scope)
        self.mine = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        waits = []
        for setting, scope in self.limits:
            allowed, period = parse_rate(getattr(settings, setting))
            counted, left = _count(f"pitchpass-rate:{scope}:{_ident(request)}", period)
            if counted > allowed:
                waits.append(left)
        if "Authorization" in request.headers:  # a token, not a browser's session
            allowed, period = parse_rate(settings.PITCHPASS_API_BAD_TOKEN_RATE)
            key, left = _window(_bad_token_key(request), period)
            if int(cache.get(key, 0)) >= allowed:
                request.pitchpass_refused = wrong_tokens(left)  # type: ignore[attr-defined]
                waits.append(left)
        self.mine.wait = max(waits, default=None)
        return not waits

    def wait(self) -> float | None:
        found: float | None = getattr(self.mine, "wait", None)
        return found


def parse_rate(rate: str) -> tuple[int, int]:
    """ "60/m" as (60, 60): calls allowed, in a period of so many seconds."""
    allowed, period = rate.split("/")
    return int(allowed), PERIODS[period[0]]


def _window(name: str, period: int) -> tuple[str, int]:
    """The key of `name`'s counter in its window now open, and the whole seconds left in
    it (at least 1). A window is opened by the first call after the last one closed: its
    start is kept under `name` as long as the window lasts (`get_or_set` adds it only
    if missing, so every process finds the same start)."""
    now = clock()
    start = cache.get_or_set(f"{name}:{period}", now, period)
    start = now if start is None else float(start)  # None: a cache that keeps nothing
    return f"{name}:{period}:{start!r}", max(1, math.ceil(start + period - now))


def _count(name: str, period: int) -> tuple[int, int]:
    """One more for `name` in the window now open: its count, and the seconds left."""
    key, left = _window(name, period)
    cache.add(key, 0, period)
    try:
        return cache.incr(key), left
    except ValueError:  # expired between add and incr: the window has just closed
        cache.set(key, 1, period)
        return 1, left


def _ident(request: HttpRequest) -> str:
    user = getattr(request, "auth", None)
    return (
        f"user-{user.pk}" if user is not None and user.pk else f"address-{client_address(request)}"
    )


CALLS: list[BaseThrottle] = [Limit(("PITCHPASS_API_RATE", "calls"))]
WRITES: list[BaseThrottle] = [
    Limit(("PITCHPASS_API_RATE", "calls"), ("PITCHPASS_API_WRITE_RATE", "writes"))
]


def count_bad_token(request: HttpRequest) -> None:
    """A wrong token counted against its address; refused (429) past the rate, so that a
    token cannot be guessed at speed (a right one from there is then refused too, by
    Limit, until the window has closed)."""
    allowed, period = parse_rate(settings.PITCHPASS_API_BAD_TOKEN_RATE)
    wrong, left = _count(_bad_token_key(request), period)
    if wrong > allowed:
        # The very answer a right token from this address gets (Limit): nothing in it,
        # headers included, tells a right guess from a wrong one.
        request.pitchpass_refused = wrong_tokens(left)  # type: ignore[attr-defined]
        raise Throttled(wait=left)


def wrong_tokens(seconds: int) -> str:
    return f"too many wrong tokens from this address: wait {seconds} seconds"


def _bad_token_key(request: HttpRequest) -> str:
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
