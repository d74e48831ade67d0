"""The quick reading of a plain request (read_matches._Plain) says exactly what the
field-by-field reading says: the same scenario, problems and warnings, on generated
scenarios with one request's field made odd in every way the reader knows."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import scenarios

from pitchpass.core import check_document
from pitchpass.core.reading.read_matches import _Plain
from profiles import examples

ODD = [None, "", " ", 0, -1, 2, 1_000_001, True, 1.5, [], ["x"], {}, "x", "2024-01-01T10:00",
       "2024-01-01T10:00Z", 7]  # fmt: skip
FIELDS = ["id", "match", "by", "zone", "phases", "crew", "cameras", "submitted", "consent",
          "locked", "no_shows", "colour"]  # fmt: skip


def _read(doc: dict[str, Any]) -> Any:
    scenario, problems, warnings = check_document(copy.deepcopy(doc))
    return scenario, problems, warnings


@settings(max_examples=examples(150))
@given(doc=scenarios(), data=st.data())
def test_the_quick_reading_says_what_the_slow_one_says(doc: dict[str, Any], data: Any) -> None:
    if doc["requests"] and data.draw(st.booleans()):
        request = data.draw(st.sampled_from(doc["requests"]))
        field = data.draw(st.sampled_from(FIELDS))
        odd = data.draw(st.sampled_from(ODD))
        if data.draw(st.booleans()):
            request[field] = odd
        else:
            request.pop(field, None)
    quick = _read(doc)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_Plain, "request", lambda self, raw, seen: None)
        slow = _read(doc)
    assert quick == slow
