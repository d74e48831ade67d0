"""An organisation's passes for a match as a PDF, made by a task (`pitchpass worker`),
never inside a request: the page asks for it and shows it once it is made. A sheet is
made again when the passes change (a publish, a revoke). The PDF uses the core fonts of
PDF, Latin-1: a character outside it is printed as "?"."""

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

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence.changes import lock_match
from pitchpass.web.services import access, doors
from pitchpass.web.services.queue import job

EVERY = "*"  # the scope of a sheet of every pass
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
    wanted = fingerprint(passes)
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
    """Make the sheet of `scope`'s passes as they are now; how many passes it shows."""
    match = m.Match.objects.select_related("home", "away", "venue").get(pk=match_pk)
    org = None if scope == EVERY else m.Organisation.objects.get(key=scope).pk
    passes = doors.passes_of(match, org)
    pdf = render(f"{match.home.name} v {match.away.name}", match.venue.name, passes)
    m.PassSheet.objects.update_or_create(
        match=match,
        scope=scope,
        defaults={"made": fingerprint(passes), "pdf": pdf, "when": timezone.now()},
    )
    return len(passes)


def _latin(text: str) -> str:
    return text.encode("latin-1", "replace").decode("latin-1")


def render(match_name: str, venue: str, passes: list[dict[str, Any]]) -> bytes:
    """Three passes to an A4 page: each its QR code, the code to type, zones, phases and
    crew; a revoked one says so across it."""
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
        pdf.set_xy(90, top + 6)
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 8, _latin(f"{one['request']} - {one['org']}"))
        pdf.set_font("Helvetica", size=11)
        lines = [
            f"{match_name}, {venue}",
            f"Zones: {', '.join(one['zones'])}",
            f"Phases: {', '.join(one['phases'])}",
            f"Crew of {one['crew']}",
        ]
        for k, line in enumerate(lines):
            pdf.set_xy(90, top + 18 + k * 7)
            pdf.cell(0, 6, _latin(line))
        pdf.set_xy(90, top + 52)
        pdf.set_font("Courier", "B", 22)
        pdf.cell(0, 10, one["typed"])
        if one.get("revoked"):
            pdf.set_xy(90, top + 66)
            pdf.set_font("Helvetica", "B", 12)
            pdf.set_text_color(179, 38, 30)
            pdf.cell(0, 8, _latin(f"REVOKED: {one['revoked']}"))
            pdf.set_text_color(0, 0, 0)
    return bytes(pdf.output())
