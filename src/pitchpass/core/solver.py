"""The exact allocation of one group of contending requests with OR-Tools CP-SAT.

The contract's objective is lexicographic: the count of tier 0, then of tier 1, ...,
then each request in priority order (the lexicographically greatest set). Objectives
are packed, most important first, into weighted sums that stay below 2**52 (so every
weight is exact even where the solver works in floating point); each packed sum is
maximised, its parts are fixed at the values found, and the next is solved.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

# The model is built as CP-SAT's own protocol buffer through its C++ helper: the Python
# layer over it (cp_model) also loads numpy and pandas, 0.3 s of a season's 0.6 s.
from ortools.sat.python import cp_model_helper as cmh

from pitchpass.core.allocate import Item, Kind, kind
from pitchpass.core.places import Cell
from pitchpass.core.problems import SolverFailed

MAX_BITS = 52
BIG_MODEL = 1000  # variables: from here CP-SAT searches with two workers (the machine's 2 cores)
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


Constraint = tuple[str, list[int], list[int], int, int]  # name, variables, coefficients, low, high
Count = tuple[str, tuple[int, ...]]  # an objective: (name, the 0/1 variables it counts)


def solve_group(items: Sequence[Item], room: Mapping[Cell, int], label: str = "") -> set[str]:
    """Ids granted in the unique best choice for `items` (in priority order) in `room`."""
    index = {item.id: n for n, item in enumerate(items)}  # grant[id] is variable n, 0 or 1
    constraints: list[Constraint] = []
    for cell, places in room.items():
        holders = [item for item in items if cell in item.cells]
        constraints.append(
            (f"places[{cell[0]}, {cell[1]}]", [index[i.id] for i in holders],
             [i.crew for i in holders], LOWEST, places)
        )  # fmt: skip
    # Requests alike are granted first to last (allocate.kind): each refused one refuses
    # those after it, and the search is told so.
    last: dict[Kind, int] = {}
    after: dict[int, int] = {}  # the objective of a request -> that of the next one alike
    objectives = [(name, tuple(index[i] for i in ids)) for name, ids in _objectives(items)]
    first_single = len(objectives) - len(items)
    for n, item in enumerate(items):
        key = kind(item)
        if key in last:
            before = last[key]
            constraints.append((f"order[{items[before].id}, {item.id}]", [before, n], [1, -1],
                                0, 1))  # fmt: skip
            after[first_single + before] = first_single + n
        last[key] = n
    values = solve_lexicographic(
        [f"grant[{item.id}]" for item in items], constraints, objectives, label, after
    )
    return {item.id for item, value in zip(items, values, strict=False) if value}


def solve_lexicographic(
    names: Sequence[str], constraints: Sequence[Constraint], objectives: Sequence[Count],
    label: str = "", after: Mapping[int, int] | None = None,
) -> list[int]:  # fmt: skip
    """The values of the 0/1 variables `names` that satisfy `constraints` and maximise the
    counts of `objectives` lexicographically, most important first. `after`: objective k
    -> a later one that the constraints hold at 0 whenever k is at 0 (requests alike: one
    refused refuses the next), not searched again once k is fixed at 0."""
    after = after or {}
    model = cmh.CpModelProto()
    for name in names:
        variable = model.variables.add()
        variable.name = name
        variable.domain.extend((0, 1))
    for name, variables, coeffs, low, high in constraints:
        _linear(model, name, variables, coeffs, low, high)
    parameters = _parameters()
    if len(names) > BIG_MODEL:
        parameters.num_workers = 2
    values: list[int] | None = None
    at = 0  # objectives[:at] are fixed at their best, and so are those in `fixed`
    fixed: set[int] = set()
    while True:
        if values is not None:
            # An objective at its most in a best solution so far is fixed there unsolved.
            while at < len(objectives) and (at in fixed or _at_most(objectives[at], values)):
                if at not in fixed:
                    name, counted = objectives[at]
                    _linear(model, name, list(counted), [1] * len(counted), len(counted),
                            len(counted))  # fmt: skip
                at += 1
            if at == len(objectives):
                return values
        ahead = [k for k in itertools.islice(
            (k for k in range(at, len(objectives)) if k not in fixed), MAX_BITS)]  # fmt: skip
        chunk = _chunks([objectives[k] for k in ahead])[0] if ahead else []
        weights = _packed(chunk)
        model.clear_objective()
        model.objective.vars.extend(list(weights))
        model.objective.coeffs.extend(-w for w in weights.values())  # CP-SAT minimises
        solver = cmh.SolveWrapper()
        solver.set_parameters(parameters)
        response = solver.solve(model)  # type: ignore[no-untyped-call]  # unannotated in ortools
        if response.status != cmh.CpSolverStatus.OPTIMAL:
            where = f" for {label}" if label.startswith("the ") else f" for match {label}"
            raise SolverFailed(
                f"the solver did not prove the best choice{where if label else ''} "
                f"({response.status.name} after {response.wall_time:.1f} s); nothing decided"
            )
        values = list(response.solution)
        if not chunk:  # nothing to choose: any solution (the constraints still hold)
            return values
        for k, (name, counted) in zip(ahead, chunk, strict=False):
            found = sum(values[v] for v in counted)
            _linear(model, name, list(counted), [1] * len(counted), found, found)
            fixed.add(k)
            while found == 0 and k in after:  # held at 0 by the constraints: not searched
                k = after[k]
                fixed.add(k)
        model.clear_solution_hint()
        model.solution_hint.vars.extend(list(range(len(names))))
        model.solution_hint.values.extend(values)


def _at_most(objective: Count, values: list[int]) -> bool:
    counted = objective[1]
    return sum(values[v] for v in counted) == len(counted)


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


def _packed(chunk: list[Count]) -> dict[int, int]:
    """The weights of one sum whose maximum is the lexicographic maximum of the chunk's
    parts (variable -> weight)."""
    weights: dict[int, int] = {}
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


def _chunks(objectives: list[Count]) -> list[list[Count]]:
    """Consecutive objectives whose packed weighted sum stays below 2**MAX_BITS."""
    chunks: list[list[Count]] = []
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
