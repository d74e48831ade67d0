"""The exact allocation of one group of contending requests with OR-Tools CP-SAT.

The contract's objective is lexicographic: the count of tier 0, then of tier 1, ...,
then each request in priority order (the lexicographically greatest set). Objectives
are packed, most important first, into weighted sums that stay below 2**52 (so every
weight is exact even where the solver works in floating point); each packed sum is
maximised, its parts are fixed at the values found, and the next is solved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# The model is built as CP-SAT's own protocol buffer through its C++ helper: the Python
# layer over it (cp_model) also loads numpy and pandas, 0.3 s of a season's 0.6 s.
from ortools.sat.python import cp_model_helper as cmh

from pitchpass.core.allocate import Item
from pitchpass.core.places import Cell
from pitchpass.core.problems import SolverFailed

MAX_BITS = 52
TIME_LIMIT_SECONDS = 60.0
LOWEST = -(1 << 63)  # no lower bound on a linear constraint (the proto's int64 minimum)

Objective = tuple[str, tuple[str, ...]]  # (name, ids of the requests it counts)


def _parameters() -> cmh.SatParameters:
    parameters = cmh.SatParameters()
    parameters.num_workers = 1
    # Presolve costs more than it saves on these small models, re-solved after each fix.
    parameters.cp_model_presolve = False
    parameters.max_time_in_seconds = TIME_LIMIT_SECONDS
    return parameters


def solve_group(items: Sequence[Item], room: Mapping[Cell, int], label: str = "") -> set[str]:
    """Ids granted in the unique best choice for `items` (in priority order) in `room`."""
    model = cmh.CpModelProto()
    index = {item.id: n for n, item in enumerate(items)}  # grant[id] is variable n, 0 or 1
    for item in items:
        variable = model.variables.add()
        variable.name = f"grant[{item.id}]"
        variable.domain.extend((0, 1))
    for cell, places in room.items():
        holders = [item for item in items if cell in item.cells]
        variables = [index[i.id] for i in holders]
        _linear(model, f"places[{cell[0]}, {cell[1]}]", variables, [i.crew for i in holders],
                LOWEST, places)  # fmt: skip
    parameters = _parameters()
    values: dict[str, int] = {}
    chunks = _chunks(_objectives(items))
    for number, chunk in enumerate(chunks, start=1):
        weights = _packed(chunk)
        model.clear_objective()
        model.objective.vars.extend(index[i] for i in weights)
        model.objective.coeffs.extend(-w for w in weights.values())  # CP-SAT minimises
        solver = cmh.SolveWrapper()
        solver.set_parameters(parameters)
        response = solver.solve(model)  # type: ignore[no-untyped-call]  # unannotated in ortools
        if response.status != cmh.CpSolverStatus.OPTIMAL:
            where = f" for match {label}" if label else ""
            raise SolverFailed(
                f"the solver did not prove the best choice{where} "
                f"({response.status.name} after {response.wall_time:.1f} s); nothing decided"
            )
        solution = response.solution
        values = {i: solution[n] for i, n in index.items()}
        if number == len(chunks):
            break
        for name, ids in chunk:
            fixed = sum(values[i] for i in ids)
            _linear(model, name, [index[i] for i in ids], [1] * len(ids), fixed, fixed)
        model.clear_solution_hint()
        model.solution_hint.vars.extend(index.values())
        model.solution_hint.values.extend(values[i] for i in index)
    return {i for i, value in values.items() if value}


def _linear(
    model: cmh.CpModelProto, name: str, variables: list[int], coeffs: list[int], low: int,
    high: int,
) -> None:  # fmt: skip
    """low <= sum(coeffs[k] * variables[k]) <= high, as a named constraint."""
    constraint = model.constraints.add()
    constraint.name = name
    constraint.linear.vars.extend(variables)
    constraint.linear.coeffs.extend(coeffs)
    constraint.linear.domain.extend((low, high))


def _packed(chunk: list[Objective]) -> dict[str, int]:
    """The weights of one sum whose maximum is the lexicographic maximum of the chunk's
    parts (request id -> weight)."""
    weights: dict[str, int] = {}
    weight = 1
    for _name, ids in reversed(chunk):
        for i in ids:
            weights[i] = weights.get(i, 0) + weight
        weight *= len(ids) + 1
    return weights


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
