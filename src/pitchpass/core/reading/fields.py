"""Reading typed fields out of a plain document, collecting every problem with its place.

A reader never stops at the first problem: each method records what is wrong and
returns None, so the caller carries on and the user gets the whole list at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable
from datetime import datetime, timedelta
from typing import Any

from pitchpass.core.reading.problems import Problem, did_you_mean

# Places, crews and cameras above this are typing mistakes, and would overflow the
# solver's 64-bit arithmetic long before they meant anything at a football ground.
MAX_COUNT = 1_000_000
MAX_DEADLINE = timedelta(days=3650)
_DURATION = re.compile(r"^\s*(\d+)\s*([mhd])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days"}


def parse_duration(text: str) -> timedelta | None:
    """`30m`, `12h` or `5d` as a timedelta; None if it is not one."""
    match = _DURATION.match(text)
    if match is None:
        return None
    amount, unit = int(match.group(1)), match.group(2)
    return timedelta(**{_UNITS[unit]: min(amount, 10**6)})


_MISSING = object()


class Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        # kind -> ids in document order, recorded even where the item itself has problems,
        # so that references to it are not reported as unknown on top of its own problem.
        self.declared: dict[str, dict[str, None]] = {}

    def declare(self, kind: str, value: str) -> None:
        self.declared.setdefault(kind, {})[value] = None

    def known(self, kind: str) -> list[str]:
        return list(self.declared.get(kind, {}))

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    # -- containers ------------------------------------------------------------------

    def mapping(self, value: Any, path: str, known: Iterable[str]) -> dict[str, Any] | None:
        """`value` as a mapping; unknown keys are warned about (they may be a typo)."""
        if not isinstance(value, dict):
            self.problem(path, f"must be a mapping of fields, not {_kind(value)}")
            return None
        known = tuple(known)
        for key in value:
            if key not in known:
                where = f"{path}.{key}" if path else str(key)
                self.warnings.append(
                    Problem(where, f"unknown field, ignored{did_you_mean(str(key), known)}")
                )
        return value

    def items(self, parent: dict[str, Any], key: str, path: str, required: bool) -> list[Any]:
        """The list at `key` (empty if absent and optional)."""
        value = parent.get(key, _MISSING)
        where = _join(path, key)
        if value is _MISSING or value is None:
            if required:
                self.problem(where, "missing required field")
            return []
        if not isinstance(value, list):
            self.problem(where, f"must be a list, not {_kind(value)}")
            return []
        return value

    # -- scalars ---------------------------------------------------------------------

    def text(
        self, parent: dict[str, Any], key: str, path: str, required: bool = True,
        lines: bool = False,
    ) -> str | None:  # fmt: skip
        value = parent.get(key, _MISSING)
        return self.text_value(value, _join(path, key), required, lines)

    def text_value(
        self, value: Any, where: str, required: bool = True, lines: bool = False
    ) -> str | None:
        """Non-empty text of one line (`lines`: newlines and tabs allowed too)."""
        if value is _MISSING or value is None:
            if required:
                self.problem(where, "missing required field")
            return None
        # YAML reads `id: 7` as a number; an id written that way is still meant as text.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str) or not value.strip():
            self.problem(where, f"must be non-empty text, not {_kind(value)}")
            return None
        wrong = unwritable(value, lines)
        if wrong:
            self.problem(where, wrong)
            return None
        return value

    def integer(
        self, parent: dict[str, Any], key: str, path: str, minimum: int, default: int | None = None
    ) -> int | None:
        value = parent.get(key, _MISSING)
        where = _join(path, key)
        if value is _MISSING or value is None:
            if default is None:
                self.problem(where, "missing required field")
            return default
        return self.integer_value(value, where, minimum)

    def integer_value(self, value: Any, where: str, minimum: int) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(where, f"must be a whole number, not {_kind(value)}")
            return None
        if value < minimum:
            self.problem(where, f"must be at least {minimum}, not {value}")
            return None
        if value > MAX_COUNT:
            self.problem(where, f"must be at most {MAX_COUNT:,}, not {value:,}")
            return None
        return value

    def number(self, parent: dict[str, Any], key: str, path: str) -> float | None:
        value = parent.get(key, _MISSING)
        where = _join(path, key)
        if value is _MISSING or value is None:
            self.problem(where, "missing required field")
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(where, f"must be a number of minutes, not {_kind(value)}")
            return None
        if not math.isfinite(value):
            self.problem(where, f"must be a finite number of minutes, not {value}")
            return None
        return value

    def boolean(self, parent: dict[str, Any], key: str, path: str) -> bool:
        value = parent.get(key, False)
        if not isinstance(value, bool):
            self.problem(_join(path, key), f"must be true or false, not {_kind(value)}")
            return False
        return value

    def moment(self, parent: dict[str, Any], key: str, path: str) -> datetime | None:
        """A date and time with its timezone (a time without one is ambiguous)."""
        value = parent.get(key, _MISSING)
        where = _join(path, key)
        if value is _MISSING or value is None:
            self.problem(where, "missing required field")
            return None
        if isinstance(value, datetime):  # a document built in Python rather than read from text
            moment = value
        elif not isinstance(value, str):
            self.problem(where, f"must be a date and time such as {_EXAMPLE}, not {_kind(value)}")
            return None
        else:
            try:
                moment = datetime.fromisoformat(value.strip())
            except ValueError:
                self.problem(where, f'"{value}" is not a date and time such as {_EXAMPLE}')
                return None
        if moment.tzinfo is None or moment.utcoffset() is None:
            self.problem(where, f'"{value}" has no timezone; write it as e.g. {_EXAMPLE}')
            return None
        return moment

    def duration(
        self, parent: dict[str, Any], key: str, path: str, default: timedelta
    ) -> timedelta:
        value = parent.get(key, _MISSING)
        if value is _MISSING or value is None:
            return default
        deadline = parse_duration(value) if isinstance(value, str) else None
        if deadline is None:
            self.problem(
                _join(path, key), f"must be a duration such as 30m, 12h or 5d, not {value!r}"
            )
            return default
        if deadline > MAX_DEADLINE:
            self.problem(_join(path, key), f"must be at most {MAX_DEADLINE.days}d, not {value}")
            return default
        return deadline

    def id_list(self, parent: dict[str, Any], key: str, path: str, required: bool) -> list[str]:
        """A list of ids (a bare id is a problem: the contract and the schema say list)."""
        value = parent.get(key, _MISSING)
        where = _join(path, key)
        if value is _MISSING or value is None:
            if required:
                self.problem(where, "missing required field")
            return []
        if not isinstance(value, list):
            example = f"[{value}]" if isinstance(value, str | int) else "[a, b]"
            self.problem(where, f"must be a list of ids such as {example}, not {_kind(value)}")
            return []
        ids = [self.text_value(item, f"{where}[{i}]") for i, item in enumerate(value)]
        return [i for i in ids if i is not None]

    def reference(self, value: str | None, where: str, known: Collection[str], what: str) -> bool:
        """Check that `value` names one of `known`; record a "did you mean" if not."""
        if value is None:
            return False
        if value in known:
            return True
        self.problem(where, f'unknown {what} "{value}"{did_you_mean(value, known)}')
        return False


_EXAMPLE = "2017-12-10T16:30:00+00:00"
# A lone surrogate (no database or e-mail can write it), a control character or a line
# break (Unicode's Cc, Zl and Zp: an e-mail header holding one is refused).
UNWRITABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_LINES_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def unwritable(text: str, lines: bool = False) -> str:
    """Why `text` cannot be kept as a name or a line of text ("" when it can): it holds a
    lone surrogate, or a control character or a line break (`lines`: newlines and tabs
    are allowed, as in an account of several lines)."""
    found = (_LINES_UNWRITABLE if lines else UNWRITABLE).search(text)
    if found is None:
        return ""
    char, at = found.group(), found.start() + 1
    if "\ud800" <= char <= "\udfff":
        return f"has a lone surrogate (U+{ord(char):04X}) at character {at}: not text"
    return f"has a control character or line break (U+{ord(char):04X}) at character {at}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f'the text "{value}"'
    return type(value).__name__
