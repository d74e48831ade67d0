"""Tasks for the queue's own tests (tests/web/test_queue.py): each leaves marks as files
in a folder, so that a test sees from outside what ran, how often, and in which process.
tests/web/queue_script.py enqueues them and reads the task rows from another process."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pitchpass.web.services.queue import job


def _mark(folder: str, name: str) -> int:
    """Leave a mark `name-N` (N: 1 for the first, 2 for the next...); the N left."""
    n = 1
    while (Path(folder) / f"{name}-{n}").exists():
        n += 1
    (Path(folder) / f"{name}-{n}").write_text(str(os.getpid()))
    return n


@job(attempts=3)
def flaky(folder: str, failures: int) -> str:
    """Fails its first `failures` runs, then succeeds."""
    if _mark(folder, "run") <= failures:
        raise RuntimeError("the mail server did not answer")
    return "sent"


@job()
def nap(folder: str, seconds: float) -> str:
    """Sleeps `seconds` on its first run (long enough to be killed in), not on later ones."""
    if _mark(folder, "started") == 1:
        time.sleep(seconds)
    _mark(folder, "done")
    return "rested"
