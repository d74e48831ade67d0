"""pitchpass.web.logs.OneLine: whatever a request brings into a log message stays on one
line, control and bidirectional characters escaped (Django escapes its own request log;
this covers every other record, such as the API's "failed" line with the path)."""

from __future__ import annotations

import io
import logging

from pitchpass.web.logs import OneLine, escaped


def test_a_message_with_line_breaks_and_bidi_stays_one_line() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(OneLine())
    log = logging.getLogger("pitchpass.test-one-line")
    log.addHandler(handler)
    try:
        log.error("%s %s failed", "POST", "/api/x\nERROR forged\r\u202eexe.txt")
    finally:
        log.removeHandler(handler)
    assert out.getvalue() == "POST /api/x\\x0aERROR forged\\x0d\\u202eexe.txt failed\n"


def test_printable_text_is_left_as_it_is() -> None:
    assert escaped("Café Ünïcode — r24 (tunnel)") == "Café Ünïcode — r24 (tunnel)"
