"""Scenario files whose ids or names the database cannot keep, or a URL cannot name, are
refused at load with the place of each problem, never written half or shown as a 500
(issue 10's security probe: an id with "/" loaded from a file made the board fail for
everyone; U+202E in an id spoofs it; a name over 200 characters failed on PostgreSQL)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth.models import User
from django.test import Client
from test_workflow_api import MATCH, future_derby

from pitchpass.core import ScenarioInvalid
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db


def _with(change: Any) -> dict[str, Any]:
    document = copy.deepcopy(future_derby())
    change(document)
    return document


def _request_id(value: str) -> Any:
    def change(document: dict[str, Any]) -> None:
        document["requests"][0]["id"] = value

    return change


def _org_name(value: str) -> Any:
    def change(document: dict[str, Any]) -> None:
        document["organisations"][0]["name"] = value

    return change


def _incident_text(value: str) -> Any:
    def change(document: dict[str, Any]) -> None:
        document["incidents"][0]["what"] = value

    return change


@pytest.mark.parametrize(
    ("change", "path", "said"),
    [
        (_request_id("a/b"), "requests[0].id", 'cannot hold "/"'),
        (_request_id("r\u202e1"), "requests[0].id", "bidirectional"),
        (_request_id("r\x071"), "requests[0].id", "control"),
        (_request_id("r" * 101), "requests[0].id", "at most 100 characters, not 101"),
        (_org_name("n" * 201), "organisations[0].name", "at most 200 characters, not 201"),
        (_incident_text("a\x00b"), "incidents[0].what", "control character or line break (U+0000)"),
    ],
    ids=["slash", "bidi", "control", "long-id", "long-name", "nul-text"],
)
def test_what_cannot_be_kept_or_named_is_refused_at_load(change, path: str, said: str) -> None:
    with pytest.raises(ScenarioInvalid) as refused:
        store.load(_with(change))
    problems = [(p.path, p.message) for p in refused.value.problems]
    assert any(where == path and said in message for where, message in problems), problems
    assert not m.Match.objects.exists()  # nothing written


def test_an_id_with_html_in_it_is_kept_shown_and_addressed() -> None:
    store.load(_with(_request_id("r<b>1")))
    do_add_user("officer", "officer", "man-united", "pw-for-tests-only-7")
    client = Client()
    client.force_login(User.objects.get(username="officer"))
    board = client.get(f"/matches/{MATCH}/")
    assert board.status_code == 200 and "r&lt;b&gt;1" in board.content.decode()
    one = client.get(f"/api/matches/{MATCH}/requests/{quote('r<b>1')}")
    assert one.status_code == 200 and one.json()["id"] == "r<b>1"


def test_the_cli_says_so_in_one_line_each_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_with(_org_name("n" * 201)), default=str))
    env = dict(os.environ, PITCHPASS_HOME=str(tmp_path))
    env.pop("DATABASE_URL", None)
    out = subprocess.run(
        [sys.executable, "-m", "pitchpass", "load", str(path)],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "organisations[0].name" in out.stderr and "at most 200 characters" in out.stderr
