"""The README cannot drift: its commands are run here and their output compared, and the
two commands it promises (`make demo`, `make test`) exist as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    """(command, expected output) for every `$ ` line of the README's console blocks."""
    found = []
    for block in BLOCK.findall(README):
        for chunk in block.split("$ ")[1:]:
            command, _, output = chunk.partition("\n")
            found.append((command, output.rstrip("\n")))
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


@pytest.mark.parametrize(("command", "expected"), examples(), ids=lambda v: v[:50])
def test_readme_command_prints_what_the_readme_shows(command: str, expected: str) -> None:
    """UPDATE_SNAPSHOTS=1 rewrites the README's outputs after a deliberate change."""
    printed = printed_by(command)
    if os.environ.get("UPDATE_SNAPSHOTS") and printed != expected:
        text = (ROOT / "README.md").read_text()
        old, new = f"$ {command}\n{expected}\n", f"$ {command}\n{printed}\n"
        (ROOT / "README.md").write_text(text.replace(old, new, 1))
        return
    assert printed == expected


def test_readme_shows_the_two_commands_and_the_makefile_has_them() -> None:
    assert "make demo" in README and "make test" in README
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_every_cli_command_is_documented() -> None:
    from pitchpass.cli import app

    names = [c.name or c.callback.__name__ for c in app.registered_commands]
    assert names and all(f"pitchpass {name}" in README for name in names)


@pytest.mark.slow
def test_make_demo_tells_the_story() -> None:
    out = subprocess.run(
        ["make", "--no-print-directory", "demo"],
        cwd=ROOT, capture_output=True, text=True, env=shell_env(), timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "not caught on camera" in out.stdout and "--grant r24" in out.stdout
