"""The CLI: both output forms of every command, and bad input (exit code 2, never a traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pitchpass.cli import app

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "manchester-derby-2017.yaml"
SNAPSHOT = Path(__file__).parent / "snapshots" / "manchester-derby-2017.json"
runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def test_decide_json_matches_the_snapshot() -> None:
    """The contract's JSON for the seed story; UPDATE_SNAPSHOTS=1 rewrites it after a
    deliberate change (review the diff: other tools depend on this shape)."""
    result = run("decide", SEED, "--json")
    assert result.exit_code == 0, result.stderr
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(result.stdout)
    assert json.loads(result.stdout) == json.loads(SNAPSHOT.read_text())
    assert result.stdout == SNAPSHOT.read_text()  # key order too


def test_decide_tables_show_requests_grid_and_incidents() -> None:
    result = run("decide", SEED)
    assert result.exit_code == 0
    assert "46/46" in result.stdout
    assert "tunnel, post-match: 46 of 46 places" in result.stdout  # the reason, wrapped
    assert "not caught on camera" in result.stdout
    assert "caught by r27" in result.stdout


def test_a_solver_out_of_time_decides_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never "nothing decided": exit 0 with the best choice found, marked in the table
    and, in the JSON, by the match's "unproven" (docs/scenario-extensions.md)."""
    from pitchpass.core.deciding import solver

    monkeypatch.setattr(solver, "TIME_LIMIT_SECONDS", 0.0)
    table = run("decide", SEED)
    assert table.exit_code == 0
    assert "not proven the best choice for match mun-mci-2017-12-10" in table.stdout
    result = run("decide", SEED, "--json")
    assert result.exit_code == 0, result.stderr
    (match,) = json.loads(result.stdout)["matches"]
    (said,) = match["unproven"]
    assert said["objective"] == "granted[tier 0]" and said["most"] is None
    assert "the best choice found is kept" in said["message"]


def test_decide_one_match(tmp_path: Path) -> None:
    result = run(
        "decide", ROOT / "scenarios" / "european-night.yaml", "--json", "--match", "atl-bre"
    )
    assert result.exit_code == 0
    assert [m["match"] for m in json.loads(result.stdout)["matches"]] == ["atl-bre"]


def test_unknown_match_is_bad_input_with_a_hint() -> None:
    result = run("decide", SEED, "--json", "--match", "mun-mci-2017-12-01")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["errors"][0]
    assert error["path"] == "--match" and "mun-mci-2017-12-10" in error["message"]


def test_what_if_json_grant_bumps_a_partner_and_catches_the_incident() -> None:
    result = run("what-if", SEED, "--grant", "r24", "--json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert out["changes"] == [
        {"request": "r23", "before": "granted", "after": "refused"},
        {"request": "r24", "before": "refused", "after": "granted"},
    ]
    assert [i["incident"] for i in out["incidents"]] == ["dressing-room-altercation"]
    assert list(out) == ["changes", "incidents", "result"]


def test_what_if_tables_for_more_places() -> None:
    result = run("what-if", SEED, "--capacity", "tunnel@post-match=48")
    assert result.exit_code == 0
    assert "r24" in result.stdout and "granted" in result.stdout
    assert "caught by nobody -> caught by r24" in result.stdout


def test_what_if_grant_without_consent_is_granted_only_if(tmp_path: Path) -> None:
    """--grant locks the request as docs/contract.md says (the JSON is the contract's), and the
    table says what no grant by hand would set aside (docs/scenario-extensions.md)."""
    text = SEED.read_text()
    without = tmp_path / "no-consent.yaml"
    without.write_text(text.replace("consent: [man-city]", "consent: []"))
    assert "consent: [man-city]" in text
    table = run("what-if", without, "--grant", "r24")
    assert table.exit_code == 0
    line = next(x for x in table.stdout.splitlines() if "only if" in x)
    assert line.startswith(
        "r24 is granted here only if: Away dressing room (away-dressing-room) belongs to"
        " Manchester City, the away club"
    )
    out = json.loads(run("what-if", without, "--grant", "r24", "--json").stdout)
    assert list(out) == ["changes", "incidents", "result"]
    assert {"request": "r24", "before": "refused", "after": "granted"} in out["changes"]
    assert "only if" not in run("what-if", SEED, "--grant", "r24").stdout


