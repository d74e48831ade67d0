"""Settings for a real deployment (issue 10): the database URL keeps its options,
production refuses to start without a secret key and host names, and Django's own
deployment check is clean under production settings."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from pitchpass.web.settings import cache, database


def test_the_database_url_keeps_its_options(tmp_path: Path) -> None:
    found = database(
        "postgres://u:p%40ss@db.example:6432/desk?sslmode=require&connect_timeout=5&conn_max_age=60",
        tmp_path,
    )
    assert found["OPTIONS"] == {
        "sslmode": "require",
        "connect_timeout": 5,
        "server_side_binding": True,
        "prepare_threshold": 5,
    }
    plain = database("postgres://db/x?server_side_binding=false&prepare_threshold=none", tmp_path)
    assert plain["OPTIONS"] == {"server_side_binding": False, "prepare_threshold": None}
    with pytest.raises(ValueError, match="prepare_threshold must be a whole number or none"):
        database("postgres://db/x?prepare_threshold=soon", tmp_path)
    assert (found["NAME"], found["USER"], found["PASSWORD"]) == ("desk", "u", "p@ss")
    assert (found["HOST"], found["PORT"], found["CONN_MAX_AGE"]) == ("db.example", 6432, 60)
    with pytest.raises(ValueError, match=r"conn_max_age .* must be whole seconds"):
        database("postgres://db/x?conn_max_age=soon", tmp_path)


def test_the_cache_is_shared_when_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the API's rates are counted: this process's memory unless a shared place is
    named (the two-server test shows the database's shared)."""
    assert cache(None)["BACKEND"].endswith("LocMemCache")
    assert cache("database")["LOCATION"] == "pitchpass_cache"
    assert cache("redis://127.0.0.1:6379/2")["BACKEND"].endswith("RedisCache")
    with pytest.raises(ValueError, match="must be `database` or a redis:// URL"):
        cache("memcached://127.0.0.1")
    monkeypatch.setenv("PITCHPASS_CONN_MAX_AGE", "60")  # as `serve --workers N` sets it
    assert database("postgres://db/x", Path("."))["CONN_MAX_AGE"] == 60
    assert database("postgres://db/x?conn_max_age=5", Path("."))["CONN_MAX_AGE"] == 5


def test_a_bad_value_in_the_environment_is_named(tmp_path: Path) -> None:
    """Every setting is read by django-environ; a value it cannot read stops the command
    with one line naming the variable, never a traceback."""
    bad = (
        ("PITCHPASS_PROXIES", "x"),
        ("PITCHPASS_EMAIL_PORT", "25a"),
        ("PITCHPASS_PRODUCTION", "ye"),
    )
    for name, value in bad:  # a yes-or-no misspelt never turns production off in silence
        out = _run(tmp_path, {name: value}, "-m", "pitchpass", "migrate")
        assert out.returncode == 1 and "Traceback" not in out.stderr
        assert out.stderr.startswith(f"error the settings cannot be used: {name}={value!r}")


def test_a_value_is_taken_as_written(tmp_path: Path) -> None:
    """A secret starting with "$" is not read as the name of another variable (as
    django-environ would by itself): it is the secret."""
    code = (
        "from django.conf import settings; print(settings.SECRET_KEY, settings.EMAIL_HOST_PASSWORD)"
    )
    env = {"PITCHPASS_SECRET_KEY": "$x9-key", "PITCHPASS_EMAIL_PASSWORD": "$3cr3t", "x9-key": "no"}
    out = _run(tmp_path, {**env, "DJANGO_SETTINGS_MODULE": "pitchpass.web.settings"}, "-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["$x9-key", "$3cr3t"]


def _run(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("PITCHPASS_")}
    base.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True, text=True, env={**base, "PITCHPASS_HOME": str(tmp_path), **env},
    )  # fmt: skip


PRODUCTION = {
    "PITCHPASS_PRODUCTION": "1",
    "PITCHPASS_SECRET_KEY": secrets.token_urlsafe(50),
    "PITCHPASS_ALLOWED_HOSTS": "desk.example.org",
    "DJANGO_SETTINGS_MODULE": "pitchpass.web.settings",
}


def test_the_deployment_check_is_clean_in_production(tmp_path: Path) -> None:
    checked = _run(
        tmp_path, PRODUCTION, "-m", "django", "check", "--deploy", "--fail-level", "WARNING"
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no issues" in checked.stdout


@pytest.mark.parametrize("missing", ["PITCHPASS_SECRET_KEY", "PITCHPASS_ALLOWED_HOSTS"])
def test_production_does_not_start_without_its_secret_or_hosts(
    tmp_path: Path, missing: str
) -> None:
    env = {k: v for k, v in PRODUCTION.items() if k != missing}
    started = _run(tmp_path, env, "-m", "pitchpass", "migrate")
    assert started.returncode == 1 and "Traceback" not in started.stderr
    assert f"{missing}" in started.stderr and "must be set in production" in started.stderr
