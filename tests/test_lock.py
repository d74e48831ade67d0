"""requirements.lock (what `make install` and CI install) pins every dependency that
pyproject.toml names, the dev extra's too, at a version within its range: a range
changed without `make lock` fails here, not on a fresh machine."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).parents[1]


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name.strip())] = version.strip()
    return pins


def test_the_lock_pins_every_dependency_within_its_range() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    named = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    pins = _pins()
    outside = []
    for text in named:
        wanted = Requirement(text)
        pinned = pins.get(canonicalize_name(wanted.name))
        if pinned is None or not wanted.specifier.contains(pinned, prereleases=True):
            outside.append(f"{wanted}: {pinned or 'not in the lock'}")
    assert outside == [], "run `make lock`: " + "; ".join(outside)
    assert "pulp" not in pins  # the bench extra is installed by `make bench` alone
