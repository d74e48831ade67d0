"""The command line (Typer and Rich), an adapter over the core and the web app:
`commands` holds every command; `files` reads scenario files; `terminal` and `demo` print
what the core decided; `parallel` and `cluster` decide many matches at once, on this
machine's cores or a Dask cluster; `reference` writes docs/commands.md from the help;
`webhook_listen` is a receiver to try webhooks with."""

from pitchpass.cli.commands import EXIT_BAD_INPUT, EXIT_NOT_PROVEN, app, main

__all__ = ["EXIT_BAD_INPUT", "EXIT_NOT_PROVEN", "app", "main"]
