"""Every command's reference, written from the CLI's own help: its usage, what it does
and each option, as `pitchpass COMMAND --help` has them. `make docs` writes it to
docs/commands.md (`python -m pitchpass.cli.reference docs/commands.md`), and a test
fails when that page is not what this writes."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import typer

from pitchpass.cli import EXIT_BAD_INPUT, EXIT_NOT_PROVEN, app


def reference() -> str:
    """The page, in Markdown."""
    group = typer.main.get_command(app)  # Click's objects, as Typer vendors them
    root = _context(group, "pitchpass", None)
    lines = [
        "# Commands",
        "",
        "Every command of `pitchpass`, as its own `--help` says it (this page is written"
        " from the CLI by `make docs`, and a test fails when it is out of date). Exit"
        f" codes: 0 done; {EXIT_NOT_PROVEN} a check that did not hold (`audit verify`, a"
        f" server that could not start); {EXIT_BAD_INPUT} bad input (a file, an id, an"
        " option), said in one line.",
        "",
        f"`pitchpass --help`: {_text(group.help or '')}",
    ]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        inner = _context(command, name, root)
        subcommands = getattr(command, "commands", None)
        if subcommands is None:
            lines += _command(command, inner, "##")
            continue
        lines += ["", f"## `{inner.command_path}`", "", _text(command.help or "")]
        for sub, one in subcommands.items():
            lines += _command(one, _context(one, sub, inner), "###")
    return "\n".join(lines) + "\n"


def _context(command: Any, name: str, parent: Any) -> Any:
    """The command's context as `--help` reads it, with no argument parsed."""
    return command.make_context(name, [], parent=parent, resilient_parsing=True)


def _command(command: Any, ctx: Any, level: str) -> list[str]:
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    out = ["", f"{level} `{ctx.command_path}`", "", _text(command.help or ""), "", "```text"]
    out += [usage.replace("{", "").replace("}", ""), "```"]
    records = [p.get_help_record(ctx) for p in command.get_params(ctx)]
    rows = [r for r in records if r is not None and not r[0].startswith("--help")]
    if rows:
        out += ["", "| argument or option | what it is |", "|---|---|"]
        out += [f"| `{_cell(name)}` | {_cell(said)} |" for name, said in rows]
    return out


def _text(help_text: str) -> str:
    """A docstring as one paragraph (Click's `\\b` marks and line breaks dropped)."""
    return " ".join(inspect.cleandoc(help_text).replace("\b", "").split())


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def main() -> None:
    page = reference()
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(page)
    else:
        sys.stdout.write(page)


if __name__ == "__main__":
    main()
