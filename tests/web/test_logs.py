"""Logs (issue 28, section 9; issue 10 before it): every record is one JSON object a line
(structlog over the standard logging), naming the request it was written for; what a
request brings into a message (a path with "%0A", bidirectional controls) is escaped by
JSON and can never forge a line; a traceback is one field."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from django.test import Client

from pitchpass.web.logs import formatter


@pytest.fixture
def records() -> Iterator[io.StringIO]:
    """What the app's formatter writes for every record while a test runs."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter())
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield out
    finally:
        root.removeHandler(handler)


def _lines(out: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_a_message_with_line_breaks_and_bidi_stays_one_line(records: io.StringIO) -> None:
    log = logging.getLogger("pitchpass.test-one-line")
    log.error("%s %s failed", "POST", "/api/x\nERROR forged\r\u202eexe.txt")
    try:
        raise ValueError("inside\nthe fault")
    except ValueError:
        log.exception("a fault")
    text = records.getvalue()
    assert text.count("\n") == 2 and "\u202e" not in text  # escaped as \\u202e
    first, second = _lines(records)
    assert first["event"] == "POST /api/x\nERROR forged\r\u202eexe.txt failed"
    assert (first["level"], first["logger"]) == ("error", "pitchpass.test-one-line")
    assert str(first["timestamp"]).endswith("Z")
    assert "ValueError: inside\nthe fault" in str(second["exception"])


@pytest.mark.django_db
def test_each_request_is_named_in_its_records_and_its_answer(records: io.StringIO) -> None:
    client = Client()
    answer = client.get("/api/matches/nope%0AERROR/requests")
    made = answer["X-Request-ID"]
    assert len(made) == 32
    kept = client.get("/api/matches", HTTP_X_REQUEST_ID="proxy-given.id_1")
    assert kept["X-Request-ID"] == "proxy-given.id_1"
    forged = client.get("/api/matches", HTTP_X_REQUEST_ID="x\nERROR forged")  # not plain
    assert forged["X-Request-ID"] != "x\nERROR forged" and len(forged["X-Request-ID"]) == 32
    lines = _lines(records)
    answered = [line for line in lines if line["event"] == "answered"]
    assert [(line["request_id"], line["status"]) for line in answered] == [
        (made, 401),
        ("proxy-given.id_1", 401),
        (forged["X-Request-ID"], 401),
    ]
    assert answered[0]["path"] == "/api/matches/nope\nERROR/requests"
    assert answered[0]["method"] == "GET" and isinstance(answered[0]["ms"], float)
    # Django's own record of the refusal, written after the middleware answered: same id.
    django_lines = [line for line in lines if line["logger"] == "django.request"]
    assert django_lines and django_lines[0]["request_id"] == made
