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
from ortools.sat.python.cp_model import LinearExpr

from pitchpass.core.allocate import Item
from pitchpass.core.places import Cell
from pitchpass.core.problems import SolverFailed

MAX_BITS = 52
TIME_LIMIT_SECONDS = 60.0

Objective = tuple[str, tuple[str, ...]]  # (name, ids of the requests it counts)


class _Model(cp_model.CpModel):
    def _add_pre_pep8_methods(self) -> None:
        """Skipped: OR-Tools aliases every method in camelCase on each new model (about
        1.3 ms a model, more than solving most of ours); nothing here uses the aliases."""


def solve_group(items: Sequence[Item], room: Mapping[Cell, int], label: str = "") -> set[str]:
    """Ids granted in the unique best choice for `items` (in priority order) in `room`."""
    model = _Model()
    grant = {item.id: model.new_bool_var(f"grant[{item.id}]") for item in items}
    for cell, places in room.items():
        holders = [item for item in items if cell in item.cells]
        crews = LinearExpr.weighted_sum([grant[i.id] for i in holders], [i.crew for i in holders])
        model.add(crews <= places).with_name(f"places[{cell[0]}, {cell[1]}]")
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    # Presolve costs more than it saves on these small models, re-solved after each fix.
    solver.parameters.cp_model_presolve = False
    solver.parameters.max_time_in_seconds = TIME_LIMIT_SECONDS
    values: dict[str, int] = {}
    chunks = _chunks(_objectives(items))
    for number, chunk in enumerate(chunks, start=1):
        model.maximize(_packed(chunk, grant))
        status = solver.solve(model)
        if status != cp_model.OPTIMAL:
            where = f" for match {label}" if label else ""
            raise SolverFailed(
                f"the solver did not prove the best choice{where} "
                f"({solver.status_name(status)} after {solver.wall_time:.1f} s); nothing decided"
            )
        solution = solver.response_proto.solution
        values = {i: solution[var.index] for i, var in grant.items()}
        if number == len(chunks):
            break
        for name, ids in chunk:
            fixed = sum(values[i] for i in ids)
            model.add(LinearExpr.sum([grant[i] for i in ids]) == fixed).with_name(name)
        model.clear_hints()  # type: ignore[no-untyped-call]  # ortools leaves it unannotated
        for i, var in grant.items():
            model.add_hint(var, values[i])
    return {i for i, value in values.items() if value}


def _packed(chunk: list[Objective], grant: Mapping[str, cp_model.IntVar]) -> LinearExpr:
    """One weighted sum whose maximum is the lexicographic maximum of the chunk's parts."""
    weights: dict[str, int] = {}
    weight = 1
    for _name, ids in reversed(chunk):
        for i in ids:
            weights[i] = weights.get(i, 0) + weight
        weight *= len(ids) + 1
    return LinearExpr.weighted_sum([grant[i] for i in weights], list(weights.values()))


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
