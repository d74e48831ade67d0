"""Text to a document: YAML and JSON, and a plain message for every way they can fail."""

from __future__ import annotations

import pytest

from pitchpass.core import ScenarioInvalid
from pitchpass.core.reading.parse import decode_bytes, parse_text


def message(text: str, name: str = "s.yaml") -> str:
    with pytest.raises(ScenarioInvalid) as raised:
        parse_text(text, name)
    (problem,) = raised.value.problems
    return problem.message


def test_timestamps_stay_text_so_a_missing_timezone_can_be_reported() -> None:
    document = parse_text("kickoff: 2017-12-10T16:30:00+00:00\nday: 2017-12-10\n")
    assert document == {"kickoff": "2017-12-10T16:30:00+00:00", "day": "2017-12-10"}


def test_json_and_yaml_read_the_same() -> None:
    assert parse_text('{"a": [1, "b"]}', "s.json") == parse_text("a: [1, b]\n", "s.yaml")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a: 1\nb:\n  c: 1\n  c: 2\n", 'field "c" is written twice in one mapping (line 4'),
        ('{"a": 1, "a": 2}', 'field "a" is written twice'),
        ("[" * 5000, "nested too deeply"),
        ("a: 'x\x00'\n", "character #x0000"),
        ("a: [1\n", "not valid YAML at line 2"),
    ],
)
def test_bad_text(text: str, fragment: str) -> None:
    assert fragment in message(text)


def test_yaml_merge_keys_are_not_duplicates() -> None:
    document = parse_text("base: &b {x: 1}\nzone:\n  <<: *b\n  x: 2\n")
    assert document["zone"] == {"x": 2}


def test_bytes_must_be_utf8() -> None:
    with pytest.raises(ScenarioInvalid) as raised:
        decode_bytes(b"ok\xff", "s.yaml")
    assert "byte 2 is 0xff" in raised.value.problems[0].message
    assert decode_bytes("\ufeffa: 1".encode(), "s.yaml") == "a: 1"


def test_a_yaml_flow_document_is_yaml_whatever_its_first_character() -> None:
    assert parse_text("{a: [1, 2], b: c}\n", "s.yaml") == {"a": [1, 2], "b": "c"}


@pytest.fixture(params=["python", "libyaml"])
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test using it runs with PyYAML's own parser and with libyaml's (the default
    where PyYAML has it): the same documents and the same messages."""
    from pitchpass.core.reading import parse

    monkeypatch.setattr(
        parse, "LOADER", parse._Loader if request.param == "python" else parse._CLoader
    )
    return str(request.param)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (
            "a: 1\nb:\n  c: 1\n  c: 2\n",
            'field "c" is written twice in one mapping (line 4, column 3)',
        ),
        ("[" * 5000, "nested too deeply"),
        ("a: [1\n", "not valid YAML at line 2, column 1"),
        ("a: b: c\n", "not valid YAML at line 1, column 5"),
        ("kickoff: 2017-12-10T16:30:00\n? [a]\n: 1\n", "field names must be text"),
    ],
)
def test_both_parsers_say_the_same(loader: str, text: str, fragment: str) -> None:
    assert fragment in message(text), loader


def test_both_parsers_read_the_examples_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    from pitchpass.core.reading import parse

    for path in sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml")):
        read = []
        for kind in (parse._Loader, parse._CLoader):
            monkeypatch.setattr(parse, "LOADER", kind)
            read.append(parse_text(path.read_text(), path.name))
        assert read[0] == read[1], path.name
