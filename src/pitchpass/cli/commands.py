"""The `pitchpass` command: Typer commands over the core. Parse, call, print; nothing else.

Exit codes: 0 done; 2 bad input (every problem listed, never a traceback); 1 the
solver could not prove its answer (nothing decided rather than a guess).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from pitchpass.cli.parallel import decide_all, write_all_json
from pitchpass.core import (
    Changes,
    Problem,
    Scenario,
    ScenarioInvalid,
    SolverFailed,
    check_document,
    parse_capacity,
    what_if,
    what_if_json,
)
from pitchpass.core.explaining.report import unproven_texts
from pitchpass.core.explaining.whatif import WhatIf

if TYPE_CHECKING:
    from rich.console import Console

app = typer.Typer(
    help="Match-day media access: who may film where, when, and why not; "
    "and what the cameras therefore saw.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# Piped output (a file, a pager, CI logs) is read later and wider than a terminal's 80.
_PIPED_WIDTH = None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160


class _Console:
    """A rich Console made when first used: `decide --json` never needs one (rich takes
    a tenth of the command's start)."""

    def __init__(self, stderr: bool = False):
        self._stderr = stderr
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            # No markup: names and texts come from scenario files, where "[x]" is just text.
            self._console = Console(
                stderr=self._stderr, highlight=False, markup=False, width=_PIPED_WIDTH
            )
        return getattr(self._console, name)


out: Console = _Console()  # type: ignore[assignment]  # a Console once used
err: Console = _Console(stderr=True)  # type: ignore[assignment]

FileArg = Annotated[
    Path,
    typer.Argument(help="A scenario file (YAML or JSON).", show_default=False, metavar="FILE"),
]
JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="Print the contract's JSON (docs/contract.md) instead of tables."),
]
MatchOpt = Annotated[
    str | None, typer.Option("--match", help="Only this match (its id).", show_default=False)
]

EXIT_BAD_INPUT = 2
_T = TypeVar("_T")
EXIT_NOT_PROVEN = 1


ClusterOpt = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Decide on a Dask cluster (with --json): local:N for N worker processes here, "
        "or a scheduler's address such as tcp://host:8786.",
        show_default=False,
    ),
]


@app.command()
def decide(
    file: FileArg, as_json: JsonOpt = False, match: MatchOpt = None, cluster: ClusterOpt = None
) -> None:
    """Decide every request of the scenario: granted or refused, with reasons."""
    if cluster is not None and not as_json:
        _fail([Problem("--cluster", "works with --json only")], as_json)
    scenario = _load(file, as_json, keep_document=cluster is not None)
    ids = _match_ids(scenario, match, as_json)
    if as_json:
        with _progress(len(ids) if ids else len(scenario.matches)) as done:
            sys.stdout.flush()
            if cluster is not None:
                sys.stdout.buffer.write(_on_cluster(scenario, cluster, ids, done))
            else:
                _write_decided(scenario, ids, done)
        _leave_at_once()
        return
    from pitchpass.cli.terminal import print_decisions

    print_decisions(out, scenario, _run(lambda: decide_all(scenario, ids), as_json))


SPOOL_IN_MEMORY = 64 << 20  # bytes of output kept in memory; beyond, in a temporary file


def _write_decided(
    scenario: Scenario, ids: list[str] | None, done: Callable[[int], None] | None
) -> None:
    """`decide --json`'s output, written as it is decided into a spool (in memory, on disk
    past SPOOL_IN_MEMORY: a federation's output is hundreds of megabytes, never held
    whole), then to standard output: a failure meanwhile (the solver's, exit 1) prints only
    its error, never half an answer."""
    import shutil
    import tempfile

    with tempfile.SpooledTemporaryFile(SPOOL_IN_MEMORY) as spool:
        _run(lambda: write_all_json(scenario, spool.write, ids, done=done), True)
        spool.seek(0)
        shutil.copyfileobj(spool, sys.stdout.buffer, 1 << 20)


def _on_cluster(
    scenario: Scenario, address: str, ids: list[str] | None, done: Callable[[int], None] | None
) -> bytes:
    from pitchpass.cli.cluster import ClusterUnavailable, decide_on_cluster

    try:
        document = _KEPT[0] if _KEPT and isinstance(_KEPT[0], dict) else None
        return _run(  # type: ignore[no-any-return]
            lambda: decide_on_cluster(scenario, address, ids, done, document), True
        )
    except ClusterUnavailable as unavailable:
        _fail([Problem("--cluster", str(unavailable))], True, nothing="nothing decided")


