"""Reading scenario files from disk: the one place the CLI touches the file system for input."""

from __future__ import annotations

import os
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


MAX_FILE_MB = 20.0  # a season of 380 matches and 16,294 requests is 3.3 MB of JSON


def max_file_mb() -> float:
    """The largest scenario file read, in MB: PITCHPASS_MAX_FILE_MB, else MAX_FILE_MB."""
    raw = os.environ.get("PITCHPASS_MAX_FILE_MB", "")
    try:
        chosen = float(raw) if raw.strip() else MAX_FILE_MB
    except ValueError:
        raise _invalid(f"PITCHPASS_MAX_FILE_MB must be a number of MB, not {raw!r}") from None
    return chosen if chosen > 0 else MAX_FILE_MB


def read_document(path: Path) -> dict[str, object]:
    name = str(path)
    most = max_file_mb()
    try:
        size = path.stat().st_size
        if path.is_file() and size > most * 1_000_000:  # refused before it is read
            raise _invalid(
                f"{name}: {size / 1_000_000:.1f} MB, more than the {most:g} MB a scenario file"
                " may be (PITCHPASS_MAX_FILE_MB sets another limit)"
            )
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
