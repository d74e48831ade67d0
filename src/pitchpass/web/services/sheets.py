"""PDFs of a match made by a task (`pitchpass worker`), never inside a request: an
organisation's passes, and the stewards' access list (who may enter each zone in each
phase). The page asks for one and shows it once it is made; a sheet is made again when
what it shows changes (a publish, a revoke). The PDF uses the core fonts of PDF,
Latin-1: a character outside it is printed as "?"."""

from __future__ import annotations

import hashlib
import io
import json
from datetime import timedelta
from typing import Any

import segno
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from fpdf import FPDF

from pitchpass.core.match_day import doors as door_rules
from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.changes import lock_match
from pitchpass.web.services import access, doors
from pitchpass.web.services.queue import job

EVERY = "*"  # the scope of a sheet of every pass
ACCESS = "/access"  # the scope of the access list: no organisation's id holds a "/"
CODE_SHOWN = 4  # the access list shows a pass code's last characters only (below)
ASK_AGAIN = timedelta(minutes=2)  # asked for again after this, its task is queued again


def fingerprint(passes: list[dict[str, Any]]) -> str:
    return hashlib.sha256(json.dumps(passes, sort_keys=True).encode()).hexdigest()


def sheet_for(user: User, match_key: str) -> bytes | None:
    """The PDF of the passes the user may see, if made as they are now; else None, and a
    task is queued to make it (once, however often it is asked for)."""
    passes = doors.passes_for(user, match_key)  # who may: as for the list
    match = access.check_match(user, match_key)
    who = access.profile(user)
    scope = EVERY if access.manages(user, match) else who.organisation.key  # type: ignore[union-attr]
    return _made_or_asked(match, scope, fingerprint(passes))


def access_sheet_for(user: User, match_key: str) -> bytes | None:
    """The access list's PDF (stewards, the home officer and admins), as `sheet_for`."""
    match = access.check_match(user, match_key)
    if not access.sees_access_list(user, match):
        raise ServiceError(
            ErrorCode.FORBIDDEN,
            "the access list is for stewards, the home club's officer and admins",
        )
    return _made_or_asked(match, ACCESS, fingerprint(access_list(match)))


def _made_or_asked(match: m.Match, scope: str, wanted: str) -> bytes | None:
    """The sheet of `scope` if it was made from what is `wanted` now; else None, and its
    task queued (again if what is wanted changed, or if asked long after it was queued)."""
    with transaction.atomic():
        lock_match(match)
        row, _ = m.PassSheet.objects.get_or_create(
            match=match, scope=scope, defaults={"wanted": wanted}
        )
        if row.made == wanted:
            return bytes(row.pdf)
        now = timezone.now()
        if row.wanted != wanted or row.asked is None or row.asked < now - ASK_AGAIN:
            row.wanted, row.asked = wanted, now
            row.save(update_fields=["wanted", "asked"])
            make_sheet.enqueue(match.pk, scope)
    return None


@job(attempts=3)
def make_sheet(match_pk: int, scope: str) -> int:
    """Make the sheet of `scope` as what it shows is now (the access list, or whose
    passes); how many passes it shows."""
    match = m.Match.objects.select_related("home", "away", "venue").get(pk=match_pk)
    name = f"{match.home.name} v {match.away.name}"
    shown: list[dict[str, Any]]
    if scope == ACCESS:
        shown = access_list(match)
        pdf = render_access(name, match.venue.name, shown)
        count = len({p["request"] for cell in shown for p in cell["passes"]})
    else:
        org = None if scope == EVERY else m.Organisation.objects.get(key=scope).pk
        shown = doors.passes_of(match, org)
        pdf = render(name, match.venue.name, shown)
        count = len(shown)
    m.PassSheet.objects.update_or_create(
        match=match,
        scope=scope,
        defaults={"made": fingerprint(shown), "pdf": pdf, "when": timezone.now()},
    )
    return count


def access_list(match: m.Match) -> list[dict[str, Any]]:
    """Who may enter each zone in each phase (the core's `lets_in` over the passes), each
    pass with its request, organisation, crew and the end of its code, and the zone it is
    bound for when it only passes through; then the passes taken back, to be refused
    (`zone` ""). A pass's code is shown by its last characters only: enough to match the
    pass a crew shows against the list, never enough to make one from a list left on a
    desk (the door's offline list keeps digests for the same reason)."""
    passes = doors.passes_of(match, None)
    by_request = {p["request"]: p for p in passes}
    zones = dict(match.venue.zones.order_by("position").values_list("key", "name"))
    phases = [p.id for p in store.read_plan(match)]
    core_passes = [
        door_rules.Pass(
            p["request"],
            p["org"],
            tuple(p["zones"]),
            tuple(p["phases"]),
            p["crew"],
            p.get("revoked"),
        )
        for p in passes
    ]
    cells = [
        {
            "zone": zone,
            "name": zones.get(zone, zone),
            "phase": phase,
            "passes": [_listed(by_request[p.request], zone) for p in admitted],
        }
        for zone, phase, admitted in door_rules.lets_in(core_passes, list(zones), phases)
    ]
    taken_back = [_listed(p, "") for p in passes if p.get("revoked")]
    if taken_back:
        cells.append({"zone": "", "name": "", "phase": "", "passes": taken_back})
    return cells


