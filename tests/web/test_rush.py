"""A short rush (issue 10: CI runs a short version of the load test): benchmarks/web.py
for a second per kind with 10 clients, against its own PostgreSQL database, the rates
counted in the database. What it checks is correctness, not speed: every acknowledged
submission stored once, every answer a success, a decide within capacity (exit 0).
The figures come from the full run (benchmarks/RESULTS-web.md). PostgreSQL run only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from servers import free_port

ROOT = Path(__file__).parents[2]
pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL")


def test_a_short_rush_loses_nothing_and_overbooks_nothing(tmp_path: Path) -> None:
    import psycopg

    s = connection.settings_dict
    server = f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}"
    name = f"pitchpass_rush_{os.getpid()}"
    output = tmp_path / "RESULTS-web.md"
    try:
        run = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "web.py"), "--seconds", "1",
             "--rounds", "1", "--clients", "10", "--database", f"{server}/{name}",
             "--cache", "database", "--port", str(free_port()), "--output", str(output)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
        report = output.read_text()
        assert "all stored once, all answers 2xx, decide within capacity | met" in report
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
