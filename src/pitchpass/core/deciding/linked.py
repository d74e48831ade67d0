"""Grouping things that share a link: the requests that contend for places, the matches
that season rules tie together. A union-find over the links each thing has."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

_T = TypeVar("_T")


def linked_groups(
    items: Sequence[_T], links_of: Callable[[_T], Iterable[Hashable]]
) -> list[list[_T]]:
    """`items` in groups: two items sharing a link are in one group. Groups in the order
    of their first item, each in the order given."""
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[Hashable, int] = {}
    for index, item in enumerate(items):
        for link in links_of(item):
            if link in first:
                parent[root(index)] = root(first[link])
            else:
                first[link] = index
    groups: dict[int, list[_T]] = {}
    for index, item in enumerate(items):
        groups.setdefault(root(index), []).append(item)
    return list(groups.values())
