"""scenario.check_request (one request checked against a document read once, as the web
app checks each submission) says of a request exactly what check_document says of it
when the request is added last to the document: the same problems at its path, and no
others, for requests valid and invalid, on generated scenarios."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import scenarios

from pitchpass.core import check_document, check_request, read_frame
from profiles import examples

BROKEN: list[tuple[str, Any]] = [
    ("zone", "nowhere"), ("zone", 7), ("phases", []), ("phases", ["no-phase"]),
    ("phases", "post-match"), ("crew", 0), ("crew", "2"), ("crew", True), ("crew", 10**30),
    ("cameras", -1), ("by", "nobody"), ("by", None), ("match", "other-match"),
    ("consent", ["nobody"]), ("consent", "org0"), ("submitted", "yesterday"),
    ("locked", "yes"), ("extra", 1), ("id", ""), ("id", None), ("id", {"a": 1}),
]  # fmt: skip


def _at(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((f"{prefix}.", f"{prefix}["))


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    """A generated document and a request to add to it: one of its own (taken out), as
    it is or broken in some fields, another's id, or not a mapping at all."""
    document = draw(scenarios())
    requests = document.get("requests") or []
    if not requests or draw(st.integers(0, 9)) == 0:
        return document, draw(st.sampled_from([None, 3, "r1", []]))
    n = draw(st.integers(0, len(requests) - 1))
    entry = copy.deepcopy(requests[n])
    if draw(st.booleans()):
        document["requests"] = requests[:n] + requests[n + 1 :]
    elif draw(st.booleans()):
        entry["id"] = f"new-{entry['id']}"
    # else: its id is used already
    for field, value in draw(st.lists(st.sampled_from(BROKEN), max_size=3)):
        if value is None:
            entry.pop(field, None)
        else:
            entry[field] = value
    if draw(st.booleans()):
        entry["locked"] = True
    return document, entry


@settings(max_examples=examples(300))
@given(case=cases())
def test_one_request_is_checked_as_the_whole_document_would_check_it(
    case: tuple[dict[str, Any], Any],
) -> None:
    document, entry = case
    frame = read_frame(document)
    _, alone, _ = check_document(document)
    assert frame.problems == alone
    whole = {**document, "requests": [*(document.get("requests") or []), entry]}
    _, problems, _ = check_document(whole)
    own = f"requests[{len(document.get('requests') or [])}]"
    said = check_request(frame, entry)
    assert sorted(map(str, said)) == sorted(str(p) for p in problems if _at(p.path, own))
    if not alone and not said:  # nothing else is wrong with the document once it is added
        assert [p for p in problems if not p.path.startswith("requests[")] == []


def test_organisations_named_besides_the_documents_are_known() -> None:
    """`more_orgs`: the requester or those consenting, known valid but not in the frame."""
    document = {
        "pitchpass": 1, "competition": {"id": "c", "name": "C"},
        "organisations": [{"id": "h", "name": "H", "kind": "club"},
                          {"id": "a", "name": "A", "kind": "club"}],
        "venues": [{"id": "v", "zones": [{"id": "z", "capacity": 2}]}],
        "matches": [{"id": "m", "venue": "v", "home": "h", "away": "a",
                     "kickoff": "2099-01-01T15:00:00+00:00"}],
    }  # fmt: skip
    entry = {"id": "r", "match": "m", "by": "tv", "zone": "z", "phases": ["post-match"],
             "crew": 1, "submitted": "2098-12-01T10:00:00+00:00"}  # fmt: skip
    frame = read_frame(document)
    assert frame.problems == []
    assert [p.path for p in check_request(frame, entry)] == ["requests[0].by"]
    assert check_request(frame, entry, ["tv"]) == []