@app.command("what-if")
def what_if_command(
    file: FileArg,
    grant: Annotated[
        list[str] | None, typer.Option("--grant", help="Grant this request outright (locked).")
    ] = None,
    refuse: Annotated[
        list[str] | None, typer.Option("--refuse", help="Take this request out.")
    ] = None,
    capacity: Annotated[
        list[str] | None,
        typer.Option("--capacity", help="Set a capacity: ZONE=N or ZONE@PHASE=N."),
    ] = None,
    as_json: JsonOpt = False,
    match: MatchOpt = None,
) -> None:
    """Decide as it is and with changes; show whose decision and which coverage would change."""
    scenario = _load(file, as_json)
    try:
        changes = Changes(
            tuple(grant or ()),
            tuple(refuse or ()),
            tuple(parse_capacity(text) for text in capacity or ()),
        )
        ids = _match_ids(scenario, match, as_json)
        elsewhere = 0
        if ids is not None and scenario.policy.season is not None:
            # Season rules link the matches: a change here can move decisions elsewhere.
            # Decided whole (as it is anyway), shown for the match, the rest counted.
            whole = _run(lambda: what_if(scenario, changes), as_json)
            result, elsewhere = _only(scenario, whole, set(ids))
        else:
            result = _run(lambda: what_if(scenario, changes, ids), as_json)
    except ScenarioInvalid as invalid:
        _fail(invalid.problems, as_json)
    if as_json:
        _print_json(what_if_json(result))
    else:
        from pitchpass.cli.terminal import print_what_if
        from pitchpass.core.deciding.overrides import only_if

        print_what_if(out, scenario, result, only_if(scenario, changes.grant))
        if elsewhere:
            out.print(
                f"and {elsewhere} more {'change' if elsewhere == 1 else 'changes'} at other "
                "matches, which the season rules link to this one (leave out --match to see "
                "them)"
            )


def _only(scenario: Scenario, whole: WhatIf, ids: set[str]) -> tuple[WhatIf, int]:
    """The what-if of the whole document shown for some matches (what `what_if` with them
    gives), and how many request changes it has elsewhere."""
    match_of = {r.id: r.match for r in scenario.requests}
    incident_of = {i.id: i.match for i in scenario.incidents}
    mine = tuple(c for c in whole.changes if match_of.get(c[0]) in ids)
    return (
        WhatIf(
            tuple(r for r in whole.before if r.match.id in ids),
            tuple(r for r in whole.after if r.match.id in ids),
            mine,
            tuple(i for i in whole.incidents if incident_of.get(i[0]) in ids),
        ),
        len(whole.changes) - len(mine),
    )


@app.command()
def season(
    file: FileArg,
    as_json: JsonOpt = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", help="Also draw each organisation's share over the season (SVG).",
            dir_okay=False, show_default=False,
        ),
    ] = None,
    hindsight: Annotated[
        bool,
        typer.Option(
            "--hindsight",
            help="Compare the season published match by match (each match decided in"
            " kick-off order with the grants before it held) with the season decided"
            " jointly with hindsight: grants, minimums, rotations, and the refusals"
            " hindsight avoids.",
        ),
    ] = False,
) -> None:  # fmt: skip
    """Decide the whole season with its season rules and report, per organisation, club and
    rotation: granted of asked, quotas used, minimums met or owed, turns, strikes."""
    from pitchpass.core.season.season_report import season_report

    if plot is not None and plot.suffix.lower() != ".svg":
        _fail([Problem("--plot", f"the plot is an SVG: name it .svg, not {plot.name}")], as_json)
    if plot is not None and hindsight:
        _fail([Problem("--plot", "draws the season's report, not --hindsight: one or the other")],
              as_json)  # fmt: skip
    scenario = _load(file, as_json)
    if hindsight:
        _hindsight(scenario, as_json)
        return
    results = _run(lambda: decide_all(scenario), as_json)
    report = season_report(scenario, results)
    unproven = unproven_texts(results)
    if plot is not None:
        from pitchpass.cli.files import write_text
        from pitchpass.core.season.season_plot import share_svg

        try:
            write_text(share_svg(scenario, results), plot)
        except OSError as error:
            _fail([Problem("--plot", f"cannot write {plot}: {error.strerror}")], as_json,
                  nothing="nothing written")  # fmt: skip
    if as_json:
        _print_json({**report, "unproven": unproven} if unproven else report)
        return
    from pitchpass.cli.season_print import print_season
    from pitchpass.core.season.season_report import rotation_label

    for text in unproven:
        out.print(text, style="bold yellow")

    if scenario.policy.season is None:
        out.print("no season rules (policy.season): each match decided on its own", style="dim")
    print_season(out, report, [rotation_label(r) for r in report["rotations"]])
    if plot is not None:
        out.print(f"the season's shares drawn in {_escape(str(plot))}")


