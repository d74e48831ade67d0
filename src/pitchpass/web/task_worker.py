"""`pitchpass worker`: runs the queued tasks (services/queue.py) until stopped.

django-tasks-db's worker does the running: it takes the next ready task (the row locked,
skipped by other workers), runs it, and records its result. Beside it, a thread writes
this worker's beat and takes back the tasks of workers that stopped beating. SIGTERM or
Ctrl+C lets the task running finish first; a second one stops at once.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone
from django_tasks_db.management.commands.db_worker import Worker

from pitchpass.web.services import queue

log = logging.getLogger("pitchpass.tasks")


def run(interval: float = 1.0, batch: bool = False) -> None:
    """Run tasks as they come (every `interval` s when there are none); with `batch`,
    run those due now and stop."""
    name = queue.worker_id()
    started = timezone.now()
    queue.beat(name, started, started)
    queue.reclaim(started)
    stop = threading.Event()
    if not batch:  # a batch ends before its beat matters
        beating = threading.Thread(target=_keep_beating, args=(name, started, stop), daemon=True)
        beating.start()
    worker = Worker(
        queue_names=["default"],
        interval=interval,
        batch=batch,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=name,
        excluded_queue_names=[],
    )
    if not batch:
        worker.configure_signals()
    try:
        worker.run()
    finally:
        stop.set()


def _keep_beating(name: str, started: datetime, stop: threading.Event) -> None:
    every = float(getattr(settings, "PITCHPASS_WORKER_BEAT", 5))
    while not stop.wait(every):
        try:
            close_old_connections()
            now = timezone.now()
            queue.beat(name, now, started)
            queue.reclaim(now)
        except Exception:  # the database away a moment: beat again next time
            log.exception("the worker's beat could not be written")
    connection.close()
