"""The task queue (issue 11, section 1): Django's tasks API on its database backend, run by
`pitchpass worker`. A failing task is tried again after growing waits and every failure
stays in the admin; a worker killed in the middle of a task loses nothing: started again,
it runs the task again."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import jobs_for_tests
import pytest
from django.test import Client
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from servers import cli, env

from pitchpass.web.persistence import models as m
from pitchpass.web.services import queue
from pitchpass.web.services.accounts import do_add_user
from pitchpass.web.task_worker import run

HERE = Path(__file__).parent


@pytest.mark.django_db(transaction=True)  # the worker closes its connection
def test_a_failing_task_is_tried_again_after_growing_waits(tmp_path: Path, settings) -> None:
    settings.PITCHPASS_TASK_RETRY_DELAY = 10
    jobs_for_tests.flaky.enqueue(str(tmp_path), 5)
    run(batch=True)
    rows = list(DBTaskResult.objects.order_by("enqueued_at"))
    assert [r.status for r in rows] == [TaskResultStatus.FAILED, TaskResultStatus.READY]
    assert "the mail server did not answer" in rows[0].traceback
    wait = rows[1].run_after - rows[0].finished_at
    assert timedelta(seconds=9) < wait <= timedelta(seconds=10)
    assert rows[1].args_kwargs["kwargs"] == {"attempt": 2}
    assert queue.retry_delay(2) == timedelta(seconds=40)
    assert queue.retry_delay(3) == timedelta(seconds=160)
    assert queue.retry_delay(30) == timedelta(hours=6)  # never more than this


@pytest.mark.django_db(transaction=True)  # the worker closes its connection
def test_a_task_succeeds_on_a_later_attempt_or_is_given_up(tmp_path: Path, settings) -> None:
    settings.PITCHPASS_TASK_RETRY_DELAY = 0
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    jobs_for_tests.flaky.enqueue(str(tmp_path / "a"), 2)  # fails twice, then sends
    jobs_for_tests.flaky.enqueue(str(tmp_path / "b"), 9)  # fails every one of its 3 attempts
    run(batch=True)
    statuses = {
        folder: [r.status for r in DBTaskResult.objects.order_by("enqueued_at")
                 if r.args_kwargs["args"][0].endswith(folder)]
        for folder in ("a", "b")
    }  # fmt: skip
    assert statuses["a"] == ["FAILED", "FAILED", "SUCCESSFUL"]
    assert statuses["b"] == ["FAILED", "FAILED", "FAILED"]
    assert len(list((tmp_path / "b").glob("run-*"))) == 3
    assert not DBTaskResult.objects.ready().exists()


@pytest.mark.django_db(transaction=True)  # the worker closes its connection
def test_failed_tasks_are_shown_in_the_admin(tmp_path: Path, settings) -> None:
    settings.PITCHPASS_TASK_RETRY_DELAY = 0
    jobs_for_tests.flaky.enqueue(str(tmp_path), 9)
    run(batch=True)
    do_add_user("boss", "admin", None, "a-long-phrase-boss")
    client = Client()
    client.login(username="boss", password="a-long-phrase-boss")
    listing = client.get("/admin/django_tasks_database/dbtaskresult/?status__exact=FAILED")
    assert listing.status_code == 200
    assert listing.content.decode().count("flaky") >= 3
    failed = DBTaskResult.objects.failed().first()
    assert failed is not None
    page = client.get(f"/admin/django_tasks_database/dbtaskresult/{failed.pk}/change/")
    assert "the mail server did not answer" in page.content.decode()


@pytest.mark.django_db
def test_a_task_of_a_worker_that_stopped_beating_is_made_ready_again(settings) -> None:
    settings.PITCHPASS_WORKER_BEAT = 1
    now = timezone.now()
    queue.beat("alive", now, now)
    queue.beat("gone", now - timedelta(seconds=4), now - timedelta(seconds=9))
    rows = []
    for worker in ("alive", "gone", "never-beat"):
        result = jobs_for_tests.nap.enqueue("/nowhere", 1)
        row = DBTaskResult.objects.get(pk=result.id)
        row.claim(worker)
        rows.append(row)
    tired = DBTaskResult.objects.get(pk=jobs_for_tests.nap.enqueue("/nowhere", 1).id)
    for n in range(queue.INTERRUPTIONS):
        tired.claim(f"gone-{n}")
    again = queue.reclaim(now)
    assert sorted(again) == sorted(str(r.pk) for r in rows[1:])
    for row in rows:
        row.refresh_from_db()
    assert [r.status for r in rows] == ["RUNNING", "READY", "READY"]
    tired.refresh_from_db()
    assert tired.status == "FAILED"
    assert "Interrupted" in tired.exception_class_path
    # A beat a day old is removed; one that is not, kept.
    queue.beat("ancient", now - timedelta(days=2), now - timedelta(days=2))
    queue.reclaim(now)
    assert set(m.WorkerBeat.objects.values_list("worker", flat=True)) == {"alive", "gone"}


def _worker(home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "worker", "--interval", "0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=env(home, PYTHONPATH=str(HERE), PITCHPASS_WORKER_BEAT="0.3"),
    )  # fmt: skip


def _wait_for(path: Path, worker: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert worker.poll() is None, worker.communicate()[0]
        assert time.monotonic() < deadline, f"{path.name} never came"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_task_cut_short_by_a_killed_worker_runs_again_once_restarted(tmp_path: Path) -> None:
    home, marks = tmp_path / "home", tmp_path / "marks"
    marks.mkdir()
    assert cli(home, "migrate").returncode == 0
    script = [sys.executable, str(HERE / "queue_script.py")]
    subprocess.run(
        [*script, "enqueue-nap", str(marks)], env=env(home, PYTHONPATH=str(HERE)), check=True
    )
    worker = _worker(home)
    _wait_for(marks / "started-1", worker)
    worker.send_signal(signal.SIGKILL)  # in the middle of its 60 s nap
    worker.wait(timeout=10)
    assert not (marks / "done-1").exists()
    worker = _worker(home)  # started again
    try:
        _wait_for(marks / "done-1", worker)
    finally:
        worker.send_signal(signal.SIGTERM)
        said = worker.communicate(timeout=30)[0]
    assert worker.returncode == 0, said
    assert "taken back from a stopped worker" in said
    rows = subprocess.run(
        [*script, "rows"], env=env(home, PYTHONPATH=str(HERE)), capture_output=True, text=True
    )
    [row] = json.loads(rows.stdout)
    assert row["status"] == "SUCCESSFUL"
    assert len(row["workers"]) == 2 and row["workers"][0] != row["workers"][1]
    assert sorted(p.name for p in marks.iterdir()) == ["done-1", "started-1", "started-2"]
