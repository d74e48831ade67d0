"""`pitchpass serve --workers N`: the app under gunicorn, N processes of 4 threads each,
as Django is served in production. Started from the CLI's process, which has set Django
up and migrated; each worker is forked from it and opens its own database connections.
"""

from __future__ import annotations

from typing import Any

from django.core.wsgi import get_wsgi_application
from gunicorn.app.base import BaseApplication  # type: ignore[import-untyped]

THREADS = 4  # per worker


class _Server(BaseApplication):  # type: ignore[misc]  # gunicorn ships no types
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return get_wsgi_application()


def waitress_options(port: int) -> dict[str, Any]:
    """The one-process server's: 127.0.0.1, 8 threads; behind PITCHPASS_PROXIES trusted
    proxies their X-Forwarded-For and X-Forwarded-Proto reach the app (which alone reads
    them: http/throttles.client_address, SECURE_PROXY_SSL_HEADER), where waitress would
    strip them by default; with none in front, they are stripped."""
    from django.conf import settings

    proxied = int(getattr(settings, "PITCHPASS_PROXIES", 0)) > 0
    return {
        "host": "127.0.0.1",
        "port": port,
        "threads": 8,
        "ident": "pitchpass",
        "clear_untrusted_proxy_headers": not proxied,
    }


def run(port: int, workers: int) -> None:
    """Serve on 127.0.0.1:`port` until stopped (Ctrl+C or SIGTERM: the workers finish
    what they answer first, up to 30 s)."""
    _Server(
        {
            "bind": f"127.0.0.1:{port}",
            "workers": workers,
            "worker_class": "gthread",
            "threads": THREADS,
            "proc_name": "pitchpass",
            "timeout": 60,  # a worker silent this long is replaced
            "graceful_timeout": 30,
            "accesslog": None,  # Django's logging (logs.py) writes one line a request
            "errorlog": "-",
            "loglevel": "warning",
        }
    ).run()
