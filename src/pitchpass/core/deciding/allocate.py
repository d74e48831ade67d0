"""Choosing the granted set among eligible requests, never over capacity.

`first_come` walks the priority order. `most_granted` is exact: it first settles
every request whose outcome needs no search (it cannot fit, or nothing it touches is
contended), splits the rest into independent groups that share contended cells, and
hands each group to the CP-SAT solver. Matches without contention never reach it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from pitchpass.core.deciding.linked import linked_groups
from pitchpass.core.deciding.places import Cell
from pitchpass.core.reading.problems import Unproven


class Item(NamedTuple):
    """A request as the allocator sees it."""

    id: str
    rank: int  # tier rank, 0 highest; unranked is below every tier
    crew: int
    cells: tuple[Cell, ...]


def room_left(capacity: Mapping[Cell, int], locked: Sequence[Item]) -> dict[Cell, int]:
    room = dict(capacity)
    for item in locked:
        for cell in item.cells:
            room[cell] -= item.crew
    return room


def first_come(room: Mapping[Cell, int], ordered: Sequence[Item]) -> set[str]:
    """Grant, in priority order, each request that still fits."""
    left = dict(room)
    granted = set()
    for item in ordered:
        if all(left[cell] >= item.crew for cell in item.cells):
            for cell in item.cells:
                left[cell] -= item.crew
            granted.add(item.id)
    return granted


def most_granted(
    room: Mapping[Cell, int], ordered: Sequence[Item], label: str = "",
    unproven: list[Unproven] | None = None,
) -> set[str]:  # fmt: skip
    """The exact choice of docs/contract.md: most of each tier in turn, then the
    lexicographically greatest set in `ordered` (priority) order; where the solver's time
    limit passed first, the best found, said in `unproven` (solver.Unproven)."""
    fits = within_reach(room, [i for i in ordered if all(room[c] >= i.crew for c in i.cells)])
    demand: dict[Cell, int] = {}
    for item in fits:
        for cell in item.cells:
            demand[cell] = demand.get(cell, 0) + item.crew
    contended = {cell for cell, need in demand.items() if need > room[cell]}
    # A request touching no contended cell fits beside any choice of the others, and
    # adding it improves every objective: it is in the answer without search.
    granted = {i.id for i in fits if not contended.intersection(i.cells)}
    groups = _groups([i for i in fits if i.id not in granted], contended)
    if groups:
        from pitchpass.core.deciding.solver import solve_group  # imports OR-Tools only when needed

        for group in groups:
            cells = sorted({c for item in group for c in item.cells if c in contended})
            granted |= solve_group(group, {c: room[c] for c in cells}, label, unproven)
    return granted


Kind = tuple[int, tuple[Cell, ...], int]


def kind(item: Item) -> Kind:
    """What makes requests alike to the exact choice: the same tier rank, the same places
    and the same crew. Alike requests count the same towards every objective but their
    own place in the priority order, so the best choice grants the first of them in that
    order and none after one it refuses (swapping a later one granted for an earlier one
    refused keeps every place and tier count, and comes first in the order)."""
    return (item.rank, tuple(sorted(item.cells)), item.crew)


def within_reach(room: Mapping[Cell, int], ordered: Sequence[Item]) -> list[Item]:
    """The requests the exact choice could grant: of requests alike (`kind`), only as many
    of the first as the room of their tightest place holds; the rest are refused whatever
    the others are (a match of 20,000 requests for a few dozen places searches among a
    few hundred)."""
    seen: dict[Kind, int] = {}
    out = []
    for item in ordered:
        key = kind(item)
        reach = min((room[c] // item.crew for c in item.cells), default=len(ordered))
        if seen.get(key, 0) < reach:
            out.append(item)
        seen[key] = seen.get(key, 0) + 1
    return out


def _groups(items: list[Item], contended: set[Cell]) -> list[list[Item]]:
    """Split into groups linked through contended cells: each is decided on its own.

    Per-tier counts add up over groups and the priority order restricted to a group is
    the group's own order, so the best of each group together are the best overall.
    """
    return linked_groups(items, lambda item: [c for c in item.cells if c in contended])
