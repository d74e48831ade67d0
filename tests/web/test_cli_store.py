"""`pitchpass migrate`, `load` and `export` on a real database in a fresh data folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "scenarios" / "manchester-derby-2017.yaml"
pytestmark = pytest.mark.slow


def pitchpass(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PITCHPASS_HOME=str(home))
    env.pop("PITCHPASS_SECRET_KEY", None)
    if "DATABASE_URL" in os.environ:  # the PostgreSQL run: keep the tests' own database apart
        env.pop("DATABASE_URL")
    return subprocess.run(
        [sys.executable, "-m", "pitchpass", *args], capture_output=True, text=True, env=env
    )


def test_load_twice_then_export_decides_as_the_file(tmp_path: Path) -> None:
    first = pitchpass(tmp_path, "load", str(SEED))
    assert first.returncode == 0, first.stderr
    assert "loaded 1 matches, 37 requests, 2 incidents; changed: mun-mci-2017-12-10" in first.stdout
    second = pitchpass(tmp_path, "load", str(SEED))
    assert second.returncode == 0
    assert "nothing changed: the database holds it as the file has it" in second.stdout
    exported = tmp_path / "exported.yaml"
    out = pitchpass(tmp_path, "export", "--match", "mun-mci-2017-12-10", "-o", str(exported))
    assert out.returncode == 0, out.stderr
    again = pitchpass(tmp_path, "decide", str(exported), "--json")
    original = pitchpass(tmp_path, "decide", str(SEED), "--json")
    assert json.loads(again.stdout) == json.loads(original.stdout)
    assert (tmp_path / "pitchpass.sqlite3").is_file()


def test_load_leaves_a_match_changed_through_the_web_app_unless_replacing(tmp_path: Path) -> None:
    import sqlite3

    assert pitchpass(tmp_path, "load", str(SEED)).returncode == 0
    with sqlite3.connect(tmp_path / "pitchpass.sqlite3") as db:  # as the API's change leaves it
        db.execute("UPDATE pitchpass_request SET crew = 1 WHERE key = 'r01'")
        db.execute("UPDATE pitchpass_match SET web_changes = '[\"change\"]'")
    refused = pitchpass(tmp_path, "load", str(SEED))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "mun-mci-2017-12-10 (change)" in refused.stderr and "--replace" in refused.stderr
    replaced = pitchpass(tmp_path, "load", "--replace", str(SEED))
    assert replaced.returncode == 0, replaced.stderr
    assert pitchpass(tmp_path, "load", str(SEED)).returncode == 0


def test_bad_input_to_load_and_export(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SEED.read_text().replace("crew: 2", "crew: 0", 1))
    loaded = pitchpass(tmp_path, "load", str(bad))
    assert loaded.returncode == 2 and "at least 1" in loaded.stderr
    assert "Traceback" not in loaded.stderr
    missing = pitchpass(tmp_path, "export", "--match", "nope")
    assert missing.returncode == 2 and 'unknown match "nope"' in missing.stderr


def test_an_unreachable_database_is_one_plain_line(tmp_path: Path) -> None:
    env_url = "postgres://postgres@127.0.0.1:1/test"
    env = dict(os.environ, PITCHPASS_HOME=str(tmp_path), DATABASE_URL=env_url)
    out = subprocess.run(
        [sys.executable, "-m", "pitchpass", "migrate"], capture_output=True, text=True, env=env
    )
    assert out.returncode == 1
    assert "the database cannot be used" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "args", [("migrate",), ("load", str(SEED)), ("token", "create", "ed")], ids=lambda a: a[0]
)
def test_a_database_url_of_another_kind_is_one_plain_line(tmp_path: Path, args) -> None:
    env = dict(os.environ, PITCHPASS_HOME=str(tmp_path), DATABASE_URL="mysql://db/x")
    out = subprocess.run(
        [sys.executable, "-m", "pitchpass", *args], capture_output=True, text=True, env=env
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        "error the settings cannot be used: DATABASE_URL must start with postgres://, not mysql://"
    ]


def test_user_add_and_tokens(cli_here) -> None:
    """In this process (section 10 of issue 28): each case's exit code and words."""
    assert cli_here("load", str(SEED)).returncode == 0
    added = cli_here("user", "add", "ed", "--role", "officer", "--org", "man-united")
    assert added.returncode == 0 and "password: " in added.stdout
    wrong = cli_here("user", "add", "x", "--role", "officer", "--org", "sky-sports")
    assert wrong.returncode == 2 and "an officer acts for a club" in wrong.stderr
    again = cli_here("user", "add", "ed", "--role", "admin")
    assert again.returncode == 2 and "exists already" in again.stderr
    # Django's password validators: a short, common, numeric or empty password is refused
    # (an empty one is not a wish for a random one), and nothing is added.
    for weak, said in (("x", "too short"), ("password123", "too common"), ("", "too short")):
        refused = cli_here("user", "add", "al", "--role", "admin", "--password", weak)
        assert refused.returncode == 2 and said in refused.stderr, (weak, refused.stderr)
        assert "Traceback" not in refused.stderr
    strong = ("user", "add", "al", "--role", "admin", "--password", "a-long-pass-phrase")
    assert cli_here(*strong).returncode == 0
    token = cli_here("token", "create", "ed")
    assert token.returncode == 0 and len(token.stdout.strip()) >= 40
    nobody = cli_here("token", "create", "nobody")
    assert nobody.returncode == 2 and 'unknown user "nobody"' in nobody.stderr
    assert cli_here("token", "create", "ed").returncode == 0
    listed = cli_here("token", "list", "ed")
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 2
    first_id = listed.stdout.split()[0]
    assert token.stdout.strip() not in listed.stdout
    revoked = cli_here("token", "revoke", first_id)
    assert revoked.returncode == 0 and f"revoked token {first_id}" in revoked.stdout
    assert len(cli_here("token", "list", "ed").stdout.splitlines()) == 1
    again = cli_here("token", "revoke", first_id)
    assert again.returncode == 2 and f"no token {first_id}" in again.stderr


