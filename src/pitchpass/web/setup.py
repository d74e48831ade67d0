"""Starting Django from the CLI: only the commands that need the database pay for it."""

from __future__ import annotations

import os


def configure() -> None:
    """Point Django at pitchpass's settings and set it up (once per process)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pitchpass.web.settings")
    import django

    django.setup()


def migrate(verbosity: int = 0) -> None:
    """Create or update the tables, and the cache's when it is the database (idempotent)."""
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=verbosity)
    call_command("createcachetable", verbosity=verbosity)
