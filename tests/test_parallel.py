"""Deciding on all cores gives exactly what deciding in one process gives."""

from __future__ import annotations

import copy

from builders import BASE, req
from pitchpass.cli.parallel import MIN_MATCHES_FOR_POOL, decide_all, decide_all_json
from pitchpass.core import decide, decide_json, load_document


def season(matches: int) -> dict:
    document = copy.deepcopy(BASE)
    template = document["matches"][0]
    document["matches"] = [dict(template, id=f"m{n}") for n in range(matches)]
    document["requests"] = [
        dict(req(f"r{n}-{k}", by, crew=1 + (n + k) % 3), match=f"m{n}")
        for n in range(matches)
        for k, by in enumerate(["h", "p1", "p2", "prod", "agency", "home-fc"])
    ]
    document["incidents"] = [
        {"id": f"i{n}", "match": f"m{n}", "zone": "tunnel", "minute": 130} for n in range(matches)
    ]
    return document


def test_pool_and_single_process_agree() -> None:
    scenario = load_document(season(MIN_MATCHES_FOR_POOL + 6))
    alone = decide(scenario)
    assert any(d.status.value == "refused" for r in alone for d in r.decisions)
    assert decide_all(scenario, workers=2) == alone
    assert decide_all_json(scenario, workers=2) == decide_json(alone)


def test_a_few_matches_are_decided_in_process() -> None:
    scenario = load_document(season(3))
    assert decide_all_json(scenario, ["m1"], workers=2) == decide_json(decide(scenario, ["m1"]))


def test_the_written_output_is_json_dumps_bytes_in_a_pool_and_alone() -> None:
    """decide --json's bytes: each worker writes its matches, the parent joins them; the
    same bytes as json.dumps(indent=2) of the whole, in a pool, alone, and for no match."""
    import json

    from pitchpass.cli.parallel import decide_all_json_bytes

    scenario = load_document(season(MIN_MATCHES_FOR_POOL + 6))
    for ids in (None, ["m1", "m2"], []):
        expected = json.dumps(decide_json(decide(scenario, ids)), indent=2, ensure_ascii=False)
        assert decide_all_json_bytes(scenario, ids, workers=2) == (expected + "\n").encode()


def test_a_pool_tells_its_progress_match_by_match() -> None:
    from pitchpass.cli.parallel import decide_all_json_bytes

    scenario = load_document(season(MIN_MATCHES_FOR_POOL + 6))
    told: list[int] = []
    alone = decide_all_json_bytes(scenario, workers=2)
    assert decide_all_json_bytes(scenario, workers=2, done=told.append) == alone
    assert sum(told) == MIN_MATCHES_FOR_POOL + 6 and len(told) > 1
