"""decide --json is written by orjson: the same bytes as json.dumps(indent=2), which
other tools compare, on generated scenarios too (decide's output holds no float)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings

sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
from test_properties import scenarios

from pitchpass.core import decide_document
from profiles import examples


@settings(max_examples=examples(60))
@given(doc=scenarios())
def test_orjson_writes_decide_output_as_json_dumps_does(doc: dict[str, Any]) -> None:
    output = decide_document(doc)
    expected = json.dumps(output, indent=2, ensure_ascii=False) + "\n"
    written = orjson.dumps(output, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    assert written.decode() == expected
