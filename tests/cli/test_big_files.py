"""What a federation-sized file changes in `decide --json` (issue 12, section 3): the
document read is freed once the scenario is made, and the output is written in pieces,
never joined; the bytes are the same as for a season."""

from __future__ import annotations

import json

import pytest
from test_cli import SEED, run

from pitchpass.cli import commands as cli
from pitchpass.cli.parallel import (
    MIN_MATCHES_FOR_POOL,
    decide_all_json_bytes,
    decide_all_json_pieces,
)
from pitchpass.core import load_document
from test_parallel import season


def test_a_freed_document_decides_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = run("decide", SEED, "--json").stdout
    assert cli._KEPT and isinstance(cli._KEPT[0], dict)
    cli._KEPT.clear()
    monkeypatch.setattr(cli, "FREE_DOCUMENT_FROM", 0)  # as a federation's
    freed = run("decide", SEED, "--json").stdout
    assert not cli._KEPT  # the document was not kept
    assert freed == kept and json.loads(freed)["matches"]


def test_the_pieces_are_the_output_in_a_pool_and_alone() -> None:
    for count in (3, MIN_MATCHES_FOR_POOL + 5):
        scenario = load_document(season(count))
        pieces = decide_all_json_pieces(scenario, workers=2)
        assert b"".join(pieces) == decide_all_json_bytes(scenario, workers=1)
        if count > MIN_MATCHES_FOR_POOL:
            assert len(pieces) == 2 * count + 1  # head, each match, commas, tail
