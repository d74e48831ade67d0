"""`pitchpass serve`: the app under gunicorn, as Django is served in production. One
worker process of 8 threads by default; `--workers N`, N processes of 4 threads each.
Started from the CLI's process, which has set Django up and migrated; each worker is
forked from it and opens its own database connections."""

from __future__ import annotations

import copy
from typing import Any

from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

THREADS = 4  # per worker, when there are several
THREADS_ALONE = 8  # the one worker's


class _Server(BaseApplication):  # type: ignore[misc]  # gunicorn ships no types
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from pitchpass.web.wsgi import application

        return application


def options(port: int, workers: int) -> dict[str, Any]:
    """Gunicorn's settings. What a proxy in front writes (X-Forwarded-For and -Proto)
    reaches the app untouched: the app alone decides what to believe of it, by
    PITCHPASS_PROXIES (http/throttles.client_address, SECURE_PROXY_SSL_HEADER), so
    gunicorn is told to trust no address to set the scheme."""
    return {
        "bind": f"127.0.0.1:{port}",
        "workers": workers,
        "worker_class": "gthread",
        "threads": THREADS_ALONE if workers == 1 else THREADS,
        "proc_name": "pitchpass",
        "timeout": 60,  # a worker silent this long is replaced
        "graceful_timeout": 30,
        "forwarded_allow_ips": "",
        "accesslog": None,  # the app writes one record a request (logs.RequestId)
        "errorlog": "-",
        "loglevel": "warning",
        "logconfig_dict": _logging(),
        "child_exit": _forget_counts,
    }


def _logging() -> dict[str, Any]:
    """Gunicorn's own records (a worker timed out, one restarted) as the app's: one JSON
    object a line on stderr (settings.LOGGING, logs.py)."""
    from django.conf import settings

    config: dict[str, Any] = copy.deepcopy(settings.LOGGING)
    quiet = {"level": "WARNING", "propagate": True}
    config["loggers"] = {**config.get("loggers", {}), "gunicorn.error": quiet}
    config["loggers"]["gunicorn.access"] = quiet
    return config


def _forget_counts(server: Any, worker: Any) -> None:
    """A worker gone: its live values (not its totals) leave /metrics."""
    import os

    if "PROMETHEUS_MULTIPROC_DIR" in os.environ:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def run(port: int, workers: int) -> None:
    """Serve on 127.0.0.1:`port` until stopped (Ctrl+C or SIGTERM: the workers finish
    what they answer first, up to 30 s)."""
    _Server(options(port, workers)).run()
