"""Deciding on a cluster (issue 12, section 3): a local Dask cluster of two worker
processes gives exactly the single machine's `decide --json` bytes, with and without
season rules, from the scenario document's parts or from the scenario's objects."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from pitchpass.cli.parallel import decide_all_json_bytes
from pitchpass.core import load_document
from pitchpass.core.season.season_rules import independent_groups
from test_parallel import season

pytest.importorskip("dask.distributed")
pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).parents[1] / "scenarios" / "season-rules.yaml"


@pytest.fixture(scope="module")
def address() -> Any:
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=50)  # fmt: skip
    with cluster:
        yield cluster.scheduler_address


def _documents() -> dict[str, dict[str, Any]]:
    rules = yaml.safe_load(EXAMPLE.read_text())
    two = copy.deepcopy(rules)
    for part in ("matches", "requests"):  # a second league the rules do not link
        two[part] += [{**x, "id": f"{x['id']}-b", **({"match": f"{x['match']}-b"}
                       if "match" in x else {})} for x in rules[part]]  # fmt: skip
    # A day quota alone: each match is linked only to its copy on the same day.
    two["policy"]["season"] = {"quotas": [{**rules["policy"]["season"]["quotas"][0],
                                           "per": "day", "at_most": 1}]}  # fmt: skip
    return {"no rules, 70 matches": season(70), "season rules": rules, "two groups": two}


@pytest.mark.parametrize("name", list(_documents()))
def test_the_cluster_decides_as_one_machine(address: str, name: str) -> None:
    from pitchpass.cli.cluster import decide_on_cluster

    document = _documents()[name]
    scenario = load_document(document)
    expected = decide_all_json_bytes(scenario)
    assert decide_on_cluster(scenario, address, document=document) == expected
    assert decide_on_cluster(scenario, address) == expected
    ids = [scenario.matches[-1].id]
    assert decide_on_cluster(scenario, address, ids, document=document) == (
        decide_all_json_bytes(scenario, ids)
    )


def test_matches_no_rule_links_are_decided_apart() -> None:
    from pitchpass.cli.cluster import batches

    scenario = load_document(_documents()["two groups"])
    groups = independent_groups(scenario)
    assert groups == [["m1", "m1-b"], ["m2", "m2-b"], ["m3", "m3-b"], ["m4", "m4-b"]]
    parts = batches(scenario, workers=2)
    assert sorted(i for p in parts for i in p) == sorted(m.id for m in scenario.matches)
    for group in groups:  # a group is never split between batches
        assert any(set(group) <= set(p) for p in parts)


def test_the_command_line_with_a_local_cluster(tmp_path: Path) -> None:
    import subprocess
    import sys

    single = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(EXAMPLE), "--json"],
        capture_output=True, check=True,
    )  # fmt: skip
    spread = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(EXAMPLE), "--json", "--cluster",
         "local:2"], capture_output=True,
    )  # fmt: skip
    assert spread.returncode == 0, spread.stderr.decode()
    assert spread.stdout == single.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(EXAMPLE), "--json", "--cluster",
         "local:zero"], capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and "local:N" in json.loads(bad.stdout)["errors"][0]["message"]
