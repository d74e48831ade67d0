"""Schemathesis against the served OpenAPI document: hundreds of generated calls (valid and
invalid bodies, odd path values, stateful sequences) as a league admin, on the demo site.
Whatever it sends, the answer is never a server error (5xx)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browsing import Site

pytestmark = pytest.mark.slow
BIN = Path(sys.executable).parent
CONFIG = """
[parameters]
"path.match" = "mun-mci-2017-12-10"
"path.request_id" = "r24"
"""


def test_no_generated_call_is_a_server_error(site: Site, tmp_path: Path) -> None:
    env = dict(os.environ, PITCHPASS_HOME=str(site.home))
    env.pop("DATABASE_URL", None)
    made = subprocess.run(
        [BIN / "pitchpass", "token", "create", "admin"], env=env, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG)
    run = subprocess.run(
        [
            BIN / "schemathesis", "--config-file", config, "run", f"{site.url}/api/openapi.json",
            "--header", f"Authorization: Bearer {made.stdout.strip()}",
            "--checks", "not_a_server_error", "--max-examples", "15", "--workers", "1",
            "--seed", "20171210", "--generation-deterministic", "--no-color",
        ],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip  # cwd: its cache folder lands there, not in the checkout
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-6000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counts is not None and int(counts[1]) >= 100, report[-3000:]
    assert re.search(r"Operations:\s+(\d+) selected / \1 total", report), report[:2000]
