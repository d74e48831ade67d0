"""One home for every limit and rule (issue 28, sections 2 and 6): each name below is
defined once in the source, and read from there everywhere else. A second definition
(`ID_LENGTH = 100` written again in a form, a direction list in a service) fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[1] / "src" / "pitchpass"

# name -> the module (under src/pitchpass) that is its one home
HOMES = {
    "ID_LENGTH": "web/limits.py",
    "NAME_LENGTH": "web/limits.py",
    "TIER_LENGTH": "web/limits.py",
    "RULE_LENGTH": "web/limits.py",
    "TEXT_LENGTH": "web/limits.py",
    "Direction": "core/doors.py",
    "DIRECTIONS": "core/doors.py",
    "ByHand": "core/overrides.py",
    "CODE_MAX": "web/services/doors.py",
    "KEY_MAX": "web/services/doors.py",
    "ALPHABET": "web/persistence/passes.py",
}


def _defined() -> dict[str, list[str]]:
    """Each module-level (or class-level) name assigned in the source, and where."""
    found: dict[str, list[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        if "migrations" in path.parts:
            continue  # a migration keeps the values of its day on purpose
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                for name in names:
                    if isinstance(name, ast.Name):
                        where = str(path.relative_to(SOURCE))
                        found.setdefault(name.id, []).append(where)
    return found


DEFINED = _defined()


@pytest.mark.parametrize("name", sorted(HOMES))
def test_each_limit_and_rule_is_defined_once_in_its_home(name: str) -> None:
    assert DEFINED.get(name) == [HOMES[name]], (name, DEFINED.get(name))
