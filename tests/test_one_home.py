"""One home for every limit and rule (issue 28, sections 2 and 6): each name below is
defined once in the source, and read from there everywhere else. A second definition
(`ID_LENGTH = 100` written again in a form, a direction list in a service, a function of
a rule's name in the web layer) fails here, and so does the deadline worked out again
(`kickoff - deadline` anywhere but its home)."""

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
    "Direction": "core/match_day/doors.py",
    "DIRECTIONS": "core/match_day/doors.py",
    "ByHand": "core/deciding/overrides.py",
    "CODE_MAX": "web/services/doors.py",
    "KEY_MAX": "web/services/doors.py",
    "ALPHABET": "web/persistence/passes.py",
}


# The rules that decide, each a core function the web layer calls: rule -> (function,
# its home). docs/index.md says where each lives.
RULES = {
    "when requests close (the deadline)": ("closes_at", "core/deciding/policy.py"),
    "a competition's deadline as written, or the default": (
        "deadline_of",
        "core/deciding/policy.py",
    ),
    "what rules a request out before places (consent, closed zones, late)": (
        "ineligibility",
        "core/deciding/policy.py",
    ),
    "whose room a zone is (the club whose consent it needs)": (
        "occupant_club",
        "core/deciding/policy.py",
    ),
    "a dressing room needs its club's consent": ("needs_consent", "core/deciding/policy.py"),
    "a zone's places in a phase": ("places_in", "core/deciding/places.py"),
    "door admission": ("check", "core/match_day/doors.py"),
    "which passes a door's list lets in": ("lets_in", "core/match_day/doors.py"),
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


def _functions() -> dict[str, list[str]]:
    """Each function defined in the source (at any depth), and where."""
    found: dict[str, list[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found.setdefault(node.name, []).append(str(path.relative_to(SOURCE)))
    return found


FUNCTIONS = _functions()


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_rule_is_one_core_function(rule: str) -> None:
    name, home = RULES[rule]
    assert FUNCTIONS.get(name) == [home], (rule, FUNCTIONS.get(name))


def test_the_deadline_is_worked_out_in_its_home_only() -> None:
    """`kickoff - deadline` (whatever the names around it) appears in core/deciding/policy.py
    alone: everyone else asks closes_at."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
                left, right = ast.unparse(node.left).lower(), ast.unparse(node.right).lower()
                if "kickoff" in left and "deadline" in right:
                    found.append(str(path.relative_to(SOURCE)))
    assert found == ["core/deciding/policy.py"], found


# A stored row and the core's value it holds share a name by design (models.Match is the
# core's Match in the database): the models are named apart from this check.
MODELS = SOURCE / "web" / "persistence" / "models.py"


def _top_level(kind: type) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted(SOURCE.rglob("*.py")):
        if "migrations" in path.parts or path == MODELS:
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, kind):
                found.setdefault(node.name, []).append(str(path.relative_to(SOURCE)))  # type: ignore[attr-defined]
    return found


def test_no_two_classes_share_a_name() -> None:
    """Issue 28, section 8: `Door` is the core's door; what the door page shows is a
    `DoorView`; each class name says which one it is."""
    twice = {name: where for name, where in _top_level(ast.ClassDef).items() if len(where) > 1}
    assert twice == {}


def test_the_reading_functions_named_twice_are_named_apart() -> None:
    """The store reads a match from its rows (`read_scenario`, `read_plan`,
    `match_document`, `policy_document`); the services' snapshot reads it once a request
    (`scenario_of`, `plan_of`, `frame_scenario`); the core's `match_json` is a result's."""
    functions = _top_level(ast.FunctionDef)
    for name in ("scenario_of", "plan_of", "policy_of", "match_json", "frame_of"):
        assert len(functions.get(name, [])) <= 1, (name, functions[name])


def test_the_package_is_three_folders() -> None:
    """Issue 28, section 8: the core, the command line and the web app, each in its own
    folder; nothing else lies loose at the top of the package."""
    loose = sorted(p.name for p in SOURCE.iterdir() if not p.name.startswith((".", "__")))
    assert loose == ["cli", "core", "py.typed", "web"]
