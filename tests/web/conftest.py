from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings: pytest.FixtureRequest) -> None:
    """Django's default hasher takes about a second a password, on purpose; tests make many.
    The sign-in lockout (django-axes) needs the request, which the test client's login()
    does not give: it is off but in tests/web/test_lockout.py (and the browser tests)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
    settings.AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]  # type: ignore[attr-defined]
    settings.AXES_ENABLED = False  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _nothing_kept_from_another_test() -> None:
    """What the room hint keeps across requests is keyed by match and version; each test
    rolls its database back, so the next may reuse both for another match."""
    from pitchpass.web.services import access, kept_tokens, snapshot

    snapshot.forget()
    kept_tokens.forget()
    access.forget_rows()


@pytest.fixture(autouse=True)
def _rates_for_tests(settings: pytest.FixtureRequest) -> None:
    """The API's rates (http/throttles.py) are far above what a test sends, and counted
    afresh in each test; tests/web/test_throttles.py sets them low."""
    from django.core.cache import cache

    settings.PITCHPASS_API_RATE = "100000/m"  # type: ignore[attr-defined]
    settings.PITCHPASS_API_WRITE_RATE = "100000/m"  # type: ignore[attr-defined]
    settings.PITCHPASS_API_BAD_TOKEN_RATE = "100000/m"  # type: ignore[attr-defined]
    cache.clear()
