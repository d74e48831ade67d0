"""Text to a plain document (YAML or JSON), with one plain message for each way it can fail."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from pitchpass.core.reading.problems import Problem, ScenarioInvalid


class _Safe:
    """Safe YAML that keeps timestamps as text, and refuses alias bombs.

    PyYAML turns `2017-12-10T16:30:00` into a naive datetime and `2017-12-10` into a
    date; keeping the text lets JSON and YAML files be read by the same code and lets
    a missing timezone be reported instead of silently assumed. Aliases may repeat what
    is written (merge keys for defaults, say), but not make the document more than
    ALIAS_GROWTH times its written size: ten lists of ten aliases, nested nine deep,
    are a billion nodes written in a few hundred bytes.
    """

    may_alias = True  # False when the text has no anchor ("&"): no alias to follow

    def construct_document(self, node: yaml.Node) -> Any:
        if not self.may_alias:
            return super().construct_document(node)  # type: ignore[misc]  # a mixin
        written, expanded = _expanded_size(node)
        if expanded > ALIAS_GROWTH * written + ALIAS_ALLOWANCE:
            raise TooManyAliases(
                f"its aliases make {expanded:,} nodes of the {written:,} written (an alias"
                " bomb?): write the values out"
            )
        return super().construct_document(node)  # type: ignore[misc]  # a mixin


class _Loader(_Safe, yaml.SafeLoader):
    """In Python (PyYAML's own parser)."""


class _CLoader(_Safe, yaml.CSafeLoader):
    """With libyaml's parser in C where PyYAML has it: the same documents, errors and
    places, several times faster (a season of 16,294 requests)."""


ALIAS_GROWTH, ALIAS_ALLOWANCE = 10, 10_000


class TooManyAliases(ValueError):
    """YAML whose aliases would make it far larger than it is written (an alias bomb)."""


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """(nodes as written, nodes once every alias is followed), counted without
    following any alias twice (each node's expanded size is worked out once)."""
    sizes: dict[int, int] = {}
    order: list[yaml.Node] = []
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes and not done:
            continue
        children = _children(node)
        if done:
            sizes[id(node)] = 1 + sum(sizes[id(c)] for c in children)
            continue
        sizes.setdefault(id(node), 0)  # being visited (a cycle counts as one)
        order.append(node)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)
    return len(order), sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


_TEXT = "tag:yaml.org,2002:str"
# An anchor is "&" and its name, no space between ("Brighton & Hove" is not one); text
# that has one anywhere, even inside a quoted string, is checked for alias bombs.
_ANCHOR = re.compile(r"&[^\s\[\]{},]")


class DuplicateField(ValueError):
    """A mapping that names a field twice: which value was meant cannot be known."""


def _mapping_without_duplicates(loader: Any, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # `<<: *anchor` merges fields that the mapping's own may override
        if key_node.tag == _TEXT and isinstance(key_node, yaml.ScalarNode):
            key = key_node.value  # what constructing it would give, without the cost
        else:
            key = loader.construct_object(key_node, deep=True)
        mark = key_node.start_mark
        if not isinstance(key, str | int | float | bool) and key is not None:
            raise DuplicateField(
                f"field names must be text, not a {key_node.id} "
                f"(line {mark.line + 1}, column {mark.column + 1})"
            )
        if key in seen:
            raise DuplicateField(
                f'field "{key}" is written twice in one mapping '
                f"(line {mark.line + 1}, column {mark.column + 1})"
            )
        seen[key] = None
    mapping: dict[Any, Any] = loader.construct_mapping(node)
    return mapping


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateField(f'field "{key}" is written twice in one object')
        result[key] = value
    return result


for _kind in (_Loader, _CLoader):
    _kind.add_constructor(
        yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates
    )
    _kind.yaml_implicit_resolvers = {
        key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
LOADER: type[Any] = _CLoader if yaml.__with_libyaml__ else _Loader


def parse_text(text: str, name: str = "scenario") -> dict[str, Any]:
    """Parse YAML (a superset of JSON) or JSON text into a mapping; raise ScenarioInvalid."""
    try:
        # YAML reads JSON too; the JSON parser is used for .json files for its messages.
        if name.endswith(".json"):
            document = json.loads(text, object_pairs_hook=_object_without_duplicates)
        else:
            loader = LOADER(text)
            loader.may_alias = _ANCHOR.search(text) is not None  # an alias needs one
            try:
                document = loader.get_single_data()
            finally:
                loader.dispose()
    except json.JSONDecodeError as error:
        raise _invalid(
            f"{name}: not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        what = error.problem or error.context or "syntax error"
        if "nesting depth" in what:  # libyaml's own limit, said as the Python parser's is
            raise _invalid(f"{name}: nested too deeply to be a scenario{where}") from None
        raise _invalid(f"{name}: not valid YAML{where}: {what}") from None
    except yaml.reader.ReaderError as error:
        raise _invalid(
            f"{name}: not valid YAML: character #x{error.character:04x} at position "
            f"{error.position} is not allowed"
        ) from None
    except yaml.YAMLError as error:
        raise _invalid(f"{name}: not valid YAML: {error}") from None
    except RecursionError:
        raise _invalid(f"{name}: nested too deeply to be a scenario") from None
    except (DuplicateField, TooManyAliases) as error:
        raise _invalid(f"{name}: {error}") from None
    except ValueError as error:  # an integer of thousands of digits (Python's int limit)
        if "integer string conversion" not in str(error):
            raise
        digits = re.search(r"value has (\d+) digits", str(error))
        many = f"of {digits[1]} digits " if digits else ""
        raise _invalid(f"{name}: a number {many}is too long to be a count or a minute") from None
    if document is None:
        raise _invalid(f"{name}: the document is empty")
    if not isinstance(document, dict):
        kind = type(document).__name__
        kind = {"list": "a list", "str": "a string", "int": "a number", "float": "a number"}.get(
            kind, kind
        )
        raise _invalid(f"{name}: the document must be a mapping of fields, not {kind}")
    return document


def decode_bytes(data: bytes, name: str = "scenario") -> str:
    """UTF-8 text of a file's bytes, or ScenarioInvalid naming the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _invalid(
            f"{name}: not UTF-8 text (byte {error.start} is 0x{data[error.start]:02x})"
        ) from None


def _invalid(message: str) -> ScenarioInvalid:
    return ScenarioInvalid([Problem("", message)])