@app.command()
def validate(file: FileArg, as_json: JsonOpt = False) -> None:
    """Check a scenario file and list every problem (exit code 2 if there are any)."""
    scenario, warnings = _load_with_warnings(file, as_json)
    if as_json:
        _print_json({"errors": [], "warnings": [w.as_json() for w in warnings]})
        return
    out.print(
        f"{file}: valid ({len(scenario.matches)} matches, {len(scenario.requests)} requests, "
        f"{len(scenario.incidents)} incidents)"
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of the scenario format (for editors that check files as you type)."""
    from pitchpass.core.reading.schema import scenario_schema

    _print_json(scenario_schema())


@app.command()
def demo(
    file: Annotated[
        Path | None,
        typer.Argument(
            help="The scenario to tell (default: the 2017 Manchester derby).", show_default=False
        ),
    ] = None,
    serve: Annotated[
        bool,
        typer.Option(
            "--serve",
            help="Instead: load the scenario into the database (its dates moved by whole "
            "days, its last request sent within the last day), make one user per role, "
            "print their passwords, and serve the pages.",
        ),
    ] = False,
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1, with --serve.")] = 8000,
) -> None:
    """Tell the seed story: who was kept out, why, what no camera caught, and what-if."""
    from pitchpass.cli.demo import default_scenario, tell

    path = file or default_scenario()
    scenario = _load(path, as_json=False)
    if not serve:
        _run(lambda: tell(out, scenario, path), as_json=False)
        return
    _check_port(port)
    # Links in the e-mails the worker writes lead to this server (unless set otherwise).
    os.environ.setdefault("PITCHPASS_BASE_URL", f"http://127.0.0.1:{port}")
    # Someone trying the desk reads the terminal: no record of each request answered.
    os.environ.setdefault("PITCHPASS_LOG_REQUESTS", "0")
    _database()
    from django.utils import timezone

    from pitchpass.web.demo_site import prepare

    site = prepare(path, timezone.now(), match_day=True)
    when = site.kickoff.isoformat(timespec="minutes")
    if site.loaded:
        out.print(f"loaded {path}, its dates moved so that it kicks off at {when}")
    else:
        out.print(f"{path} is loaded already (kick-off {when}): kept, with the changes made")
        out.print("  (to start again, point PITCHPASS_HOME at a new folder)")
    out.print("Sign in as (passwords are new each time the demo starts):")
    for username, password, does in site.users:
        out.print(f"  {username:<13} {password:<14} {does}", highlight=False)
    if site.match_day is not None:
        playing = site.match_day
        began = playing.kickoff.isoformat(timespec="minutes")
        out.print(
            f"match day: {playing.key} is the same match being played (kick-off {began}),"
            " published: the steward checks passes at its doors (each opens 15 minutes"
            " before its phase); the worker releases crews not checked in 5 minutes before"
            " their phase and offers their places down the waitlist (see README, Match day)",
            highlight=False,
        )
    with _worker_beside():
        _serve(port, 1)


@contextlib.contextmanager
def _worker_beside() -> Iterator[None]:
    """A `pitchpass worker` process beside the demo's server (the e-mails, webhooks and
    releases it queues are run there), stopped with it."""
    import subprocess

    from django.conf import settings

    if settings.EMAIL_BACKEND == "django.core.mail.backends.filebased.EmailBackend":
        out.print(f"e-mails are written as files into {settings.EMAIL_FILE_PATH}")
    log = Path(settings.HOME) / "worker.log"
    out.print(f"a worker (pitchpass worker) runs the background tasks; its log: {log}")
    with log.open("a") as written:
        process = subprocess.Popen(
            [sys.executable, "-m", "pitchpass", "worker"], stdout=written, stderr=written
        )
    previous = signal.signal(signal.SIGTERM, _stop_on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def _stop_on_term(signum: int, frame: object) -> None:
    raise SystemExit(0)  # SIGTERM stops the demo as Ctrl+C does: its worker with it


@app.command()
def migrate() -> None:
    """Create or update the database tables (SQLite in PITCHPASS_HOME, or DATABASE_URL)."""
    _database()
    out.print("database ready")


@app.command()
def load(
    file: FileArg,
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Overwrite changes made through the web app and API."),
    ] = False,
) -> None:
    """Import a scenario into the database (loading it again changes nothing).

    The file is the truth for what it names: a match's requests and incidents that the
    file no longer lists are removed. A match changed through the web app or the API
    since it was last loaded is left alone (exit code 2) unless --replace is given."""
    from pitchpass.cli.files import read_document

    try:
        document = read_document(file)
    except ScenarioInvalid as invalid:
        _fail(invalid.problems, as_json=False, warn_of=file)
    store = _database()
    try:
        loaded = store.load(document, replace=replace)
    except ScenarioInvalid as invalid:
        _fail(invalid.problems, as_json=False, warn_of=file)
    except store.LoadRefused as refused:
        message = (
            f"{file}: nothing loaded; changed through the web app since last loaded: "
            f"{refused}. `pitchpass load --replace` overwrites those changes (the audit "
            "trail keeps them)"
        )
        _fail([Problem("", message)], as_json=False)
    for warning in loaded.warnings:
        err.print(f"warning {warning}", soft_wrap=True)
    held = f"{loaded.matches} matches, {loaded.requests} requests, {loaded.incidents} incidents"
    if not loaded.changed:
        out.print(f"{file}: nothing changed: the database holds it as the file has it ({held})")
    else:
        out.print(f"{file}: loaded {held}; changed: {', '.join(loaded.changed)}")


@app.command()
def fixtures(
    file: Annotated[Path, typer.Argument(help="A fixture list: CSV or ICS.", metavar="FIXTURES")],
    into: Annotated[
        Path | None,
        typer.Option("--into", help="The scenario the matches are added to or moved in."),
    ] = None,
    competition: Annotated[
        str,
        typer.Option("--competition", help="Or: the competition in the database (its id)."),
    ] = "",
    write: Annotated[
        bool, typer.Option("--write", help="With --competition: store the changes.")
    ] = False,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the new scenario here (YAML, or .json)."),
    ] = None,
    timezone: Annotated[
        str,
        typer.Option(
            "--timezone", help="For CSV rows with a local date and time, e.g. Europe/London."
        ),
    ] = "",
    skip: Annotated[
        bool, typer.Option("--skip-unmatched", help="Leave out the rows with problems, listed.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Add a competition's fixture list (CSV or ICS) to a scenario or to the database, or
    move its matches.

    Clubs, venues and hosts are matched by id or by name. A row that does not match is an
    error with the nearest name, and nothing is written unless --skip-unmatched. Nothing
    is written without --output (a scenario) or --write (the database): the report says
    what would change."""
    from pitchpass.cli.files import read_document, read_fixture_list, write_document
    from pitchpass.core.reading.fixtures import import_fixtures

    if (into is None) == (not competition):
        message = "give --into SCENARIO or --competition ID (the database), one of them"
        _fail([Problem("--into", message)], as_json)
    stale: dict[str, str] = {}
    try:
        rows, problems = read_fixture_list(file, timezone)
        if problems and not skip:
            raise ScenarioInvalid(problems)
        if into is not None:
            done = import_fixtures(read_document(into), rows, skip)
        else:
            _database()
            from pitchpass.web.persistence.fixtures_store import import_into_database

            done, stale = import_into_database(competition, rows, skip, write)
    except ScenarioInvalid as invalid:
        _fail(invalid.problems, as_json, warn_of=file, nothing="nothing written")
    skipped = [*problems, *done.skipped]
    if output is not None:
        write_document(done.document, output)
    written = output if output is not None else (competition if write and competition else None)
    if as_json:
        _print_json(
            {
                "added": list(done.added),
                "moved": [dataclasses.asdict(m) for m in done.moved],
                "unchanged": list(done.unchanged),
                "retold": [dataclasses.asdict(r) for r in done.retold],
                "skipped": [p.as_json() for p in skipped],
                "stale": stale,
                "written": str(written) if written is not None else None,
            }
        )
        return
    from pitchpass.cli.terminal import print_fixtures

    print_fixtures(out, done, skipped, written, stale)


