"""Reading scenario files from disk: the one place the CLI touches the file system for input."""

from __future__ import annotations

from pathlib import Path

from pitchpass.core import Problem, Scenario, ScenarioInvalid, check_document
from pitchpass.core.parse import decode_bytes, parse_text


def read_scenario(path: Path) -> tuple[Scenario, list[Problem]]:
    """(scenario, warnings) from a YAML or JSON file; ScenarioInvalid for any problem."""
    document = read_document(path)
    scenario, problems, warnings = check_document(document)
    if scenario is None:
        raise ScenarioInvalid(problems)
    return scenario, warnings


def read_document(path: Path) -> dict[str, object]:
    name = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise _invalid(f"{name}: no such file") from None
    except IsADirectoryError:
        raise _invalid(f"{name}: is a directory, not a scenario file") from None
    except PermissionError:
        raise _invalid(f"{name}: permission denied") from None
    except OSError as error:
        raise _invalid(f"{name}: cannot be read ({error.strerror})") from None
    return parse_text(decode_bytes(data, name), name)


def _invalid(message: str) -> ScenarioInvalid:
    return ScenarioInvalid([Problem("", message)])
