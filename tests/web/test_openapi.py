"""The OpenAPI schema is snapshotted: a change to the API shows up as a diff to review.

UPDATE_SNAPSHOTS=1 rewrites the snapshot after a deliberate change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.test import Client

SNAPSHOT = Path(__file__).parent / "snapshots" / "openapi.json"

PATHS = {
    "/api/matches": {"get"},
    "/api/matches/{match}/requests": {"get", "post"},
    "/api/matches/{match}/requests/{request_id}": {"get", "patch", "delete"},
    "/api/matches/{match}/decide": {"post"},
    "/api/matches/{match}/decisions": {"get"},
    "/api/matches/{match}/publish": {"post"},
    "/api/matches/{match}/incidents": {"post"},
    "/api/matches/{match}/coverage": {"get"},
    "/api/matches/{match}/what-if": {"post"},
    "/api/matches/{match}/export": {"get"},
    "/api/matches/{match}/passes": {"get"},
    "/api/matches/{match}/check-ins": {"post"},
    "/api/matches/{match}/waitlist": {"get"},
    "/api/matches/{match}/offers/{request_id}": {"post"},
    "/api/notices": {"get"},
}


def test_the_paths_other_tools_call_exist() -> None:
    schema = Client().get("/api/openapi.json").json()
    for path, methods in PATHS.items():
        assert methods <= set(schema["paths"][path]), path


def test_openapi_matches_the_snapshot() -> None:
    schema = Client().get("/api/openapi.json").json()
    text = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    if os.environ.get("UPDATE_SNAPSHOTS") or not SNAPSHOT.exists():
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(text)
    assert json.loads(SNAPSHOT.read_text()) == schema


def test_the_docs_page_uses_the_served_swagger_not_a_cdn() -> None:
    import re

    page = Client().get("/api/docs").content.decode()
    scripts = re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', page)
    assert scripts and not [s for s in scripts if "//" in s], scripts  # no other host
    for path in scripts:
        served = Client().get(path)
        assert served.status_code == 200, path


def test_every_operation_declares_its_answers() -> None:
    """Each operation names the shape of its success (none for 204) and of its errors
    (the error shape for each status an error code stands for): schemathesis checks
    every answer against them (tests/e2e/test_api_fuzz.py)."""
    schema = Client().get("/api/openapi.json").json()
    undeclared = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            success = [code for code in answers if code.startswith("2")]
            shaped = all(
                code == "204" or "schema" in next(iter(answers[code]["content"].values()))
                for code in success
            )
            errors = all(
                answers.get(code, {}).get("content", {}).get("application/json", {})
                for code in ("400", "401", "403", "404", "409", "413", "415", "429", "500")
            )
            errors = errors and "503" in answers
            if not (success and shaped and errors):
                undeclared.append(f"{method.upper()} {path}")
    assert undeclared == []
    assert (
        len([o for ops in schema["paths"].values() for o in ops]) == 26
    )  # with the matchweek (decide, publish together) and hindsight (read, ask)