@app.command()
def zones(
    file: Annotated[Path, typer.Argument(help="A CSV of zones.", metavar="ZONES")],
    into: Annotated[Path, typer.Option("--into", help="The scenario the zones go into.")],
    venue: Annotated[
        str, typer.Option("--venue", help="The venue (id or name) of rows without one.")
    ] = "",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the new scenario here (YAML, or .json)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Add a venue's zones from a CSV to a scenario, or replace those of the same id.

    Zones the file does not name are kept. Any problem and nothing is written; without
    --output nothing is written: the report says what would change (docs/fixtures.md)."""
    from pitchpass.cli.files import read_document, read_text, write_document
    from pitchpass.core.reading.zones_in import import_zones

    try:
        text = read_text(file, "zones file")
        done = import_zones(read_document(into), text, venue)
    except ScenarioInvalid as invalid:
        _fail(invalid.problems, as_json, warn_of=file, nothing="nothing written")
    if output is not None:
        write_document(done.document, output)
    report = {
        "added": list(done.added),
        "replaced": list(done.replaced),
        "kept": list(done.kept),
        "new_venues": list(done.new_venues),
        "written": str(output) if output is not None else None,
    }
    if as_json:
        _print_json(report)
        return
    out.print(
        f"{len(done.added)} zones added, {len(done.replaced)} replaced, {len(done.kept)} kept"
        + (f"; new venues: {', '.join(done.new_venues)}" if done.new_venues else "")
    )
    for label, keys in (("added", done.added), ("replaced", done.replaced)):
        for key in keys:
            out.print(f"  {label}  {key}")
    out.print(f"wrote {output}" if output else "nothing written (--output FILE writes it)")


@app.command()
def export(
    match: Annotated[str, typer.Option("--match", help="The match to export (its id).")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of to stdout.")
    ] = None,
) -> None:
    """Write one stored match back as a scenario (YAML), ready for `pitchpass decide`."""
    import yaml

    store = _database()
    known = store.match_keys()
    if match not in known:
        from pitchpass.core.reading.problems import did_you_mean

        _fail([Problem("--match", f'unknown match "{match}"{did_you_mean(match, known)}')], False)
    text = yaml.safe_dump(store.export(match), sort_keys=False, allow_unicode=True)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text)
        err.print(f"wrote {output}")


@app.command()
def serve(
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1.")] = 8000,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            max=64,
            help="Gunicorn's worker processes. 1: one process with 8 threads (no setup). "
            "More: each with 4 threads, database connections kept 60 s, and the API's "
            "rates counted in the database (or PITCHPASS_CACHE_URL) for all of them.",
        ),
    ] = 1,
) -> None:
    """Serve the pages and the API on 127.0.0.1; prepares the database first."""
    _check_port(port)
    counts = None
    if workers > 1:
        # Before Django reads its settings: what every worker must share, or may keep;
        # and each worker's counts for /metrics in files of one folder, which /metrics
        # sums (prometheus_client's multiprocess mode, read as it is imported).
        os.environ.setdefault("PITCHPASS_CACHE_URL", "database")
        os.environ.setdefault("PITCHPASS_CONN_MAX_AGE", "60")
        if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
            counts = tempfile.mkdtemp(prefix="pitchpass-metrics-")
            os.environ["PROMETHEUS_MULTIPROC_DIR"] = counts
    try:
        _database()
        _serve(port, workers)
    finally:
        if counts is not None:
            shutil.rmtree(counts, ignore_errors=True)


@app.command()
def worker(
    interval: Annotated[
        float,
        typer.Option("--interval", min=0.05, max=60, help="Seconds between looks when idle."),
    ] = 1.0,
    batch: Annotated[
        bool, typer.Option("--batch", help="Run the tasks due now, then stop.")
    ] = False,
) -> None:
    """Run the background tasks (notifications, passes, releases) until stopped: as many
    workers as wanted, on any machine that reaches the database. Ctrl+C or SIGTERM lets the
    task running finish first."""
    _database()
    import logging

    from pitchpass.web.task_worker import run

    logging.getLogger("pitchpass.tasks").setLevel(logging.INFO)
    logging.getLogger("django_tasks").setLevel(logging.INFO)
    logging.getLogger("django_tasks_db").setLevel(logging.INFO)
    if not batch:
        out.print("pitchpass worker running the queued tasks (Ctrl+C stops)")
        sys.stdout.flush()
    run(interval, batch)


@app.command("match-day")
def match_day(
    match: Annotated[str, typer.Argument(help="The match's id.", show_default=False)],
    at: Annotated[
        float | None,
        typer.Option(
            "--at",
            min=-10_000,
            max=10_000,
            help="Act as at this minute after kick-off (it changes the match); default: now.",
        ),
    ] = None,
) -> None:
    """Do what is due on the match day now (the worker does it by itself at each moment):
    offers not answered in time lapse, crews not checked in by their release time lose
    their places, and places freed go to the waitlist. With --at, as at that minute."""
    _database()
    from django.utils import timezone

    from pitchpass.web.persistence import models as m
    from pitchpass.web.services import waitlist

    row = m.Match.objects.filter(key=match).first()
    if row is None:
        err.print(f'error no match "{match}"')
        raise typer.Exit(EXIT_BAD_INPUT)
    from pitchpass.web.errors import ServiceError

    now = timezone.now() if at is None else waitlist.moment_of(row, at)
    try:
        done = waitlist.do_match_day(match, now)
    except ServiceError as refused:  # the match as stored does not decide: say why
        err.print(f"error {refused.message}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    out.print(f"{match} at minute {waitlist.minute_of(row, now):+.0f}:")
    out.print(f"  warned of a release to come: {', '.join(done.warned) or 'none'}")
    out.print(f"  released (not checked in): {', '.join(done.released) or 'none'}")
    out.print(f"  offers lapsed: {', '.join(done.lapsed) or 'none'}")
    out.print(f"  offered a place from the waitlist: {', '.join(done.promoted) or 'none'}")


def _check_port(port: int) -> None:
    import socket

    with socket.socket() as probe:
        # As the server binds (gunicorn reuses the address): a port left in
        # TIME_WAIT by a crash is free to serve on; one another process listens on is not.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            err.print(f"error port {port} cannot be used: {error.strerror}; try --port")
            raise typer.Exit(EXIT_NOT_PROVEN) from None


def _serve(port: int, workers: int) -> None:
    """Gunicorn: `workers` processes forked from this one. Nothing a request needs stays
    in a process (the match lock, the rates and the sessions are in the database when
    there are several), so the workers, and servers on other ports, act as one."""
    from django.db import connections

    from pitchpass.web.server import run

    connections.close_all()  # a connection must never be shared by forked workers
    several = f"{workers} workers; " if workers > 1 else ""
    out.print(
        f"pitchpass at http://127.0.0.1:{port}/  ({several}API docs: /api/docs; Ctrl+C stops)"
    )
    sys.stdout.flush()
    run(port, workers)
    out.print("stopped")


@app.command()
def backup(
    file: Annotated[Path, typer.Argument(help="Where to write it (JSON).", show_default=False)],
) -> None:
    """Write everything the app keeps to FILE, in one snapshot (safe while serving)."""
    _database()
    from pitchpass.web.persistence.backup import backup as write

    out.print(f"backed up {write(file)} rows to {file}")


@app.command()
def restore(
    file: Annotated[Path, typer.Argument(help="A backup (JSON).", show_default=False)],
    unsealed: Annotated[
        bool,
        typer.Option(
            "--unsealed",
            help="Take a backup with no seal, or one this site's secret key does not"
            " match (made elsewhere, or edited), saying so.",
        ),
    ] = False,
) -> None:
    """Put a backup back into an empty database (SQLite or PostgreSQL), all or nothing,
    once its seal holds with this site's secret key (the key it was made with)."""
    _database()
    from pitchpass.web.persistence.backup import NotEmpty
    from pitchpass.web.persistence.backup import restore as read

    try:
        rows, warning = read(file, unsealed)
    except (OSError, ValueError, NotEmpty) as error:
        err.print(f"error {error}", soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if warning:
        err.print(f"warning {warning}", soft_wrap=True)
    out.print(f"restored {rows} rows from {file}")


audit_app = typer.Typer(help="The audit of every change.", no_args_is_help=True)
app.add_typer(audit_app, name="audit")


@audit_app.command("verify")
def audit_verify() -> None:
    """Check the audit's chain: each entry sealed with the digest of the one before. Exit
    1 naming the first entry edited, removed or reordered (or the newest ones removed)."""
    _database()
    from pitchpass.web.persistence.audit import verify

    found = verify()
    if found.broken is not None:
        entry = found.broken
        err.print(
            f"error audit entry {entry.pk} ({entry.action} {entry.target}, "
            f"{entry.when.isoformat(timespec='seconds')}) does not follow the {found.entries}"
            " before it: it, or one before it, was edited, removed or reordered",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_NOT_PROVEN)
    if found.added is not None:
        entry = found.added
        err.print(
            f"error audit entry {entry.pk} ({entry.action} {entry.target}, "
            f"{entry.when.isoformat(timespec='seconds')}) comes after the last entry its"
            f" chain's head counts ({entry.chain}): it was added by hand, not written by"
            " pitchpass",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_NOT_PROVEN)
    if found.cut:
        err.print(
            f"error the audit ends after {found.entries} entries, but a chain's head names"
            " others: the newest entries were removed",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_NOT_PROVEN)
    out.print(
        f"audit intact: {found.entries} entries, each sealed with the one before it in its"
        f" chain ({found.chains} chains: the site's and one per match)"
    )


user_app = typer.Typer(help="Users of the web application and the API.", no_args_is_help=True)
token_app = typer.Typer(help="API tokens.", no_args_is_help=True)
app.add_typer(user_app, name="user")
app.add_typer(token_app, name="token")


@user_app.command("add")
def user_add(
    username: Annotated[str, typer.Argument(help="The name to sign in with.", show_default=False)],
    role: Annotated[str, typer.Option("--role", help="admin, officer, media or steward.")],
    org: Annotated[
        str | None,
        typer.Option("--org", help="Officer: the club; media: the organisation it submits for."),
    ] = None,
    password: Annotated[
        str | None, typer.Option("--password", help="Default: a new random one, printed.")
    ] = None,
    email: Annotated[
        str, typer.Option("--email", help="Where its notices are e-mailed (none: not e-mailed).")
    ] = "",
    venue: Annotated[
        list[str] | None,
        typer.Option("--venue", help="Steward: a venue whose doors it works (repeatable)."),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="The person's name, as e-mails greet them.")
    ] = "",
) -> None:
    """Add a user with a role (an officer's org is a club, a media user's its employer, a
    steward's venues those whose doors it works)."""
    import secrets

    _database()
    from pitchpass.web.services.accounts import do_add_user

    chosen = secrets.token_urlsafe(12) if password is None else password  # '' is refused
    venues = list(venue or [])
    _web_call(lambda: do_add_user(username, role, org, chosen, email, venues, name))
    at = f", at {', '.join(venues)}" if venues else ""
    out.print(f"added {username} ({role}{', ' + org if org else ''}{at})")
    if password is None:
        out.print(f"password: {chosen}")


@token_app.command("create")
def token_create(
    username: Annotated[str, typer.Argument(help="Whose token.", show_default=False)],
    days: Annotated[int, typer.Option("--days", help="How long it is valid.")] = 90,
) -> None:
    """Print a new API token (send it as `Authorization: Bearer <token>`), valid for
    --days (90 unless said); it is shown this once."""
    _database()
    from pitchpass.web.services.accounts import do_create_token

    sys.stdout.write(_web_call(lambda: do_create_token(username, days)) + "\n")


@token_app.command("list")
def token_list(
    username: Annotated[str, typer.Argument(help="Whose tokens.", show_default=False)],
) -> None:
    """List a user's tokens: id, when made, when it expires, when last used (the tokens
    themselves are not kept)."""
    _database()
    from pitchpass.web.services.accounts import tokens_of

    def when(moment: Any, none: str) -> str:
        return moment.isoformat(timespec="minutes") if moment is not None else none

    for token in _web_call(lambda: tokens_of(username)):
        out.print(
            f"{token.pk}  made {when(token.created, '')}  expires {when(token.expires, 'never')}"
            f"  last used {when(token.last_used, 'never')}"
        )


webhook_app = typer.Typer(
    help="Organisations' webhooks: notices POSTed as signed JSON.", no_args_is_help=True
)
app.add_typer(webhook_app, name="webhook")


@webhook_app.command("add")
def webhook_add(
    org: Annotated[str, typer.Argument(help="The organisation (its id).", show_default=False)],
    url: Annotated[str, typer.Argument(help="Where to POST (https://...).", show_default=False)],
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", help="A kind of notice to send (again for more); none: all."),
    ] = None,
) -> None:
    """Send an organisation's notices to URL; prints the secret the receiver checks each
    message's signature with (Standard Webhooks), shown this once."""
    _database()
    from pitchpass.web.services import sending

    endpoint = _web_call(lambda: sending.add_endpoint(org, url, kind or None))
    out.print(f"webhook {endpoint.pk} added for {org}: {url}", highlight=False)
    out.print(f"secret: {endpoint.secret}", highlight=False)


