"""How often the API may be called (a ninja throttle, counted in Django's cache: in Redis
in one round trip a call, see Limit): per
user, every call (PITCHPASS_API_RATE) and each change (PITCHPASS_API_WRITE_RATE, a
request sent, a decide, an incident...); per address, wrong tokens
(PITCHPASS_API_BAD_TOKEN_RATE), so a token cannot be guessed at speed. Past a limit the
answer is 429 `too-many-requests` with Retry-After. The rates are read from the settings
at each call (settings.py; tests change them)."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest
from ninja.errors import Throttled
from ninja.throttling import AuthRateThrottle, BaseThrottle

from pitchpass.web import shared_cache
from pitchpass.web.services import accounts, kept_tokens


class Limit(BaseThrottle):
    """Per user (per address before signing in), at the rates the settings name: every
    call (`calls`) and, on a change, also `writes`; one throttle for both, so that a call
    is counted in one round trip to Redis. Counted in Redis, a rate is a window opened by
    the user's first call and lasting the rate's period (SET NX EX, INCR and TTL in one
    pipeline); in another cache (this process's memory, the database), by ninja's
    AuthRateThrottle (the times of the last calls). ninja keeps one throttle for every
    call, and the server answers on several threads: what a call was told to wait is
    kept for its thread."""

    def __init__(self, *limits: tuple[str, str]) -> None:
        self.limits = limits  # (setting, scope)
        self.mine = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        """Counted; refused past a rate, or when the call's token is right but its address
        sent too many wrong ones lately (asked in the same round trip: a token guessed
        right is refused as a wrong one would be, see BearerToken)."""
        rates = [(scope, getattr(settings, setting)) for setting, scope in self.limits]
        guessed = "Authorization" in request.headers  # a token, not a browser's session
        client = _redis()
        if client is not None:
            waits, wrong, mark, counted = _in_redis(client, request, rates, guessed)
            if not _confirmed(request, mark):
                # Not this user's call after all: its counts taken back, so that a token
                # taken from a user does not use up the user's own rate.
                with client.pipeline(transaction=False) as pipeline:
                    for key in counted:
                        pipeline.decr(key)
                    pipeline.execute()
                self.mine.wait = getattr(request, "pitchpass_wait", None)
                return False  # 401 or 503 (api.throttled), or 429 past the wrong tokens' rate
        else:
            waits = _in_cache(request, rates)
            wrong = int(cache.get(_key(request), 0)) if guessed else 0
        allowed, seconds = _bad_token_rate()
        if wrong >= allowed:
            request.pitchpass_refused = wrong_tokens(seconds)  # type: ignore[attr-defined]
            waits.append(float(seconds))
        self.mine.wait = max(waits, default=None)
        return not waits

    def wait(self) -> float | None:
        found: float | None = getattr(self.mine, "wait", None)
        return found


def _confirmed(request: HttpRequest, mark: Any) -> bool:
    """A token's user kept in this process (api.BearerToken) is acted on only if the
    accounts' mark it was kept under is still the current one; else the token is read
    again and, if it may no longer be used, refused as a wrong token is (401, counted
    against its address: 429 past that rate), the call marked so (`pitchpass_unknown`)."""
    kept = getattr(request, "pitchpass_kept", None)
    if kept is None:
        return True
    token, kept_under = kept
    request.pitchpass_kept = None  # type: ignore[attr-defined]
    try:
        if kept_tokens.is_current(kept_under, mark):
            accounts.token_used(token)
            return True
        user = accounts.user_for_token(token)
    except (OperationalError, InterfaceError):  # ninja runs throttles outside its handlers
        request.pitchpass_database_away = True  # type: ignore[attr-defined]
        return False
    if user is not None:
        request.auth = user  # type: ignore[attr-defined]
        return True
    accounts.forget_token(token)
    request.pitchpass_unknown = True  # type: ignore[attr-defined]
    try:
        count_bad_token(request)
    except Throttled as past:  # its message kept by count_bad_token (pitchpass_refused)
        request.pitchpass_wait = past.wait  # type: ignore[attr-defined]
    return False


def _in_redis(
    client: Any, request: HttpRequest, rates: list[tuple[str, str]], guessed: bool
) -> tuple[list[float], int, Any, list[str]]:
    """The seconds to wait for each rate this call is past (none if it may go on), the
    wrong tokens its address sent lately (if `guessed`: the call brings a token), and
    the accounts' mark (kept_tokens.mark_key), and the keys of the counts it added."""
    counts = []
    # MULTI: the counter made with its period, counted and its time left read at once (a
    # key expiring between SET NX and INCR would otherwise be made again with no period).
    with client.pipeline(transaction=True) as pipeline:
        pipeline.get(kept_tokens.mark_key())
        pipeline.get(caches[DEFAULT_CACHE_ALIAS].make_and_validate_key(_key(request)))
        for scope, rate in rates:
            allowed, period = AuthRateThrottle(rate).parse_rate(rate)
            key = caches[DEFAULT_CACHE_ALIAS].make_and_validate_key(
                f"pitchpass-rate:{scope}:{_ident(request)}"
            )
            pipeline.set(key, 0, ex=period, nx=True)
            pipeline.incr(key)
            pipeline.ttl(key)
            counts.append((key, allowed, period))
        mark, wrong, *said = pipeline.execute()
    waits = []
    for n, (key, allowed, period) in enumerate(counts):
        left = said[3 * n + 2]
        if left < 0:  # a counter with no period (written by another version): given one
            client.expire(key, period)
            left = period
        if allowed is not None and said[3 * n + 1] > allowed:
            waits.append(float(max(left, 1)))
    return waits, (int(wrong or 0) if guessed else 0), mark, [key for key, _, _ in counts]


def _in_cache(request: HttpRequest, rates: list[tuple[str, str]]) -> list[float]:
    waits = []
    for scope, rate in rates:
        counter = AuthRateThrottle(rate)
        counter.scope = scope
        if not counter.allow_request(request):
            waits.append(counter.wait() or 1.0)
    return waits


_redis = shared_cache.redis_client


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
    Limit, until the period has passed)."""
    allowed, seconds = _bad_token_rate()
    key = _key(request)
    client = _redis()
    if client is not None:  # in one MULTI, as the rates (a counter never left unexpiring)
        with client.pipeline(transaction=True) as pipeline:
            name = caches[DEFAULT_CACHE_ALIAS].make_and_validate_key(key)
            pipeline.set(name, 0, ex=seconds, nx=True)
            pipeline.incr(name)
            wrong = int(pipeline.execute()[1])
    else:
        cache.add(key, 0, seconds)
        try:
            wrong = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, seconds)
            wrong = 1
    if wrong > allowed:
        # The very answer a right token from this address gets (Limit): nothing in it,
        # headers included, tells a right guess from a wrong one.
        request.pitchpass_refused = wrong_tokens(seconds)  # type: ignore[attr-defined]
        raise Throttled(wait=seconds)


def wrong_tokens(seconds: int) -> str:
    return f"too many wrong tokens from this address: wait {seconds} seconds"


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
