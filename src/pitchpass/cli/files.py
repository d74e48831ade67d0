"""Scenario and fixture files on disk: the one place the CLI reads and writes them."""

from __future__ import annotations

import os
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pitchpass.core import Problem, Scenario, ScenarioInvalid, check_document
from pitchpass.core.reading.parse import decode_bytes, parse_text

if TYPE_CHECKING:  # read only by the fixtures command: not loaded for every command
    from pitchpass.core.reading.fixture_files import Fixture


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
    return parse_text(read_text(path, "scenario file"), str(path))


def _invalid(message: str) -> ScenarioInvalid:
    return ScenarioInvalid([Problem("", message)])


def read_fixture_list(path: Path, timezone: str = "") -> tuple[list[Fixture], list[Problem]]:
    """The fixtures of a CSV or ICS file (by its suffix, else by its first line), and the
    problems of its rows; ScenarioInvalid if it cannot be read at all."""
    from pitchpass.core.reading.fixture_files import read_csv, read_ics

    text = read_text(path, "fixture list")
    if path.suffix.lower() in (".ics", ".ical", ".ifb") or text.lstrip().startswith("BEGIN:"):
        return read_ics(text)
    return read_csv(text, timezone)


def read_text(path: Path, what: str) -> str:
    """A file's text (a scenario, a fixture list), of at most max_file_mb (refused before
    it is read); ScenarioInvalid, saying why, if it cannot be read."""
    name = str(path)
    most = max_file_mb()
    try:
        size = path.stat().st_size
        if path.is_file() and size > most * 1_000_000:
            raise _invalid(
                f"{name}: {size / 1_000_000:.1f} MB, more than the {most:g} MB a {what}"
                " may be (PITCHPASS_MAX_FILE_MB sets another limit)"
            )
        data = path.read_bytes()
    except FileNotFoundError:
        raise _invalid(f"{name}: no such file") from None
    except IsADirectoryError:
        raise _invalid(f"{name}: is a directory, not a {what}") from None
    except PermissionError:
        raise _invalid(f"{name}: permission denied") from None
    except OSError as error:
        raise _invalid(f"{name}: cannot be read ({error.strerror})") from None
    return decode_bytes(data, name)


def write_document(document: dict[str, Any], path: Path) -> None:
    """A scenario document to a file: JSON for a .json name, else YAML (comments of the
    file it was read from are not kept). Written whole or not at all (a temporary file
    beside it, then renamed)."""
    import json

    import yaml

    plain = _plain(document)
    if path.suffix.lower() == ".json":
        text = json.dumps(plain, indent=2, ensure_ascii=False) + "\n"
    else:
        text = yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, width=100)
    write_text(text, path)


def write_text(text: str, path: Path) -> None:
    """Text to a file, whole or not at all (a temporary file beside it, then renamed)."""
    import tempfile

    folder = path.resolve().parent
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=folder, prefix=".pitchpass-", delete=False
    ) as temporary:
        temporary.write(text)
    os.replace(temporary.name, path)


def _plain(value: Any) -> Any:
    """Dates and times as ISO 8601 text (as the scenario format writes them)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value