@webhook_app.command("list")
def webhook_list() -> None:
    """Every webhook: id, organisation, URL, kinds, and how its last delivery went."""
    _database()
    from pitchpass.web.services import sending

    for endpoint in sending.endpoints():
        last = sending.last_delivery(endpoint)
        went = "no delivery yet"
        if last is not None:
            how = "delivered" if last.ok else f"failed ({last.error or last.status})"
            went = f"last {how} {last.when.isoformat(timespec='seconds')}"
        kinds = ", ".join(endpoint.kinds) if endpoint.kinds else "all kinds"
        state = "" if endpoint.active else " (off)"
        out.print(
            f"{endpoint.pk}  {endpoint.organisation.key}  {endpoint.url}{state}  {kinds}  {went}",
            highlight=False,
            soft_wrap=True,
        )


@webhook_app.command("remove")
def webhook_remove(
    endpoint: Annotated[int, typer.Argument(help="Its id (webhook list).", show_default=False)],
) -> None:
    """Stop sending to a webhook (its delivery log goes with it)."""
    _database()
    from pitchpass.web.services import sending

    _web_call(lambda: sending.remove_endpoint(endpoint))
    out.print(f"webhook {endpoint} removed")


@webhook_app.command("listen")
def webhook_listen(
    secret: Annotated[str, typer.Option("--secret", help="The secret `webhook add` printed.")],
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1.")] = 8010,
) -> None:
    """A receiver to try webhooks with: checks each message's signature and prints it
    (pitchpass sends to 127.0.0.1 only with PITCHPASS_WEBHOOK_PRIVATE=1)."""
    from pitchpass.cli.webhook_listen import listen

    _check_port(port)
    out.print(f"listening at http://127.0.0.1:{port}/ (Ctrl+C stops)")
    sys.stdout.flush()

    def say(line: str) -> None:
        out.print(line, highlight=False, soft_wrap=True)
        sys.stdout.flush()

    listen(secret, port, say)


