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
    from pitchpass.web.services import snapshot

    snapshot.forget()
