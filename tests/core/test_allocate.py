"""The allocator's own structure: what needs no solver, groups, packed objectives, failure."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pitchpass.core.deciding import solver
from pitchpass.core.deciding.allocate import Item, first_come, most_granted, within_reach
from pitchpass.core.reading.problems import Unproven

CELL = ("tunnel", "post-match")
OTHER = ("pitch", "post-match")


def items(
    *crews: int, rank: int = 0, cell: tuple[str, str] = CELL, prefix: str = "r"
) -> list[Item]:
    return [Item(f"{prefix}{i:03}", rank, crew, (cell,)) for i, crew in enumerate(crews)]


def test_no_contention_grants_everything_that_fits() -> None:
    ordered = items(2, 2, 5)
    assert most_granted({CELL: 4}, ordered) == {"r000", "r001"}


def test_first_come_skips_what_no_longer_fits_and_goes_on() -> None:
    ordered = items(3, 2, 1)
    assert first_come({CELL: 4}, ordered) == {"r000", "r002"}


def test_independent_groups_are_each_decided_exactly() -> None:
    tunnel = items(3, 2, 2, prefix="t")
    pitch = items(3, 2, 2, cell=OTHER, prefix="p")
    ordered = [tunnel[0], pitch[0], tunnel[1], pitch[1], tunnel[2], pitch[2]]
    assert most_granted({CELL: 4, OTHER: 3}, ordered) == {"t001", "t002", "p000"}


def test_many_objectives_are_packed_into_several_exact_solves() -> None:
    # 70 equal requests, 30 places: more tie-break bits than one 52-bit objective holds;
    # the lexicographically greatest set is the first 30 in priority order.
    ordered = items(*[1] * 70)
    assert len(solver._chunks(solver._objectives(ordered))) > 1
    assert most_granted({CELL: 30}, ordered) == {f"r{i:03}" for i in range(30)}


def test_tier_counts_come_before_the_tie_break() -> None:
    high = items(3, 1, 1, rank=0, prefix="h")  # two of crew 1 beat one of crew 3
    low = items(1, 1, rank=1, prefix="l")
    assert most_granted({CELL: 3}, [*high, *low]) == {"h001", "h002", "l000"}


def test_when_the_time_limit_passes_first_the_best_found_is_kept_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Never "nothing decided": with no time to search, the first-come choice (which holds)
    is kept, and the answer says it is not proven the best."""
    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 1e-9)
    ordered = items(*[1, 2, 3] * 40)
    unproven: list[Unproven] = []
    granted = most_granted({CELL: 50}, ordered, "m1", unproven)
    crews = {i.id: i.crew for i in ordered}
    assert sum(crews[i] for i in granted) <= 50
    assert len(granted) >= len(first_come({CELL: 50}, ordered))
    (note,) = unproven
    assert note.where == "match m1" and note.objective == "granted[tier 0]"
    assert note.found == len(granted) and (note.most is None or note.most > note.found)
    assert note.text().startswith("not proven the best choice for match m1: the time limit")


def test_a_match_given_time_says_nothing_unproven() -> None:
    unproven: list[Unproven] = []
    assert most_granted({CELL: 50}, items(*[1, 2, 3] * 40), "m1", unproven)
    assert unproven == []


def test_the_bound_is_read_objective_by_objective() -> None:
    """The solver bounds the packed sum; the first objective that may count more than was
    found is named with the most it can count among choices equal before it."""
    chunk = [("a", (0, 1, 2)), ("b", (3, 4)), ("c", (5,))]  # weights 6, 2, 1
    found = [1, 1, 0, 1, 0, 0]  # a = 2, b = 1, c = 0: packed 2*6 + 1*2 = 14
    assert solver._place_values(chunk) == [6, 2, 1]
    note = solver._unproven("match m", chunk, found, -17.0, 3.0)  # at most 17 = 2*6 + 2*2 + 1
    assert note is not None and (note.objective, note.found, note.most) == ("b", 1, 2)
    note = solver._unproven("match m", chunk, found, -18.0, 3.0)  # 18 = 3*6: a could be 3
    assert note is not None and (note.objective, note.found, note.most) == ("a", 2, 3)
    note = solver._unproven("match m", chunk, found, -15.0, 3.0)  # only c could be 1
    assert note is not None and (note.objective, note.found, note.most) == ("c", 0, 1)
    assert solver._unproven("match m", chunk, found, -14.0, 3.0) is None  # proven after all
    # A request's own objective names no request: another organisation's, maybe.
    single = [("granted[other-club:r7]", (0,))]
    note = solver._unproven("the season's 2 linked matches", single, [0], -1.0, 3.0)
    assert note is not None and note.objective == "granted[one request]"
    assert "r7" not in note.text() and "a request's own place" in note.text()


