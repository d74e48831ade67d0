"""The README and the manual (docs/) cannot drift: their commands are run here and their
output compared, the two commands the README promises (`make demo`, `make test`) exist as
written, the command reference is what the CLI's help says, and the site builds."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples() -> list[tuple[str, str, str]]:
    """(page, command, expected output) for every `$ ` line of the console blocks of the
    README and the manual."""
    found = []
    for page in PAGES:
        for block in BLOCK.findall(page.read_text()):
            for chunk in block.split("$ ")[1:]:
                command, _, output = chunk.partition("\n")
                found.append((str(page.relative_to(ROOT)), command, output.rstrip("\n")))
    return found


def shell_env() -> dict[str, str]:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("COLUMNS", None)
    return env


def printed_by(command: str) -> str:
    out = subprocess.run(
        command, shell=True, cwd=ROOT, capture_output=True, text=True, env=shell_env()
    )
    lines = (out.stdout + out.stderr).rstrip("\n").split("\n")
    return "\n".join(line.rstrip() for line in lines)


@pytest.mark.parametrize(("page", "command", "expected"), examples(), ids=lambda v: v[:50])
def test_each_command_shown_prints_what_its_page_shows(
    page: str, command: str, expected: str
) -> None:
    """UPDATE_SNAPSHOTS=1 rewrites a page's outputs after a deliberate change."""
    printed = printed_by(command)
    if os.environ.get("UPDATE_SNAPSHOTS") and printed != expected:
        text = (ROOT / page).read_text()
        old, new = f"$ {command}\n{expected}\n", f"$ {command}\n{printed}\n"
        (ROOT / page).write_text(text.replace(old, new, 1))
        return
    assert printed == expected


def test_readme_shows_the_two_commands_and_the_makefile_has_them() -> None:
    assert "make demo" in README and "make test" in README
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "DEMO_PORT ?= 8000" in makefile and "http://127.0.0.1:8000" in README
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_make_test_installs_chromium_when_it_is_missing() -> None:
    """On a fresh machine `make test` must install the browser before the browser tests run."""
    database = subprocess.run(
        ["make", "-p", "-n", "test"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    rule = re.search(r"^test: (.*)$", database, re.M)
    assert rule and "/usr/bin/chromium" in rule.group(1).split()
    assert re.search(
        r"^/usr/bin/chromium:\n(?:#.*\n)*\tapt-get .*install .*chromium", database, re.M
    )


def test_the_command_reference_is_what_the_cli_says() -> None:
    """docs/commands.md is written from the CLI's own help (`make docs`); a command, an
    option or a help text changed without it fails here."""
    from pitchpass.cli import app
    from pitchpass.cli.reference import reference

    page = (ROOT / "docs" / "commands.md").read_text()
    assert page == reference(), "run `make docs` (or python -m pitchpass.cli.reference)"
    names = [c.name or c.callback.__name__ for c in app.registered_commands]
    assert names and all(f"## `pitchpass {name.replace('_', '-')}`" in page for name in names)


def test_the_readme_is_a_front_page() -> None:
    """At most 150 lines, each line of prose at most 100 characters; the manual is in
    docs/, and every page there is reached from the README or the site's home page."""
    lines = README.splitlines()
    assert len(lines) <= 150
    fenced = False
    for line in lines:
        fenced = fenced != line.startswith("```")
        assert fenced or line.startswith("```") or len(line) <= 100, line
    linked = README + (ROOT / "docs" / "index.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert page.name == "index.md" or f"{page.name})" in linked, page.name


def test_the_documentation_site_builds_with_no_warning(tmp_path: Path) -> None:
    """`make docs` builds it with --strict in CI; here too, so that a broken link or a
    page left out of the navigation fails `make test`."""
    built = subprocess.run(
        [str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--site-dir",
         str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, env=dict(shell_env(), NO_MKDOCS_2_WARNING="1"),
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "contract" / "index.html").exists()


@pytest.mark.slow
def test_make_demo_serves_the_seed_match(tmp_path: Path) -> None:
    """`make demo` as a user runs it (on a free port, in a fresh data folder): it prints a
    user per role and the address, and there the officer signs in and sees the match."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(shell_env(), PITCHPASS_HOME=str(tmp_path), PYTHONUNBUFFERED="1")
    env.pop("DATABASE_URL", None)
    demo = subprocess.Popen(
        ["make", "--no-print-directory", "demo", f"DEMO_PORT={port}"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        assert demo.stdout is not None
        printed = []
        for line in demo.stdout:
            printed.append(line)
            if line.startswith(f"pitchpass at http://127.0.0.1:{port}/"):
                break
        users = {p[0]: p[1] for p in (x.split() for x in printed if x.startswith("  ")) if p}
        assert {"admin", "officer", "documentary", "steward"} <= set(users), "".join(printed)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        login = f"http://127.0.0.1:{port}/login/"
        for _ in range(50):
            try:
                form = opener.open(login).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
        assert token is not None
        data = f"csrfmiddlewaretoken={token[1]}&username=officer&password={users['officer']}"
        request = urllib.request.Request(login, data.encode(), headers={"Referer": login})
        page = opener.open(request).read().decode()
        assert "Manchester United v Manchester City" in page and "officer" in page
        # A worker runs beside the server: it writes that it is alive into the database.
        beat = None
        for _ in range(100):
            with sqlite3.connect(tmp_path / "pitchpass.sqlite3") as db:
                beat = db.execute("SELECT pid FROM pitchpass_workerbeat").fetchone()
            if beat:
                break
            time.sleep(0.1)
        assert beat, "no worker started:\n" + "".join(printed)
        worker = beat[0]
        demo_process = int(Path(f"/proc/{worker}/stat").read_text().split(") ")[1].split()[1])
        # SIGTERM to the demo (as a service manager stops it) stops its worker too.
        os.kill(demo_process, signal.SIGTERM)
        demo.wait(timeout=40)
        assert not Path(f"/proc/{worker}").exists() or "Z" in _state(worker)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, 15)
            demo.wait(timeout=10)


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[0]