def _listed(one: dict[str, Any], zone: str) -> dict[str, Any]:
    return {
        "request": one["request"],
        "org": one["org"],
        "crew": one["crew"],
        "code": one["typed"].replace("-", "")[-CODE_SHOWN:],
        "to": one["zone"] if zone and one["zone"] != zone else "",
        "revoked": one.get("revoked") or "",
    }


def _latin(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def render(match_name: str, venue: str, passes: list[dict[str, Any]]) -> bytes:
    """Three passes to an A4 page: each its QR code, the code to type, the match and its
    kick-off, the zones' names and the crew, each phase with its times; a revoked one says
    so across it."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title(_latin(f"Passes: {match_name}"))
    if not passes:
        pdf.add_page()
        pdf.set_font("Helvetica", size=14)
        pdf.cell(0, 10, _latin(f"{match_name}: no passes (none published)"))
    for n, one in enumerate(passes):
        if n % 3 == 0:
            pdf.add_page()
        top = 12 + (n % 3) * 92
        pdf.rect(10, top, 190, 86)
        qr = io.BytesIO()
        segno.make(one["code"], error="m").save(qr, kind="png", scale=6, border=2)
        qr.seek(0)
        pdf.image(qr, x=14, y=top + 4, w=70, h=70)
        pdf.set_xy(90, top + 4)
        pdf.set_font("Helvetica", "B", 13)  # a long organisation's name wraps in the box
        title = _latin(f"{one['request']} - {one['org']}")
        pdf.multi_cell(105, 5.5, title, align="L", max_line_height=5.5)
        lines = [
            f"{match_name}, {venue}",
            f"Kick-off {one['kickoff']}",
            f"Zones: {', '.join(one['zone_names'])} - crew of {one['crew']}",
        ]
        pdf.set_font("Helvetica", size=10)
        for k, line in enumerate(lines):
            pdf.set_xy(90, top + 17 + k * 5)
            pdf.cell(105, 5, _latin(line))
        pdf.set_font("Helvetica", size=8)  # each phase's times, wrapped within the box
        pdf.set_xy(90, top + 33)
        spans = _latin("; ".join(one["phase_times"]))
        pdf.multi_cell(105, 3.6, spans, align="L", max_line_height=3.6)
        pdf.set_xy(90, top + 57)
        pdf.set_font("Courier", "B", 22)
        pdf.cell(0, 10, one["typed"])
        if one.get("revoked"):
            pdf.set_xy(90, top + 68)
            pdf.set_font("Helvetica", "B", 12)
            pdf.set_text_color(179, 38, 30)
            pdf.cell(0, 8, _latin(f"REVOKED: {one['revoked']}"))
            pdf.set_text_color(0, 0, 0)
    return bytes(pdf.output())


def render_access(match_name: str, venue: str, cells: list[dict[str, Any]]) -> bytes:
    """The access list on A4 pages: each zone and phase its table of the passes let in
    (request, organisation, crew, the code's end), then those taken back."""
    pdf = FPDF(format="A4")
    pdf.set_title(_latin(f"Access list: {match_name}"))
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 9, _latin(f"Access list: {match_name}"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(
        0,
        5,
        _latin(
            f"{venue}. Who may enter each zone in each phase (published grants). A pass lets"
            " in as many people as its crew; its code ends as shown here."
        ),
        new_x="LMARGIN",
        new_y="NEXT",
    )
    if not cells:
        pdf.ln(4)
        pdf.cell(0, 8, "Nothing published yet: nobody may enter.")
    for cell in cells:
        pdf.ln(3)
        pdf.set_font("Helvetica", "B", 12)
        title = (
            f"{cell['name']} ({cell['zone']}), {cell['phase']}"
            if cell["zone"]
            else ("Taken back: refuse these passes")
        )
        pdf.cell(0, 7, _latin(title), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        last = "Note" if cell["zone"] else "Why taken back"
        with pdf.table(col_widths=(18, 62, 12, 22, 76), text_align="LEFT") as table:
            heading = table.row()
            for text in ("Request", "Organisation", "Crew", "Code ends", last):
                heading.cell(text)
            for one in cell["passes"]:
                row = table.row()
                note = one["revoked"] or (f"passing through to {one['to']}" if one["to"] else "")
                for text in (one["request"], one["org"], str(one["crew"]), one["code"], note):
                    row.cell(_latin(text))
    return bytes(pdf.output())