@user_app.command("deactivate")
def user_deactivate(
    username: Annotated[str, typer.Argument(help="Whose access ends.", show_default=False)],
) -> None:
    """End a user's access at once: no sign-in, its sessions ended, its tokens deleted."""
    _database()
    from pitchpass.web.services.accounts import do_deactivate

    _web_call(lambda: do_deactivate(username))
    out.print(f"deactivated {username}: its sessions and tokens no longer work")


@user_app.command("unlock")
def user_unlock(
    username: Annotated[str, typer.Argument(help="Whose sign-in to unlock.", show_default=False)],
) -> None:
    """Unlock a user locked out after failed sign-ins (and their address's attempts)."""
    _database()
    from pitchpass.web.services.accounts import do_unlock

    cleared = _web_call(lambda: do_unlock(username))
    out.print(f"unlocked {username} ({cleared} failed attempt{'s' * (cleared != 1)} cleared)")


@token_app.command("revoke")
def token_revoke(
    token_id: Annotated[int, typer.Argument(help="The id `token list` shows.", show_default=False)],
) -> None:
    """Revoke a token: the API refuses it from now on."""
    _database()
    from pitchpass.web.services.accounts import do_revoke_token

    _web_call(lambda: do_revoke_token(token_id))
    out.print(f"revoked token {token_id}")


