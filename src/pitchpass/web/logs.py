"""One log record, one line: what a request brings into a message (a path, an id) is
written with its control characters escaped, so that "%0A" in a URL cannot forge a line
of the log, and bidirectional controls cannot make a line read as another."""

from __future__ import annotations

import logging
import re

UNPRINTABLE = re.compile(
    "[\\x00-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]"
)


def escaped(text: str) -> str:
    return UNPRINTABLE.sub(
        lambda found: (
            f"\\x{ord(found[0]):02x}" if ord(found[0]) < 256 else f"\\u{ord(found[0]):04x}"
        ),
        text,
    )


class OneLine(logging.Filter):
    """Escapes the message (a traceback, kept apart in exc_info, stays as it is)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = escaped(record.getMessage()), None
        return True
