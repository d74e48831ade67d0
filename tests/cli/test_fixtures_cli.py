"""`pitchpass fixtures`: a fixture list in, the report, nothing written on a bad row unless
asked to skip it, and the written scenario deciding (issue 12, section 1)."""

from __future__ import annotations

import json
from pathlib import Path

from test_cli import SEED, run

from pitchpass.cli.files import read_scenario

GOOD = "date,time,home,away\n2017-12-10,17:30,man-united,man-city\n"
BAD = GOOD + "2018-01-20,15:00,Manchester City,Manchester Utd\n"


def test_a_move_is_reported_and_written(tmp_path: Path) -> None:
    rows = tmp_path / "fixtures.csv"
    rows.write_text(GOOD)
    new = tmp_path / "season.yaml"
    result = run("fixtures", rows, "--into", SEED, "--timezone", "Europe/London", "-o", new)
    assert result.exit_code == 0, result.output
    assert "moved  mun-mci-2017-12-10: kick-off 2017-12-10T16:30:00+00:00 -> 2017-12-10T17:30" in (
        result.stdout
    )
    scenario, _ = read_scenario(new)
    assert scenario.matches[0].kickoff.hour == 17
    again = run("fixtures", rows, "--into", new, "--timezone", "Europe/London", "--json")
    assert json.loads(again.stdout)["unchanged"] == ["mun-mci-2017-12-10"]


def test_a_bad_row_writes_nothing_unless_skipped(tmp_path: Path) -> None:
    rows = tmp_path / "fixtures.csv"
    rows.write_text(BAD)
    new = tmp_path / "season.json"
    result = run("fixtures", rows, "--into", SEED, "--timezone", "UTC", "-o", new)
    assert result.exit_code == 2 and not new.exists()
    assert 'unknown club "Manchester Utd" (did you mean "Manchester United"?)' in result.stderr
    skipped = run(
        "fixtures", rows, "--into", SEED, "--timezone", "UTC", "-o", new, "--skip-unmatched",
        "--json",
    )  # fmt: skip
    assert skipped.exit_code == 0, skipped.output
    answer = json.loads(skipped.stdout)
    assert [p["path"] for p in answer["skipped"]] == ["row 3.away", "row 3.venue"]  # no ground
    assert [m["match"] for m in answer["moved"]] == ["mun-mci-2017-12-10"]
    assert read_scenario(new)[0].matches[0].kickoff.hour == 17


def test_a_missing_or_unreadable_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    result = run("fixtures", tmp_path / "none.csv", "--into", SEED)
    assert result.exit_code == 2 and "no such file" in result.stderr
    garbage = tmp_path / "fixtures.ics"
    garbage.write_text("BEGIN:VCALENDAR\nthis is not\n")
    result = run("fixtures", garbage, "--into", SEED, "--json")
    assert result.exit_code == 2 and json.loads(result.stdout)["errors"]


def test_zones_from_a_csv(tmp_path: Path) -> None:
    rows = tmp_path / "zones.csv"
    rows.write_text("id,name,capacity\ntunnel,Players' tunnel,40\nbench,Bench,4\n")
    new = tmp_path / "season.yaml"
    result = run("zones", rows, "--into", SEED, "--venue", "Old Trafford", "-o", new)
    assert result.exit_code == 0, result.output
    assert "1 zones added, 1 replaced" in result.stdout
    venue = read_scenario(new)[0].venues[0]
    assert venue.zone("tunnel").capacity["post-match"] == 40 and venue.zone("bench")
    rows.write_text("id,capacity\ntunnel,many\n")
    bad = run("zones", rows, "--into", SEED, "--venue", "old-trafford", "--json")
    assert bad.exit_code == 2
    assert json.loads(bad.stdout)["errors"][0]["path"] == "row 2.capacity"


def test_the_scenario_or_the_database_one_of_them(tmp_path: Path) -> None:
    rows = tmp_path / "fixtures.csv"
    rows.write_text(GOOD)
    neither = run("fixtures", rows)
    both = run("fixtures", rows, "--into", SEED, "--competition", "premier-league-2017-18")
    for result in (neither, both):
        assert result.exit_code == 2 and "--into SCENARIO or --competition ID" in result.stderr