def test_what_if_with_nothing_changed_says_so() -> None:
    result = run("what-if", SEED, "--capacity", "tunnel@post-match=47")
    assert result.exit_code == 0
    assert "No decision and no incident's coverage would change" in result.stdout


@pytest.mark.parametrize(
    ("args", "path"),
    [
        (["--capacity", "tunnel+2"], "--capacity"),
        (["--capacity", "tunel=3"], "--capacity"),
        (["--grant", "r99"], "--grant"),
    ],
)
def test_what_if_bad_changes(args: list[str], path: str) -> None:
    result = run("what-if", SEED, *args, "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["errors"][0]["path"] == path


def test_validate_a_good_file() -> None:
    result = run("validate", SEED)
    assert result.exit_code == 0
    assert "valid (1 matches, 37 requests, 2 incidents)" in result.stdout


def test_validate_lists_every_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    text = (
        SEED.read_text().replace("crew: 2", "crew: 0", 2).replace("zone: tunnel", "zone: tunel", 1)
    )
    bad.write_text(text)
    result = run("validate", bad, "--json")
    assert result.exit_code == 2
    paths = [e["path"] for e in json.loads(result.stdout)["errors"]]
    assert len(paths) == 3 and any(p.endswith(".zone") for p in paths)
    human = run("validate", bad)
    assert human.exit_code == 2 and "3 problems, nothing decided" in human.stderr
    assert 'did you mean "tunnel"' in human.stderr


def test_schema_is_json_schema() -> None:
    result = run("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["$schema"].startswith("https://json-schema.org/")


def test_demo_tells_the_story() -> None:
    result = run("demo", SEED)
    assert result.exit_code == 0
    out = result.stdout
    assert "Refused r24" in out
    assert "tunnel, post-match: 46 of 46 places taken" in out
    assert "not caught on camera" in out
    assert (
        "--capacity tunnel@post-match=48" in out and "r24 granted, and the incident caught" in out
    )
    assert "--grant r24" in out and "bumped: r23" in out


BAD_FILES = {
    "missing": (None, "no such file"),
    "directory": ("DIR", "is a directory"),
    "not utf-8": (b"pitchpass: 1\nname: caf\xe9\n", "not UTF-8"),
    "yaml syntax": (b"pitchpass: 1\nvenues: [a, b\n", "not valid YAML at line 3, column 1"),
    "yaml tab": (b"pitchpass: 1\n\tvenues: []\n", "not valid YAML at line 2"),
    "json syntax": (b'{"pitchpass": 1,}', "not valid JSON at line 1, column 17"),
    "a list": (b"- 1\n- 2\n", "must be a mapping of fields, not a list"),
    "a string": (b"hello\n", "must be a mapping of fields, not a string"),
    "empty": (b"", "the document is empty"),
    "a list as a field name": (b"? [a, b]\n: 1\n", "field names must be text"),
    # Past Python's limit for turning digits into an int (4,300): it was a traceback.
    "yaml huge number": (
        b"pitchpass: 1\ncrew: 1" + b"0" * 5000 + b"\n",
        "a number of 5001 digits is too long to be a count or a minute",
    ),
    # Nine levels of ten aliases: a billion nodes in a few hundred bytes.
    "yaml alias bomb": (
        b"pitchpass: 1\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
        + b"".join(
            f"l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 10)}]\n".encode() for n in range(1, 10)
        ),
        "(an alias bomb?): write the values out",
    ),
    "json huge number": (
        b'{"pitchpass": 1' + b"0" * 5000 + b"}",
        "a number of 5001 digits is too long to be a count or a minute",
    ),
}


@pytest.mark.parametrize("case", BAD_FILES)
@pytest.mark.parametrize("command", ["decide", "validate", "what-if"])
def test_malformed_files_get_one_plain_line(tmp_path: Path, case: str, command: str) -> None:
    content, message = BAD_FILES[case]
    path = tmp_path / ("scenario.json" if "json" in case else "scenario.yaml")
    if content == "DIR":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    result = run(command, path)
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    as_json = run(command, path, "--json")
    assert as_json.exit_code == 2
    assert message in json.loads(as_json.stdout)["errors"][0]["message"]


def test_the_installed_command_never_shows_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("pitchpass: 2\n")
    out = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(bad)], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "unknown version 2" in out.stderr
    good = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(SEED), "--json"],
        capture_output=True,
        text=True,
    )
    assert good.returncode == 0 and json.loads(good.stdout)["matches"][0]["match"]
    # It ends at once after writing (no teardown): every byte still arrives, as snapshotted.
    assert good.stdout == SNAPSHOT.read_text() and good.stderr == ""


