"""A real server and a real browser: `pitchpass demo --serve` in its own data folder, and
Debian's Chromium driven by Playwright (never a browser Playwright downloads itself)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browsing import Site
from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PITCHPASS_CHROMIUM", "/usr/bin/chromium")
# As root in a sandbox with no outside network: no sandboxing of its own, no GPU, and none
# of the background calls home that this machine would refuse.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """`make demo`'s server, as a user starts it, in a fresh data folder."""
    port = _free_port()
    home = tmp_path_factory.mktemp("home")
    env = dict(os.environ, PITCHPASS_HOME=str(home))
    env.pop("DATABASE_URL", None)
    env["PYTHONUNBUFFERED"] = "1"
    # Far above what a test sends: the fuzzing's writes are answered, not 429 (the rates
    # are tested in tests/web/test_throttles.py and test_two_servers.py).
    env |= {"PITCHPASS_API_RATE": "100000/m", "PITCHPASS_API_WRITE_RATE": "100000/m"}
    # The webhooks' receivers are on this machine (test_notices_browser.py); the refusal of
    # private addresses is tested in tests/web/test_notices.py.
    env["PITCHPASS_WEBHOOK_PRIVATE"] = "1"
    command = [sys.executable, "-m", "pitchpass", "demo", "--serve", "--port", str(port)]
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert server.stdout is not None
    passwords, seen = {}, []
    for line in server.stdout:
        seen.append(line)
        parts = line.split()
        if line.startswith("  ") and len(parts) >= 2:
            passwords[parts[0]] = parts[1]
        if line.startswith("pitchpass at http://127.0.0.1:"):
            break
    else:
        pytest.fail("the demo server did not start:\n" + "".join(seen))
    _wait_for(port)
    # Read on as it writes: a pipe left unread fills, and the server then waits on its
    # next log record.
    threading.Thread(target=lambda: seen.extend(server.stdout or ()), daemon=True).start()
    yield Site(f"http://127.0.0.1:{port}", passwords, home)
    server.terminate()
    server.wait(timeout=10)


def _wait_for(port: int) -> None:
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail(f"nothing answers on port {port}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()
