"""`pitchpass season` and `pitchpass decide` of a document with season rules (issue 12,
section 2): the report as JSON and tables, the plot, bad rules named, the solver's
refusal to guess."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml
from test_cli import SEED, run

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "season-rules.yaml"


def test_the_report_as_json_and_the_plot(tmp_path: Path) -> None:
    plot = tmp_path / "share.svg"
    result = run("season", EXAMPLE, "--json", "--plot", plot)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert list(report) == ["organisations", "quotas", "minimums", "rotations"]
    assert report["rotations"][0]["spread"] == 0
    drawing = ET.fromstring(plot.read_text())
    lines = drawing.findall("{http://www.w3.org/2000/svg}polyline")
    assert len(lines) == 3  # Sky, BT and the documentary: each has grants
    assert all(len(line.get("points", "").split()) == 4 for line in lines)  # 4 match days


def test_the_report_as_tables() -> None:
    result = run("season", EXAMPLE)
    assert result.exit_code == 0, result.output
    for words in ("Organisations: granted of asked", "2/2 requests", "short by 1", "m1→m3",
                  "tunnel, post-match (partner)"):  # fmt: skip
        assert words in result.stdout


def test_a_file_without_season_rules_reports_its_organisations() -> None:
    result = run("season", SEED, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["organisations"] and report["minimums"] == report["rotations"] == []


def test_decide_json_gives_the_season_reasons() -> None:
    result = run("decide", EXAMPLE, "--json")
    assert result.exit_code == 0, result.output
    decisions = {
        d["request"]: d for m in json.loads(result.stdout)["matches"] for d in m["decisions"]
    }
    assert decisions["p3"]["reasons"] == [
        {"code": "quota", "used": 2, "at_most": 2, "needed": 1,
         "text": "season quota of Documentary Films reached: 2 of 2 requests"}
    ]  # fmt: skip
    assert [r["code"] for r in decisions["d3b"]["reasons"]] == ["minimum"]
    assert decisions["d3b"]["status"] == "granted"


def test_one_match_of_a_season_is_decided_with_the_others(tmp_path: Path) -> None:
    """--match shows one match, decided jointly: its quota refusal stands."""
    result = run("decide", EXAMPLE, "--json", "--match", "m4")
    (match,) = json.loads(result.stdout)["matches"]
    assert [d["status"] for d in match["decisions"] if d["request"] == "p4"] == ["refused"]


def test_bad_rules_are_listed_with_their_paths(tmp_path: Path) -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    doc["policy"]["season"]["quotas"][0]["per"] = "week"
    doc["policy"]["season"]["rotations"][0]["tier"] = "partnr"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    result = run("season", bad, "--json")
    assert result.exit_code == 2
    paths = [e["path"] for e in json.loads(result.stdout)["errors"]]
    assert paths == ["policy.season.quotas[0].per", "policy.season.rotations[0].tier"]
    assert "Traceback" not in result.output


def test_a_plot_that_cannot_be_written_is_an_error(tmp_path: Path) -> None:
    result = run("season", EXAMPLE, "--plot", tmp_path / "no-such-folder" / "share.svg")
    assert result.exit_code == 2
    assert "cannot write" in result.stderr and "Traceback" not in result.output


def test_a_plot_must_be_named_svg_and_a_file_without_rules_says_so_plainly(
    tmp_path: Path,
) -> None:
    png = tmp_path / "share.png"
    refused = run("season", EXAMPLE, "--plot", png)
    assert refused.exit_code == 2 and "name it .svg" in refused.stderr and not png.exists()
    plain = run("season", SEED)
    assert plain.exit_code == 0
    assert plain.stdout.startswith("no season rules (policy.season)")  # no markup shown


def test_what_if_of_one_match_counts_the_changes_the_season_makes_elsewhere() -> None:
    """Granting the documentary at m4 (its season quota is 2) refuses one of its grants
    at another match: a change `--match m4` would hide, so the table counts it; the JSON
    keeps the contract's shape, for m4 alone."""
    whole = json.loads(run("what-if", EXAMPLE, "--grant", "p4", "--json").stdout)
    elsewhere = [c for c in whole["changes"] if c["request"] not in ("p4",)]
    assert elsewhere and all(c["request"].startswith("p") for c in elsewhere)
    one = run("what-if", EXAMPLE, "--grant", "p4", "--match", "m4")
    assert one.exit_code == 0, one.output
    n = len(elsewhere)
    assert f"and {n} more change{'s' if n > 1 else ''} at other matches" in one.stdout
    shown = json.loads(run("what-if", EXAMPLE, "--grant", "p4", "--match", "m4", "--json").stdout)
    assert [c["request"] for c in shown["changes"]] == ["p4"]  # the contract's shape, m4 only


def test_hindsight_compares_the_season_match_by_match_with_the_whole(tmp_path: Path) -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    next(r for r in doc["requests"] if r["id"] == "p3")["submitted"] = "2026-07-01T08:00:00Z"
    path = tmp_path / "season.yaml"
    path.write_text(yaml.safe_dump(doc))
    result = run("season", path, "--hindsight", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) >= {"granted", "organisations", "minimums", "rotations", "avoidable"}
    assert "p3" in [x["request"] for x in report["avoidable"] if x["match"] == "m3"]
    table = run("season", path, "--hindsight")
    assert table.exit_code == 0, table.output
    for words in ("match by match", "Refused match by match, granted with hindsight", "p3",
                  "Documentary Films"):  # fmt: skip
        assert words in table.stdout
    both = run("season", path, "--hindsight", "--plot", tmp_path / "x.svg")
    assert both.exit_code != 0 and "--plot" in both.output


def test_a_season_out_of_solver_time_is_reported_and_marked(monkeypatch) -> None:
    """The report and hindsight stand on the best choices found, and say they are not
    proven the best (docs/scenario-extensions.md, "When the solver runs out of time")."""
    from pitchpass.core.deciding import solver

    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 0.0)
    for extra in ((), ("--hindsight",)):
        result = run("season", EXAMPLE, "--json", *extra)
        assert result.exit_code == 0, result.stderr
        said = json.loads(result.stdout)["unproven"]
        assert said and all(s.startswith("not proven the best choice for ") for s in said)
        table = run("season", EXAMPLE, *extra)
        assert table.exit_code == 0 and said[0][:40] in table.stdout
    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 60.0)
    assert "unproven" not in json.loads(run("season", EXAMPLE, "--json").stdout)