def test_names_that_look_like_markup_are_printed_as_written(tmp_path: Path) -> None:
    text = SEED.read_text().replace('"Play Sports (Belgium)"', '"Play [/x] Sports [bold]"', 1)
    assert text != SEED.read_text()
    path = tmp_path / "markup.yaml"
    path.write_text(text)
    for command in (["decide", path], ["demo", path], ["what-if", path, "--grant", "r24"]):
        result = run(*command)
        assert result.exit_code == 0, result.stderr
        assert "Play [/x] Sports [bold]" in result.stdout


def test_unknown_fields_are_warned_about_and_the_file_still_decided(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(SEED.read_text().replace("    crew: 2\n", "    crew: 2\n    cosent: []\n", 1))
    result = run("decide", path, "--json")
    assert result.exit_code == 0
    assert "unknown field, ignored" in result.stderr and 'did you mean "consent"' in result.stderr
    assert json.loads(result.stdout) == json.loads(SNAPSHOT.read_text())


def test_a_scenario_file_over_the_size_limit_is_refused_before_it_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """20 MB by default (a season of 16,294 requests is 3.3 MB); PITCHPASS_MAX_FILE_MB
    sets another (here 0.01 MB, less than the seed's 14 kB)."""
    monkeypatch.setenv("PITCHPASS_MAX_FILE_MB", "0.01")
    result = run("validate", SEED)
    assert result.exit_code == 2
    assert "MB, more than the 0.01 MB a scenario file may be" in result.stderr
    monkeypatch.setenv("PITCHPASS_MAX_FILE_MB", "lots")
    wrong = run("validate", SEED)
    assert wrong.exit_code == 2 and "PITCHPASS_MAX_FILE_MB must be a number" in wrong.stderr
    monkeypatch.delenv("PITCHPASS_MAX_FILE_MB")
    assert run("validate", SEED).exit_code == 0


def test_aliases_that_repeat_what_is_written_are_fine(tmp_path: Path) -> None:
    """Defaults shared with a merge key: the document grows a little, and is read."""
    text = SEED.read_text() + "\ndefaults: &d {crew: 2}\nothers: [*d, *d, *d]\n"
    path = tmp_path / "aliases.yaml"
    path.write_text(text)
    result = run("validate", path)
    assert result.exit_code == 0 and "valid" in result.stdout


def test_a_long_run_shows_progress_on_standard_error_only(tmp_path: Path) -> None:
    """PITCHPASS_PROGRESS=1 shows the bar as a terminal would (a long run shows it by
    itself on one); standard output keeps exactly the JSON."""
    sys.path.insert(0, str(ROOT / "tests"))
    from test_parallel import season

    path = tmp_path / "season.json"
    path.write_text(json.dumps(season(80)))
    env = {**os.environ, "PITCHPASS_PROGRESS": "1"}
    shown = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(path), "--json"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert shown.returncode == 0 and "deciding" in shown.stderr
    assert len(json.loads(shown.stdout)["matches"]) == 80
    quiet = subprocess.run(
        [sys.executable, "-m", "pitchpass", "decide", str(path), "--json"],
        capture_output=True, text=True, env={**env, "PITCHPASS_PROGRESS": "0"},
    )  # fmt: skip
    assert quiet.stderr == "" and quiet.stdout == shown.stdout
