"""The exact allocation of one group of contending requests with OR-Tools CP-SAT.

The contract's objective is lexicographic: the count of tier 0, then of tier 1, ...,
then each request in priority order (the lexicographically greatest set). Objectives
are packed, most important first, into weighted sums that stay below 2**52 (so every
weight is exact even where the solver works in floating point); each packed sum is
maximised, its parts are fixed at the values found, and the next is solved.

The solves of one lexicographic choice share a time limit (TIME_LIMIT_SECONDS, counted
from the solver's own reports). When it passes before the best is proven, the best
choice found is kept and said to be unproven (`Unproven`: the first objective not proven
at its best, what was found and the most it could be), never an error with nothing: a
caller gives a choice that holds (`start`, its first-come answer) for when the solver
has found none.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# The model is built as CP-SAT's own protocol buffer through its C++ helper: the Python
# layer over it (cp_model) also loads numpy and pandas, 0.3 s of a season's 0.6 s.
from ortools.sat.python import cp_model_helper as cmh

from pitchpass.core.deciding.allocate import Item, Kind, first_come, kind
from pitchpass.core.deciding.places import Cell
from pitchpass.core.reading.problems import SolverFailed, Unproven

MAX_BITS = 52
BIG_MODEL = 1000  # variables: from here CP-SAT searches with two workers (the machine's 2 cores)
TIME_LIMIT_SECONDS = 60.0  # for all the solves of one lexicographic choice
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


@dataclass(frozen=True)
class Solved:
    values: list[int]
    unproven: Unproven | None = None


def solve_group(
    items: Sequence[Item], room: Mapping[Cell, int], label: str = "",
    unproven: list[Unproven] | None = None,
) -> set[str]:  # fmt: skip
    """Ids granted in the unique best choice for `items` (in priority order) in `room`;
    if the time limit passes first, the best found, said in `unproven`."""
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
    # A choice that holds, should the solver find none: first-come over the group's cells.
    start = first_come(room, [i._replace(cells=tuple(c for c in i.cells if c in room))
                              for i in items])  # fmt: skip
    solved = solve_lexicographic(
        [f"grant[{item.id}]" for item in items], constraints, objectives, label, after,
        [int(item.id in start) for item in items],
    )  # fmt: skip
    if solved.unproven is not None and unproven is not None:
        unproven.append(solved.unproven)
    return {item.id for item, value in zip(items, solved.values, strict=False) if value}


def solve_lexicographic(
    names: Sequence[str], constraints: Sequence[Constraint], objectives: Sequence[Count],
    label: str = "", after: Mapping[int, int] | None = None,
    start: Sequence[int] | None = None,
) -> Solved:  # fmt: skip
    """The values of the 0/1 variables `names` that satisfy `constraints` and maximise the
    counts of `objectives` lexicographically, most important first. `after`: objective k
    -> a later one that the constraints hold at 0 whenever k is at 0 (requests alike: one
    refused refuses the next), not searched again once k is fixed at 0. `start`: values
    that satisfy the constraints, kept if the time limit passes before the solver finds
    any (without it, that is SolverFailed)."""
    after = after or {}
    where = label if label.startswith("the ") else f"match {label}" if label else "the choice"
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
    unproven: Unproven | None = None
    spent = 0.0  # seconds, as the solver reports them
    at = 0  # objectives[:at] are fixed at their best, and so are those in `fixed`
    fixed: set[int] = set()
    hint = start
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
                return Solved(values, unproven)
        ahead = [k for k in itertools.islice(
            (k for k in range(at, len(objectives)) if k not in fixed), MAX_BITS)]  # fmt: skip
        chunk = _chunks([objectives[k] for k in ahead])[0] if ahead else []
        if spent >= TIME_LIMIT_SECONDS:  # time is up: what was found stands
            kept = values if values is not None else _started(start, where, spent)
            return Solved(kept, unproven or _not_searched(where, chunk, kept, spent))
        weights = _packed(chunk)
        model.clear_objective()
        model.objective.vars.extend(list(weights))
        model.objective.coeffs.extend(-w for w in weights.values())  # CP-SAT minimises
        if hint is not None:
            model.clear_solution_hint()
            model.solution_hint.vars.extend(list(range(len(names))))
            model.solution_hint.values.extend(hint)
        parameters.max_time_in_seconds = TIME_LIMIT_SECONDS - spent
        solver = cmh.SolveWrapper()
        solver.set_parameters(parameters)
        response = solver.solve(model)  # type: ignore[no-untyped-call]  # unannotated in ortools
        spent += response.wall_time
        status = response.status
        if status == cmh.CpSolverStatus.UNKNOWN:  # no solution in the time left
            kept = values if values is not None else _started(start, where, spent)
            return Solved(kept, unproven or _not_searched(where, chunk, kept, spent))
        if status not in (cmh.CpSolverStatus.OPTIMAL, cmh.CpSolverStatus.FEASIBLE):
            raise SolverFailed(
                f"the solver found no choice for {where} ({status.name} after "
                f"{response.wall_time:.1f} s); nothing decided"
            )
        values = list(response.solution)
        if status == cmh.CpSolverStatus.FEASIBLE and unproven is None:
            unproven = _unproven(where, chunk, values, response.best_objective_bound, spent)
        if not chunk:  # nothing to choose: any solution (the constraints still hold)
            return Solved(values, unproven)
        for k, (name, counted) in zip(ahead, chunk, strict=False):
            found = sum(values[v] for v in counted)
            _linear(model, name, list(counted), [1] * len(counted), found, found)
            fixed.add(k)
            while found == 0 and k in after:  # held at 0 by the constraints: not searched
                k = after[k]
                fixed.add(k)
        hint = values


def _started(start: Sequence[int] | None, where: str, spent: float) -> list[int]:
    if start is None:
        raise SolverFailed(
            f"the solver found no choice for {where} within {spent:.1f} s; nothing decided"
        )
    return list(start)


def _not_searched(where: str, chunk: list[Count], values: list[int], spent: float) -> Unproven:
    name, counted = chunk[0] if chunk else ("the rest", ())
    found = sum(values[v] for v in counted)
    return Unproven(where, _said(name), found, None, spent, TIME_LIMIT_SECONDS)


def _said(objective: str) -> str:
    """An objective's name as an answer may carry it: one request's own objective names no
    request (in a group of linked matches it may be another organisation's, and the note
    is shown to each match's officer)."""
    if objective.startswith("granted[") and not objective.startswith("granted[tier "):
        return SINGLE
    return objective


SINGLE = "granted[one request]"  # a request's own objective, its id left out (_said)


def _unproven(
    where: str, chunk: list[Count], values: list[int], bound: float, spent: float
) -> Unproven | None:
    """The first objective of a chunk solved without proof that may count more than found,
    with the most it can count: the solver's bound on the packed sum read digit by digit,
    most important first, among the choices equal to the one found so far."""
    best = math.floor(-bound + 1e-6)  # the most the packed sum can be, proven
    for (name, counted), weight in zip(chunk, _place_values(chunk), strict=True):
        found = sum(values[v] for v in counted)
        most = min(len(counted), best // weight)
        if most > found:
            return Unproven(where, _said(name), found, most, spent, TIME_LIMIT_SECONDS)
        best -= found * weight
    return None  # every objective of the chunk is at the bound: proven after all


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
    for (_name, ids), weight in zip(chunk, _place_values(chunk), strict=True):
        for i in ids:
            weights[i] = weights.get(i, 0) + weight
    return weights


def _place_values(chunk: list[Count]) -> list[int]:
    """Each part's weight in the packed sum, most important first: the product of the
    number of values (0..n) each later part can take, so that no later parts together
    outweigh one unit of an earlier one."""
    weights: list[int] = []
    weight = 1
    for _name, ids in reversed(chunk):
        weights.append(weight)
        weight *= len(ids) + 1
    return weights[::-1]


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
