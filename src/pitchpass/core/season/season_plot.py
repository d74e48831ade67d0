"""Each organisation's share of a season's grants, match day by match day, as an SVG line
chart: where a person would rather look than read (`pitchpass season --plot`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from html import escape

from pitchpass.core.codes import Status
from pitchpass.core.deciding.decide import MatchResult
from pitchpass.core.model import Scenario

LINES = 8  # organisations drawn; the rest are named as a count in the legend
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
WIDTH, HEIGHT = 760, 380
LEFT, RIGHT, TOP, BOTTOM = 56, 200, 36, 48


def _granted_per_day(results: Sequence[MatchResult]) -> dict[date, dict[str, int]]:
    per_day: dict[date, dict[str, int]] = {}
    for result in results:
        day = result.match.kickoff.date()
        counts = per_day.setdefault(day, {})
        for d in result.decisions:
            if d.status is Status.GRANTED:
                counts[d.request.by] = counts.get(d.request.by, 0) + 1
    return per_day


def _drawn(per_day: dict[date, dict[str, int]]) -> tuple[list[str], dict[str, int]]:
    """The organisations drawn (the most granted first, LINES at most) and every one's total."""
    totals: dict[str, int] = {}
    for counts in per_day.values():
        for org, n in counts.items():
            totals[org] = totals.get(org, 0) + n
    return sorted(totals, key=lambda o: (-totals[o], o))[:LINES], totals


def legend(scenario: Scenario, results: Sequence[MatchResult]) -> list[tuple[str, str, int]]:
    """The plot's legend as (name, colour, granted), for a page to write beside it where
    the plot itself is too wide to read whole (a phone)."""
    drawn, totals = _drawn(_granted_per_day(results))
    names = {o.id: o.name for o in scenario.organisations}
    return [
        (names.get(org, org), COLOURS[n % len(COLOURS)], totals[org]) for n, org in enumerate(drawn)
    ]


def share_svg(scenario: Scenario, results: Sequence[MatchResult]) -> str:
    """The SVG text. Each line is an organisation's granted requests up to a match day, as
    a share of all granted requests up to that day."""
    per_day = _granted_per_day(results)
    days = sorted(per_day)
    drawn, totals = _drawn(per_day)
    names = {o.id: o.name for o in scenario.organisations}
    rest = len(totals) - len(drawn)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12" role="img">',
        f"<title>{escape(scenario.competition.name)}: each organisation's share of the "
        "season's granted requests</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fff"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">Share of granted requests, '
        f"{escape(scenario.competition.name)}</text>",
    ]
    top_share = _top(drawn, days, per_day)
    steps = round(top_share * 10)
    for k in range(steps + 1):  # the grid: every 10% up to the top
        y = TOP + plot_h - plot_h * k / steps
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{k * 10}%</text>'
        )
    if not days:
        parts.append(f'<text x="{LEFT + 10}" y="{TOP + plot_h / 2}">nothing granted</text>')
        return "\n".join([*parts, "</svg>"]) + "\n"

    def x(n: int) -> float:
        return LEFT + (plot_w * n / (len(days) - 1) if len(days) > 1 else plot_w / 2)

    parts.append(
        f'<text x="{LEFT}" y="{HEIGHT - 14}">{days[0].isoformat()}</text>'
        f'<text x="{LEFT + plot_w}" y="{HEIGHT - 14}" text-anchor="end">{days[-1].isoformat()}'
        f'</text><text x="{LEFT + plot_w / 2}" y="{HEIGHT - 14}" text-anchor="middle">'
        f"match days ({len(days)})</text>"
    )
    for n, org in enumerate(drawn):
        colour = COLOURS[n % len(COLOURS)]
        points = " ".join(
            f"{x(k):.1f},{TOP + plot_h - plot_h * share / top_share:.1f}"
            for k, share in enumerate(_shares(org, days, per_day))
        )
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{points}"/>'
        )
        y = TOP + 8 + 18 * n
        parts.append(
            f'<rect x="{WIDTH - RIGHT + 16}" y="{y - 9}" width="12" height="4" fill="{colour}"/>'
            f'<text x="{WIDTH - RIGHT + 34}" y="{y - 3}">{escape(names.get(org, org))} '
            f"({totals[org]})</text>"
        )
    if rest:
        y = TOP + 8 + 18 * len(drawn)
        parts.append(f'<text x="{WIDTH - RIGHT + 16}" y="{y - 3}">and {rest} more</text>')
    return "\n".join([*parts, "</svg>"]) + "\n"


def _shares(org: str, days: list[date], per_day: dict[date, dict[str, int]]) -> list[float]:
    own = total = 0
    out = []
    for day in days:
        own += per_day[day].get(org, 0)
        total += sum(per_day[day].values())
        out.append(own / total if total else 0.0)
    return out


def _top(drawn: list[str], days: list[date], per_day: dict[date, dict[str, int]]) -> float:
    """The top of the scale: the highest share drawn, rounded up to a tenth (at least 10%)."""
    highest = max((max(_shares(org, days, per_day), default=0.0) for org in drawn), default=0.0)
    return max(0.1, -(-round(highest * 100) // 10) / 10)
