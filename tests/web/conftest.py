from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
SEED = "mun-mci-2017-12-10"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: pytest.FixtureRequest) -> None:
    """Django's default hasher takes about a second a password, on purpose; tests make many.
    The sign-in lockout (django-axes) needs the request, which the test client's login()
    does not give: it is off but in tests/web/test_lockout.py (and the browser tests)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]
    settings.AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]  # type: ignore[attr-defined]
    settings.AXES_ENABLED = False  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _rates_for_tests(settings: pytest.FixtureRequest) -> None:
    """The API's rates (http/throttles.py) are far above what a test sends, and counted
    afresh in each test; tests/web/test_throttles.py sets them low."""
    from django.core.cache import cache

    settings.PITCHPASS_API_RATE = "100000/m"  # type: ignore[attr-defined]
    settings.PITCHPASS_API_WRITE_RATE = "100000/m"  # type: ignore[attr-defined]
    settings.PITCHPASS_API_BAD_TOKEN_RATE = "100000/m"  # type: ignore[attr-defined]
    cache.clear()


@pytest.fixture
def desk() -> dict[str, Any]:
    """The seed match loaded, decided and published by the home officer, with an API client
    for the officer, the away officer, the documentary crew, BT Sport and a steward."""
    from django.test import Client

    from pitchpass.core.reading.parse import parse_text
    from pitchpass.web.persistence import store
    from pitchpass.web.services.accounts import do_add_user, do_create_token

    path = ROOT / "scenarios" / "manchester-derby-2017.yaml"
    store.load(parse_text(path.read_text(), str(path)))
    users = {
        "officer": ("officer", "man-united"),
        "away": ("officer", "man-city"),
        "docs": ("media", "man-city-documentary"),
        "bt": ("media", "bt-sport"),
        "steward": ("steward", None),
    }
    clients = {}
    for name, (role, org) in users.items():
        venues = ["old-trafford"] if role == "steward" else None  # its doors
        do_add_user(name, role, org, "pw-for-tests-only-7", venues=venues)
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token(name)}")
    for step in ("decide", "publish"):
        answer = clients["officer"].post(f"/api/matches/{SEED}/{step}")
        assert answer.status_code == 200, answer.content
    return clients


@dataclasses.dataclass
class Ran:
    """What a command did: as subprocess.run says it, for tests written either way."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli_here(db: None) -> Callable[..., Ran]:
    """The CLI run in this process (Typer's CliRunner) over the test's own database: its
    argument and exit-code cases without starting a process each (about 4 s apiece)."""
    from typer.testing import CliRunner

    from pitchpass.cli import app

    runner = CliRunner()

    def run(*args: str) -> Ran:
        result = runner.invoke(app, list(args))
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception  # a traceback is a failure, never an exit code
        return Ran(result.exit_code, result.stdout, result.stderr)

    return run
