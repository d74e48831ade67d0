"""What the pages show, worked out from what the services answer: the zone x phase grid,
the request rows with their filters, the room a new request would find, and a what-if
answer put in words. No database writes and no access decisions here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pitchpass.core.codes import Status
from pitchpass.core.deciding.room import Room
from pitchpass.web.persistence import models as m

STATUSES = (Status.GRANTED, Status.REFUSED, Status.OFFERED, Status.REVOKED, Status.WAITING)


def grid(usage: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Zones in order, each with its phases' cells and how full each is."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for u in usage:
        share = u["used"] / u["capacity"] if u["capacity"] else 1
        level = "full" if share >= 1 else "busy" if share >= 0.75 else "free"
        rows.setdefault(u["zone"], []).append(
            {**u, "percent": round(min(share, 1) * 100), "level": level}
        )
    return list(rows.items())


def fullest(usage: list[dict[str, Any]]) -> dict[str, Any] | None:
    cells = [u for u in usage if u["capacity"]]
    return max(cells, key=lambda u: u["used"] / u["capacity"], default=None)


def request_rows(
    requests: Iterable[m.Request],
    shown: Mapping[str, dict[str, Any]],
    filters: Mapping[str, str],
    by_hand: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """One row per request, with what every view shows of it (`shown`: the match day's
    record over its run's decision, decisions.as_recorded) and the officer's reason if it
    was overridden by hand, kept if it passes the filters: status, zone, and text found
    in its id or requester."""
    text = filters.get("q", "").strip().lower()
    rows = []
    for r in requests:
        decision = shown[r.key]
        status = decision["status"]
        if filters.get("status") and filters["status"] != status:
            continue
        if filters.get("zone") and filters["zone"] != r.zone.key:
            continue
        if text and text not in f"{r.key} {r.by.key} {r.by.name}".lower():
            continue
        reason = (by_hand or {}).get(r.key) if status == Status.GRANTED else None
        rows.append({"request": r, "decision": decision, "status": status, "by_hand": reason})
    return rows


def room_lines(cells: Iterable[Room], crew: int = 0, zone: str = "") -> list[str]:
    """The core's room cells in words: "tunnel, post-match: 2 of 46 places left", "too
    few for a crew of 4", or closed (then the request would be refused). A cell of
    another zone than `zone` is on the way to it (the core's footprint): said so."""
    lines = []
    for cell in cells:
        where = f"{cell.zone}, {cell.phase}"
        if zone and cell.zone != zone:
            where = f"{cell.zone} (on the way to {zone}), {cell.phase}"
        if cell.closed:
            lines.append(f"{where}: closed (a request for it is refused)")
            continue
        line = f"{where}: {cell.left} of {cell.capacity} places left"
        if not cell.fits and crew:
            line += f", too few for a crew of {crew}"
        lines.append(line)
    return lines


def what_if_story(
    answer: dict[str, Any], names: Mapping[str, str], refused: Iterable[str] = ()
) -> dict[str, Any]:
    """The what-if JSON arranged for reading: who would be granted, who bumped (with the
    reasons they would get), who was taken out by hand, and each incident's cameras
    before and after."""
    after = {d["request"]: d for d in answer["result"]["matches"][0]["decisions"]}
    by_hand = set(refused)
    changes = [
        {
            **c,
            "by": names.get(c["request"], ""),
            "reasons": after[c["request"]]["reasons"] if c["request"] in after else [],
        }
        for c in answer["changes"]
    ]
    only_if = {o["request"]: o["reasons"] for o in answer.get("only_if") or []}
    for c in changes:
        c["only_if"] = only_if.get(c["request"], [])
    return {
        "granted": [c for c in changes if c["after"] == Status.GRANTED],
        "bumped": [
            c for c in changes if c["after"] == Status.REFUSED and c["request"] not in by_hand
        ],
        "taken_out": [c for c in changes if c["request"] in by_hand],
        "incidents": answer["incidents"],
    }


WHOLE = re.compile(r"-?[0-9]+")  # ASCII digits only: "²" or "٣" is not a number here


def form_int(
    values: Mapping[str, str], name: str, default: int | None = None, label: str = ""
) -> int | None:
    """A whole number typed in a form; None when left empty (and no default). The error
    calls the field by its `label`, or by its name."""
    text = values.get(name, "").strip()
    if not text:
        return default
    if not WHOLE.fullmatch(text):
        raise ValueError(f"{label or name} must be a whole number, not {text!r}")
    return int(text)


def crew_size(text: str) -> int:
    """The crew typed so far, for the room hint: 0 while it is not a whole number."""
    return int(text.strip()) if WHOLE.fullmatch(text.strip()) else 0


def access_list(
    places: Iterable[tuple[str, str, str, int, str]], zones: list[str], phases: list[str]
) -> list[dict[str, Any]]:
    """Who may be where and when, for the stewards at the doors: per zone (in the venue's
    order) and phase, each organisation once with its published crews added up, and apart
    from them the crews that only pass through on their way to a zone reached through this
    one ("BT Sport (2, passing through to home-dressing-room)"). `places` are the core's
    footprints of the published grants (decisions.published_places)."""
    cells: dict[tuple[str, str], dict[tuple[str, str], int]] = {}
    for zone, phase, name, crew, bound_for in places:
        crews = cells.setdefault((zone, phase), {})
        crews[name, bound_for] = crews.get((name, bound_for), 0) + crew
    return [
        {
            "zone": z,
            "phases": [(p, _crews(cells[z, p])) for p in phases if (z, p) in cells],
        }
        for z in zones
        if any((z, p) in cells for p in phases)
    ]


def _crews(crews: dict[tuple[str, str], int]) -> list[str]:
    return [
        f"{name} ({n}, passing through to {bound_for})" if bound_for else f"{name} ({n})"
        for (name, bound_for), n in crews.items()
    ]
