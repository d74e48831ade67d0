"""The task queue: Django's tasks API (the `django-tasks` backport of Django 6's
`django.tasks`), its rows kept in the app's own database (`django-tasks-db`), run by
`pitchpass worker`. What this module adds to it:

- `job(...)`: a task that fails is enqueued again, after a wait that grows four times
  with each attempt (PITCHPASS_TASK_RETRY_DELAY seconds first, 10 by default), up to its
  number of attempts; every failed attempt stays in the admin (Task results) with its
  traceback. The retry is a new task row, so a task's rows tell its whole history.
- a task is enqueued inside the transaction of the change it follows: it exists exactly
  when the change was committed (a server killed before the commit leaves neither).
- `beat` and `reclaim`: each worker writes that it is alive every few seconds; a task a
  worker was running when it stopped beating (killed, its machine gone) is made ready
  again, and run by the next worker that looks, itself included once restarted. A task
  interrupted `INTERRUPTIONS` times is marked failed instead (it may be what kills its
  worker). Tasks are therefore run at least once: each is written to do nothing more when
  run again (notifications remember what they sent).
"""

from __future__ import annotations

import functools
import logging
import os
import socket
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.conf import settings
from django.db import transaction
from django_tasks import task
from django_tasks.base import Task
from django_tasks_db.models import DBTaskResult

from pitchpass.web.persistence import models as m

log = logging.getLogger("pitchpass.tasks")

INTERRUPTIONS = 5  # times a task may be cut short by its worker's end before it fails
_R = TypeVar("_R")


class Interrupted(Exception):
    """What a task that kept stopping its workers is marked failed with."""


def retry_delay(attempt: int) -> timedelta:
    """The wait before attempt `attempt + 1`, after attempt `attempt` (1, 2, ...) failed."""
    first = float(getattr(settings, "PITCHPASS_TASK_RETRY_DELAY", 10))
    return timedelta(seconds=min(first * 4 ** (attempt - 1), 6 * 3600))


def job(attempts: int = 5) -> Callable[[Callable[..., _R]], Task[..., _R]]:
    """A task (django-tasks' `@task`) tried up to `attempts` times (see the module)."""

    def wrap(function: Callable[..., _R]) -> Task[..., _R]:
        @functools.wraps(function)
        def attempt_once(*args: Any, attempt: int = 1, **kwargs: Any) -> _R:
            try:
                return function(*args, **kwargs)
            except Exception:
                if attempt >= attempts:
                    log.exception("%s failed %d times: given up", function.__name__, attempt)
                    raise
                wait = retry_delay(attempt)
                from django.utils import timezone

                again = the_task.using(run_after=timezone.now() + wait)
                again.enqueue(*args, attempt=attempt + 1, **kwargs)
                log.warning(
                    "%s failed (attempt %d of %d): tried again in %ds",
                    function.__name__, attempt, attempts, wait.total_seconds(),
                )  # fmt: skip
                raise

        the_task: Task[..., _R] = task()(attempt_once)
        return the_task

    return wrap


def worker_id() -> str:
    """A new id for a worker process: its host, its process id and a random part."""
    host = socket.gethostname()[:30]
    return f"{host}-{os.getpid()}-{os.urandom(4).hex()}"


def beat(worker: str, now: datetime, started: datetime) -> None:
    """Write that `worker` is alive at `now`."""
    m.WorkerBeat.objects.update_or_create(
        worker=worker,
        defaults={"seen": now, "host": socket.gethostname()[:200], "pid": os.getpid()},
        create_defaults={
            "seen": now,
            "started": started,
            "host": socket.gethostname()[:200],
            "pid": os.getpid(),
        },
    )


def stale_after() -> timedelta:
    """How long a worker may go without a beat before its tasks are taken back: three of
    its beats (PITCHPASS_WORKER_BEAT seconds, 5 by default)."""
    return timedelta(seconds=3 * float(getattr(settings, "PITCHPASS_WORKER_BEAT", 5)))


def workers_alive(now: datetime) -> int:
    """How many workers have beaten within `stale_after()` of `now` (the health check's)."""
    return m.WorkerBeat.objects.filter(seen__gte=now - stale_after()).count()


def reclaim(now: datetime) -> list[str]:
    """Make ready again every running task whose worker stopped beating (or never beat);
    one interrupted too often fails instead. The ids made ready."""
    from django_tasks import TaskResultStatus

    alive = set(
        m.WorkerBeat.objects.filter(seen__gte=now - stale_after()).values_list("worker", flat=True)
    )
    again = []
    with transaction.atomic():
        for row in DBTaskResult.objects.running().select_for_update(skip_locked=True):
            if row.worker_ids and row.worker_ids[-1] in alive:
                continue
            if len(row.worker_ids) >= INTERRUPTIONS:
                row.set_failed(Interrupted(f"its worker stopped {len(row.worker_ids)} times"))
                log.error("task %s given up: its worker stopped each time", row.id)
                continue
            row.status = TaskResultStatus.READY
            row.save(update_fields=["status"])
            again.append(str(row.id))
            log.warning("task %s (%s) taken back from a stopped worker", row.id, row.task_name)
    # Beats of workers gone for a day are of no more use.
    m.WorkerBeat.objects.filter(seen__lt=now - timedelta(days=1)).delete()
    return again
