"""Backups (issue 10): `pitchpass backup FILE` writes everything in one snapshot and
`pitchpass restore FILE` puts it back into an empty database, where the match decides
the same, its runs and grants are there, and the audit's chain verifies; a restore never
goes over a database in use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"
# These make their own databases (SQLite folders, PostgreSQL databases): once, in the
# SQLite run, not again in CI's PostgreSQL run of tests/web.
pytestmark = pytest.mark.skipif(
    connection.vendor == "postgresql", reason="runs once, in the SQLite run"
)
MATCH = "mun-mci-2017-12-10"

WORK = """
from pitchpass.web.setup import configure
configure()
from django.contrib.auth.models import User
from pitchpass.web.services import decisions
officer = User.objects.get(username="officer")
decisions.do_decide(officer, "{match}")
decisions.do_publish(officer, "{match}")
"""

STATE = """
import json
from pitchpass.web.setup import configure
configure()
from pitchpass.web.persistence import models as m, store
run = m.DecisionRun.objects.filter(match__key="{match}").order_by("-number").first()
print(json.dumps({{
    "export": store.export("{match}"),
    "run": run.output,
    "published": sorted(m.Request.objects.filter(locked=True).values_list("key", flat=True)),
    "users": sorted(m.Profile.objects.values_list("user__username", "role")),
    "audit": m.AuditEntry.objects.count(),
}}, default=str))
"""


def _run(home: Path, *args: str, database: str = "") -> subprocess.CompletedProcess[str]:
    # One site's key in every folder: a backup restores where its seal holds (backup.py).
    env = dict(os.environ, PITCHPASS_HOME=str(home), PITCHPASS_SECRET_KEY="backup-tests-key")
    env.pop("DATABASE_URL", None)
    if database:
        env["DATABASE_URL"] = database
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)


POSTGRES = "postgres://postgres@127.0.0.1:5432"


@contextmanager
def _postgres_databases(*names: str) -> Iterator[list[str]]:
    """Fresh databases on the local PostgreSQL (dropped afterwards), named for this
    process so that two runs on one machine never share one."""
    import psycopg

    made = [f"pitchpass_{name}_{os.getpid()}" for name in names]
    try:
        admin = psycopg.connect(f"{POSTGRES}/postgres", autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as error:
        pytest.skip(f"no PostgreSQL at 127.0.0.1:5432: {error}")
    with admin:
        for name in made:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield [f"{POSTGRES}/{name}" for name in made]
        finally:
            for name in made:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_postgresql_backup_restores_into_postgresql_and_sqlite(tmp_path: Path) -> None:
    """The same on PostgreSQL (its snapshot is a REPEATABLE READ transaction, its id
    sequences are set past the rows restored): restored into an empty PostgreSQL
    database and into SQLite, the match decides the same and the audit verifies; the
    restored PostgreSQL database takes new rows (its sequences moved on)."""
    with _postgres_databases("backup_a", "backup_b") as (first, second):
        home = tmp_path / "home"
        assert _run(home, "-m", "pitchpass", "load", str(SEED), database=first).returncode == 0
        added = _run(
            home, "-m", "pitchpass", "user", "add", "officer", "--role", "officer",
            "--org", "man-united", "--password", "a-long-phrase-1", database=first,
        )  # fmt: skip
        assert added.returncode == 0, added.stderr
        worked = _run(home, "-c", WORK.format(match=MATCH), database=first)
        assert worked.returncode == 0, worked.stderr
        saved = tmp_path / "backup.json"
        backed = _run(home, "-m", "pitchpass", "backup", str(saved), database=first)
        assert backed.returncode == 0, backed.stderr
        before = json.loads(_run(home, "-c", STATE.format(match=MATCH), database=first).stdout)
        for target, where in ((second, tmp_path / "pg"), ("", tmp_path / "sqlite")):
            restored = _run(where, "-m", "pitchpass", "restore", str(saved), database=target)
            assert restored.returncode == 0, restored.stderr
            state = _run(where, "-c", STATE.format(match=MATCH), database=target)
            assert json.loads(state.stdout) == before, state.stderr
            verified = _run(where, "-m", "pitchpass", "audit", "verify", database=target)
            assert verified.returncode == 0 and "audit intact" in verified.stdout
        again = _run(tmp_path / "pg", "-c", WORK.format(match=MATCH), database=second)
        assert again.returncode == 0, again.stderr  # new runs and audit rows: ids free


def test_a_backup_restored_into_an_empty_database_is_the_same(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    assert _run(first, "-m", "pitchpass", "load", str(SEED)).returncode == 0
    added = _run(
        first, "-m", "pitchpass", "user", "add", "officer", "--role", "officer",
        "--org", "man-united", "--password", "a-long-phrase-1",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert _run(first, "-m", "pitchpass", "token", "create", "officer").returncode == 0
    worked = _run(first, "-c", WORK.format(match=MATCH))
    assert worked.returncode == 0, worked.stderr
    saved = tmp_path / "backup.json"
    backed = _run(first, "-m", "pitchpass", "backup", str(saved))
    assert backed.returncode == 0 and "backed up" in backed.stdout, backed.stderr
    assert saved.stat().st_mode & 0o777 == 0o600  # password hashes: its owner's alone
    restored = _run(second, "-m", "pitchpass", "restore", str(saved))
    assert restored.returncode == 0 and "restored" in restored.stdout, restored.stderr
    before = json.loads(_run(first, "-c", STATE.format(match=MATCH)).stdout)
    after = json.loads(_run(second, "-c", STATE.format(match=MATCH)).stdout)
    assert after == before and after["published"] and after["audit"] >= 5
    verified = _run(second, "-m", "pitchpass", "audit", "verify")
    assert verified.returncode == 0 and "audit intact" in verified.stdout
    again = _run(second, "-m", "pitchpass", "restore", str(saved))  # not over one in use
    assert again.returncode == 2 and "not empty" in again.stderr
    assert "Traceback" not in again.stderr
    used = tmp_path / "used"  # a database with only a user in it is in use too
    assert _run(used, "-m", "pitchpass", "user", "add", "root", "--role", "admin",
                "--password", "a-long-phrase-9").returncode == 0  # fmt: skip
    over = _run(used, "-m", "pitchpass", "restore", str(saved))
    assert over.returncode == 2 and "not empty" in over.stderr
    junk = tmp_path / "junk.json"
    junk.write_text('{"not": "a backup"}')
    refused = _run(tmp_path / "third", "-m", "pitchpass", "restore", str(junk))
    assert refused.returncode == 2 and "not a pitchpass backup" in refused.stderr
