from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _fast_passwords(settings: pytest.FixtureRequest) -> None:
    """Django's default hasher takes about a second a password, on purpose; tests make many."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