def test_a_match_without_contention_never_imports_the_solver() -> None:
    code = (
        "import sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from builders import req, scenario\n"
        "from pitchpass.core import decide_document\n"
        "decide_document(scenario(req('a', 'p1'), req('b', 'p2', crew=3)))\n"
        "print('ortools' in sys.modules, 'pitchpass.core.deciding.solver' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def brute_force(room: dict[tuple[str, str], int], ordered: list[Item]) -> set[str]:
    """Every subset: most of each tier in turn, then lexicographically greatest in order."""
    best_key, best = None, set()
    for mask in range(1 << len(ordered)):
        chosen = [item for bit, item in enumerate(ordered) if mask >> bit & 1]
        used: dict[tuple[str, str], int] = {}
        for item in chosen:
            for cell in item.cells:
                used[cell] = used.get(cell, 0) + item.crew
        if any(n > room[cell] for cell, n in used.items()):
            continue
        ranks = sorted({i.rank for i in ordered})
        key = (
            tuple(sum(i.rank == r for i in chosen) for r in ranks),
            tuple(mask >> bit & 1 for bit in range(len(ordered))),
        )
        if best_key is None or key > best_key:
            best_key, best = key, {i.id for i in chosen}
    return best


@pytest.mark.parametrize("max_bits", [1, 3, 52])
def test_packing_into_chunks_never_changes_the_answer(
    monkeypatch: pytest.MonkeyPatch, max_bits: int
) -> None:
    """With tiny chunks every objective is solved and fixed on its own: the sequence of
    solves must reach the same unique answer as one packed solve and as brute force."""
    import random

    monkeypatch.setattr(solver, "MAX_BITS", max_bits)
    rng = random.Random(7)
    cells = [("tunnel", "pre"), ("tunnel", "post"), ("room", "post")]
    for _ in range(40):
        room = {cell: rng.randint(1, 6) for cell in cells}
        ordered = [
            Item(
                f"r{k:02}",
                rng.randint(0, 2),
                rng.randint(1, 3),
                tuple(rng.sample(cells, rng.randint(1, 3))),
            )
            for k in range(rng.randint(2, 10))
        ]
        ordered.sort(key=lambda i: i.rank)  # priority order is tier first
        assert most_granted(room, ordered) == brute_force(room, ordered)


@pytest.mark.parametrize("max_bits", [1, 52])
def test_requests_alike_are_granted_first_to_last_as_brute_force_grants(
    monkeypatch: pytest.MonkeyPatch, max_bits: int
) -> None:
    """Many requests alike (the same rank, places and crew: allocate.kind) for little room:
    the search, told that they are granted first to last and given only as many of them
    as their tightest place holds (within_reach), grants what brute force grants."""
    import random

    monkeypatch.setattr(solver, "MAX_BITS", max_bits)
    rng = random.Random(11)
    cells = [("tunnel", "post"), ("room", "post")]
    kinds = [(rank, crew, tuple(rng.sample(cells, rng.randint(1, 2))))
             for rank in (0, 1) for crew in (1, 2) for _ in range(2)]  # fmt: skip
    for _ in range(60):
        room = {cell: rng.randint(1, 5) for cell in cells}
        ordered = [Item(f"r{k:02}", *rng.choice(kinds)) for k in range(rng.randint(6, 14))]
        ordered.sort(key=lambda i: i.rank)
        assert most_granted(room, ordered) == brute_force(room, ordered)


def test_within_reach_keeps_as_many_alike_as_the_tightest_place_holds() -> None:
    ordered = items(2, 2, 2, 2, 1, 2)
    kept = [i.id for i in within_reach({CELL: 5}, ordered)]
    assert kept == ["r000", "r001", "r004"]  # two of crew 2 fit in 5; the one of crew 1


def test_the_solver_does_not_load_or_tools_python_layer() -> None:
    """solver.py builds CP-SAT's model through its C++ helper alone: OR-Tools' Python layer
    (cp_model) would also load numpy and pandas, most of a season's time on the command
    line. A fresh process, so that nothing else has loaded them."""
    import subprocess
    import sys

    code = (
        "import sys, pitchpass.core.deciding.solver as s; "
        "from pitchpass.core.deciding.allocate import Item; "
        "assert s.solve_group([Item('a', 0, 2, (('z', 'p'),)), Item('b', 0, 1, (('z', 'p'),))],"
        " {('z', 'p'): 2}) == {'a'}; "
        "print(sorted(m for m in ('pandas', 'numpy', 'ortools.sat.python.cp_model') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
