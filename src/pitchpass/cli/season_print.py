"""The season report (core.season_report) as tables for people at a terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from pitchpass.core.season.season_report import rotation_label


def print_season(console: Console, report: dict[str, Any], rotations: list[str]) -> None:
    """`rotations`: each rotation's label, in the policy's order (its turns' columns)."""
    console.print(_organisations(report["organisations"], rotations))
    if report["quotas"]:
        console.print(_quotas(report["quotas"]))
    if report["minimums"]:
        console.print(_minimums(report["minimums"]))
    if report["rotations"]:
        console.print(_rotations(report["rotations"]))


def _organisations(rows: list[dict[str, Any]], rotations: list[str]) -> Table:
    table = Table(title="Organisations: granted of asked", title_justify="left")
    table.add_column("organisation", max_width=28)
    table.add_column("granted", justify="right", no_wrap=True)
    table.add_column("by zone", ratio=1)
    for label in rotations:
        table.add_column(f"turns: {label}", justify="right")
    table.add_column("strikes", justify="right", no_wrap=True)
    for row in rows:
        zones = ", ".join(f"{z['zone']} {z['granted']}/{z['asked']}" for z in row["zones"])
        table.add_row(
            row["name"], f"{row['granted']}/{row['asked']}", zones,
            *("" if n is None else str(n) for n in row["turns"]),
            str(row["strikes"]),
        )  # fmt: skip
    return table


def _quotas(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Quotas: used of the most allowed", title_justify="left")
    for name in ("for", "per", "period", "used", "refused for it"):
        table.add_column(name, justify="right" if name in ("used", "refused for it") else "left")
    for row in rows:
        full = row["used"] >= row["at_most"]
        used = Text(f"{row['used']}/{row['at_most']} {row['counts']}", style="bold" if full else "")
        period = "" if row["per"] == "season" else row["period"]
        who = row["for"] + (f" ({', '.join(row['zones'])})" if row["zones"] else "")
        table.add_row(who, row["per"], period, used, str(row["refused"] or ""))
    return table


def _minimums(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Minimums: what each club grants", title_justify="left")
    for name in ("minimum", "club", "to", "granted", "asked", "met", "debts paid", "debts owed"):
        table.add_column(
            name, justify="right" if name.startswith(("granted", "asked", "debts")) else "left"
        )
    for row in rows:
        few = " (too few asked)" if row["too_few_asked"] else ""
        met = Text("met", style="green") if row["met"] else Text(
            f"short by {row['short']}{few}", style="bold red"
        )  # fmt: skip
        paid = [d for d in row["debts"] if d["paid_at"] is not None]
        owed = [d for d in row["debts"] if d["paid_at"] is None]
        table.add_row(
            row["minimum"], row["club"], row["to"],
            f"{row['granted']}/{row['at_least']}" + _unit(row),
            str(row["asked"]), met,
            ", ".join(f"{d['opened_at']}→{d['paid_at']}" for d in paid),
            ", ".join(f"since {d['opened_at']}" + _why(d) for d in owed),
        )  # fmt: skip
    return table


def _why(debt: dict[str, Any]) -> str:
    """The refusal that opened a debt, by its codes."""
    return f" ({', '.join(debt['refused'])})" if debt.get("refused") else ""


def _unit(row: dict[str, Any]) -> str:
    """A minimum counted in occasions (docs/section-k.md) says so: a match's grants count
    one."""
    return " occasions" if row.get("counts") == "occasions" else ""


def _rotations(rotations: list[dict[str, Any]]) -> Table:
    table = Table(title="Rotations: turns over the season", title_justify="left")
    table.add_column("rotation")
    table.add_column("spread", justify="right")
    table.add_column("turns", ratio=1)
    for rotation in rotations:
        turns = ", ".join(f"{t['organisation']} {t['turns']}" for t in rotation["turns"])
        table.add_row(rotation_label(rotation), str(rotation["spread"]), turns or "nobody asked")
    return table


def print_hindsight(console: Console, report: dict[str, Any]) -> None:
    """`season --hindsight` (core.hindsight.compared) as tables: what deciding match by
    match cost against hindsight, and each refusal hindsight avoids, named."""
    granted, names = report["granted"], report["names"]
    console.print(
        f"Granted: {granted['match_by_match']} match by match, {granted['hindsight']} with"
        " hindsight (the whole season decided at once, exactly)"
    )
    orgs = Table(title="Organisations: granted", title_justify="left")
    for name, justify in (("organisation", "left"), ("asked", "right"),
                          ("match by match", "right"), ("hindsight", "right")):  # fmt: skip
        orgs.add_column(name, justify=justify)  # type: ignore[arg-type]
    for row in report["organisations"]:
        orgs.add_row(row["name"], str(row["asked"]), str(row["match_by_match"]),
                     _marked(row["hindsight"], row["match_by_match"]))  # fmt: skip
    console.print(orgs)
    if report["minimums"]:
        table = Table(title="Minimums: granted", title_justify="left")
        for name in ("minimum", "club", "to", "at least", "match by match", "hindsight"):
            table.add_column(name)
        for row in report["minimums"]:
            table.add_row(row["minimum"], names.get(row["club"], row["club"]),
                          names.get(row["to"], row["to"]), str(row["at_least"]),
                          str(row["match_by_match"]),
                          _marked(row["hindsight"], row["match_by_match"]))  # fmt: skip
        console.print(table)
    if report["rotations"]:
        table = Table(title="Rotations: spread of turns (most less fewest)", title_justify="left")
        for name in ("rotation", "match by match", "hindsight"):
            table.add_column(name)
        for row in report["rotations"]:
            table.add_row(rotation_label(row), str(row["match_by_match"]),
                          _marked(row["hindsight"], row["match_by_match"]))  # fmt: skip
        console.print(table)
    for key, title in (
        ("avoidable", "Refused match by match, granted with hindsight"),
        ("hindsight_refuses", "Granted match by match, refused with hindsight"),
    ):
        rows = report[key]
        if not rows:
            console.print(f"{title}: none")
            continue
        table = Table(title=title, title_justify="left")
        for name in ("match", "request", "organisation", "refused for"):
            table.add_column(name, overflow="fold")
        for row in rows:
            table.add_row(row["match"], row["request"],
                          names.get(row["organisation"], row["organisation"]),
                          "; ".join(row["reasons"]))  # fmt: skip
        console.print(table)


def _marked(value: int, before: int) -> Text | str:
    """A figure that differs from deciding match by match, in bold."""
    return Text(str(value), style="bold") if value != before else str(value)
