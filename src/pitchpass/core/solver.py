"""The exact allocation of one group of contending requests with OR-Tools CP-SAT.

The contract's objective is lexicographic: the count of tier 0, then of tier 1, ...,
then each request in priority order (the lexicographically greatest set). Objectives
are packed, most important first, into weighted sums that stay below 2**52 (so every
weight is exact even where the solver works in floating point); each packed sum is
maximised, its parts are fixed at the values found, and the next is solved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ortools.sat.python import cp_model

from pitchpass.core.allocate import Item
from pitchpass.core.places import Cell
from pitchpass.core.problems import SolverFailed

MAX_BITS = 52
TIME_LIMIT_SECONDS = 60.0

Objective = tuple[str, tuple[str, ...]]  # (name, ids of the requests it counts)


def solve_group(items: Sequence[Item], room: Mapping[Cell, int], label: str = "") -> set[str]:
    """Ids granted in the unique best choice for `items` (in priority order) in `room`."""
    model = cp_model.CpModel()
    grant = {item.id: model.new_bool_var(f"grant[{item.id}]") for item in items}
    for cell, places in room.items():
        holders = [item for item in items if cell in item.cells]
        model.add(sum(item.crew * grant[item.id] for item in holders) <= places).with_name(
            f"places[{cell[0]}, {cell[1]}]"
        )
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    # Presolve costs more than it saves on these small models, re-solved after each fix.
    solver.parameters.cp_model_presolve = False
    solver.parameters.max_time_in_seconds = TIME_LIMIT_SECONDS
    values: dict[str, int] = {}
    for chunk in _chunks(_objectives(items)):
        weight, terms = 1, []
        for _name, ids in reversed(chunk):
            terms.append(weight * sum(grant[i] for i in ids))
            weight *= len(ids) + 1
        model.maximize(sum(terms))
        status = solver.solve(model)
        if status != cp_model.OPTIMAL:
            where = f" for match {label}" if label else ""
            raise SolverFailed(
                f"the solver did not prove the best choice{where} "
                f"({solver.status_name(status)} after {solver.wall_time:.1f} s); nothing decided"
            )
        values = {i: int(solver.boolean_value(var)) for i, var in grant.items()}
        for name, ids in chunk:
            model.add(sum(grant[i] for i in ids) == sum(values[i] for i in ids)).with_name(name)
        model.clear_hints()  # type: ignore[no-untyped-call]  # ortools leaves it unannotated
        for i, var in grant.items():
            model.add_hint(var, values[i])
    return {i for i, value in values.items() if value}


def _objectives(items: Sequence[Item]) -> list[Objective]:
    """Most important first: per-tier counts, then each request in priority order."""
    ranks = sorted({item.rank for item in items})
    counts = [
        (f"granted[tier {rank}]", tuple(i.id for i in items if i.rank == rank)) for rank in ranks
    ]
    singles = [(f"granted[{item.id}]", (item.id,)) for item in items]
    return counts + singles


def _chunks(objectives: list[Objective]) -> list[list[Objective]]:
    """Consecutive objectives whose packed weighted sum stays below 2**MAX_BITS."""
    chunks: list[list[Objective]] = []
    span = 1 << MAX_BITS
    for objective in objectives:
        size = len(objective[1]) + 1  # the values a count can take: 0..n
        if chunks and span * size <= 1 << MAX_BITS:
            chunks[-1].append(objective)
            span *= size
        else:
            chunks.append([objective])
            span = size
    return chunks