def test_serve_answers_on_localhost(tmp_path: Path) -> None:
    import socket
    import time
    import urllib.error
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, PITCHPASS_HOME=str(tmp_path))
    env.pop("DATABASE_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "serve", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/openapi.json") as r:
                    assert json.loads(r.read())["info"]["title"] == "pitchpass"
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer in 30 s"
                time.sleep(0.3)
        # A path that would forge a line of the log ("%0A"): logged on one line, escaped.
        forged = f"http://127.0.0.1:{port}/api/x%0AERROR%20forged%20line"
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(forged)
    finally:
        server.terminate()
        output = server.communicate(timeout=10)[0]
    assert f"http://127.0.0.1:{port}/" in output
    lines = output.splitlines()
    assert any("/api/x" in line and "ERROR forged line" in line for line in lines), output
    assert not any(line.startswith("ERROR forged") for line in lines), output


def test_serve_starts_again_on_its_port_at_once_after_a_crash(tmp_path: Path) -> None:
    """Killed (SIGKILL) with a connection open, the server leaves its port in TIME_WAIT;
    started again at once on that port it serves (its port check allows address reuse, as
    the server itself does), instead of refusing the port for about a minute."""
    import http.client
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, PITCHPASS_HOME=str(tmp_path))
    env.pop("DATABASE_URL", None)
    command = [sys.executable, "-m", "pitchpass", "serve", "--port", str(port)]

    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,  # gunicorn's workers killed with it
        )

    def answered() -> http.client.HTTPConnection:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("GET", "/api/openapi.json")
                assert connection.getresponse().read()
                return connection  # kept open (keep-alive)
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer in 30 s"
                time.sleep(0.3)

    first = start()
    open_connection = answered()
    os.killpg(first.pid, signal.SIGKILL)  # the master and its worker, as in a crash
    first.communicate(timeout=10)
    open_connection.close()
    second = start()
    try:
        answered().close()
    finally:
        second.terminate()
        output = second.communicate(timeout=10)[0]
    assert "cannot be used" not in output, output


def test_serve_refuses_a_port_another_process_listens_on(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = pitchpass(tmp_path, "serve", "--port", str(port))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"error port {port} cannot be used" in out.stderr and "try --port" in out.stderr