def _web_call(work: Callable[[], _T]) -> _T:
    """Run a service call; its ServiceError is bad input, exit code 2."""
    from pitchpass.web.errors import ServiceError

    try:
        return work()
    except ServiceError as error:
        _fail([Problem(error.path, error.message)], as_json=False)


def _database() -> ModuleType:
    """Set up Django, bring the tables up to date, and hand back the store module."""
    from pitchpass.web.setup import configure, migrate

    what = "the settings"  # from the environment: a bad value is a ValueError
    try:
        configure()
        what = "the database"
        migrate()
    except Exception as error:
        from django.core.exceptions import ImproperlyConfigured
        from django.db import DatabaseError

        if not isinstance(error, DatabaseError | OSError | ValueError | ImproperlyConfigured):
            raise
        err.print(f"error {what} cannot be used: {error}".strip(), soft_wrap=True)
        raise typer.Exit(EXIT_NOT_PROVEN) from None
    from pitchpass.web.persistence import store

    return store


# Requests from which the document read is freed once the scenario is made: a season's is
# kept to the end (freeing its objects one by one costs more time than it saves), a
# federation's is not (its memory counts more: hundreds of megabytes).
FREE_DOCUMENT_FROM = 100_000


def _load(file: Path, as_json: bool, keep_document: bool = False) -> Scenario:
    return _load_with_warnings(file, as_json, keep_document)[0]


