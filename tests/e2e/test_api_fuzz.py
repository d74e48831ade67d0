"""Schemathesis against the served OpenAPI document: hundreds of generated calls (valid and
invalid bodies, odd path values, stateful sequences) as a league admin, on the demo site.
Whatever it sends, the answer is never a server error (5xx), and every answer is one the
document declares, in its declared shape."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from browsing import Site

pytestmark = pytest.mark.slow
# Never a 5xx; every answer in the shape the document declares for its status (each
# operation declares its success and its errors: http/schemas.py), with a status and a
# content type the document lists for it.
CHECKS = (
    "not_a_server_error,response_schema_conformance,status_code_conformance,"
    "content_type_conformance"
)
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
            "--checks", CHECKS, "--max-examples", "15", "--workers", "1",
            "--seed", "20171210", "--generation-deterministic", "--no-color",
        ],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip  # cwd: its cache folder lands there, not in the checkout
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-6000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", report)
    assert counts is not None and int(counts[1]) >= 100, report[-3000:]
    assert re.search(r"Operations:\s+(\d+) selected / \1 total", report), report[:2000]