def _load_with_warnings(
    file: Path, as_json: bool, keep_document: bool = False
) -> tuple[Scenario, list[Problem]]:
    # A season is a million objects made at once and kept to the end: the cyclic
    # collector would walk them again and again while they are made, and after.
    from pitchpass.cli.files import read_document

    gc.disable()
    try:
        document = read_document(file)
        listed = document.get("requests")
        keep = keep_document or not isinstance(listed, list) or len(listed) < FREE_DOCUMENT_FROM
        found, problems, warnings = check_document(document, consume=not keep)
        if found is None:
            raise ScenarioInvalid(problems)
        scenario = found
        if keep:
            _KEPT[:] = [document]  # freed with the process, not object by object
        del document
    except ScenarioInvalid as invalid:
        _fail(invalid.problems, as_json, warn_of=file)
    finally:
        gc.enable()
    gc.freeze()
    for warning in warnings:
        err.print(f"[yellow]warning[/yellow] {_escape(str(warning))}", markup=True, soft_wrap=True)
    return scenario, warnings


def _match_ids(scenario: Scenario, match: str | None, as_json: bool) -> list[str] | None:
    if match is None:
        return None
    ids = [m.id for m in scenario.matches]
    if match not in ids:
        from pitchpass.core.reading.problems import did_you_mean

        _fail([Problem("--match", f'unknown match "{match}"{did_you_mean(match, ids)}')], as_json)
    return [match]


PROGRESS_FROM = 1000  # matches: a run this long shows a progress bar on a terminal


@contextlib.contextmanager
def _progress(matches: int, least: int = PROGRESS_FROM) -> Iterator[Callable[[int], None] | None]:
    """A progress bar on standard error for a long run (`least` matches or more) when it is
    a terminal, or when PITCHPASS_PROGRESS=1; none otherwise (a pipe, CI logs)."""
    wanted = os.environ.get("PITCHPASS_PROGRESS", "")
    if wanted != "1" and (wanted == "0" or matches < least or not sys.stderr.isatty()):
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True, force_terminal=wanted == "1" or None)
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("deciding", total=matches)
        yield lambda n: bar.advance(task, n)


HINDSIGHT_PROGRESS_FROM = 20  # matches: each is a decide of its own, with those before it


def _hindsight(scenario: Scenario, as_json: bool) -> None:
    """`season --hindsight`: the season match by match against hindsight (core.hindsight)."""
    from pitchpass.cli.season_print import print_hindsight
    from pitchpass.core.season.hindsight import compared, hindsight

    with _progress(len(scenario.matches), HINDSIGHT_PROGRESS_FROM) as done:
        step = None if done is None else (lambda _n, _of: done(1))
        found = _run(lambda: hindsight(scenario, step), as_json)
    report = compared(scenario, found)
    unproven = unproven_texts((*found.match_by_match, *found.jointly))
    if as_json:
        _print_json({**report, "unproven": unproven} if unproven else report)
        return
    for text in unproven:
        out.print(text, style="bold yellow")
    if scenario.policy.season is None:
        out.print("no season rules (policy.season): each match decided on its own, so"
                  " hindsight changes nothing", style="dim")  # fmt: skip
    print_hindsight(out, report)


def _run(work: Callable[[], Any], as_json: bool) -> Any:
    try:
        return work()
    except SolverFailed as failure:
        if as_json:
            _print_json({"errors": [{"path": "", "message": str(failure)}]})
        else:
            err.print(f"[red]error[/red] {failure}", markup=True)
        raise typer.Exit(EXIT_NOT_PROVEN) from None


def _fail(
    problems: Sequence[Problem],
    as_json: bool,
    warn_of: Path | None = None,
    nothing: str = "nothing decided",
) -> NoReturn:
    if as_json:
        _print_json({"errors": [p.as_json() for p in problems]})
    else:
        if warn_of is not None and len(problems) > 1:
            err.print(f"{warn_of}: {len(problems)} problems, {nothing}:")
        for problem in problems:
            err.print(f"  [red]error[/red] {_escape(str(problem))}", markup=True, soft_wrap=True)
    raise typer.Exit(EXIT_BAD_INPUT)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _print_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


_KEPT: list[object] = []  # what a command reads and the process may keep to its end
_AT_ONCE = [False]  # set by a command whose process may end without tearing down


def _leave_at_once() -> None:
    """Once `main` has flushed the output, end the process without the interpreter's
    teardown: freeing a season's objects one by one takes longer than writing them."""
    _AT_ONCE[0] = True


def main() -> None:
    try:
        app()
        code: Any = 0
    except SystemExit as stop:
        code = stop.code
    if not _AT_ONCE[0]:
        raise SystemExit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`| head`): nothing more to say
        os._exit(1)
    os._exit(code if isinstance(code, int) else 0 if code is None else 1)
