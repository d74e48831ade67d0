"""A form sent twice (a double click, back and send again) makes one thing: each form the
pages make carries a mark (`once`); what it made is kept with the mark and a fingerprint
of what it held, so the same form sent again finds it, while one changed after going back
is a new request, as the user means it."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User

from pitchpass.web.persistence import models as m

ONCE = re.compile(r"[A-Za-z0-9_-]{1,40}")  # as secrets.token_urlsafe makes them
SKIPPED = ("csrfmiddlewaretoken", "once")


def mark(once: str) -> str:
    """The form's mark, if it is one the page made (anything else: no mark)."""
    return once if ONCE.fullmatch(once) else ""


def fingerprint(posted: Any) -> str:
    """What a form holds (a QueryDict), but its mark."""
    fields = sorted((k, sorted(v)) for k, v in posted.lists() if k not in SKIPPED)
    return hashlib.sha256(repr(fields).encode()).hexdigest()


def made_by(user: User, once: str, posted: Any) -> str | None:
    """The id made when this very form was sent with the same data, if it was."""
    if not mark(once):
        return None
    found = m.SentForm.objects.filter(once=once, fingerprint=fingerprint(posted), user=user)
    return found.values_list("made", flat=True).first()


def remember(user: User, once: str, posted: Any, made: str, now: datetime) -> None:
    """Inside the transaction that made `made`: a twin sent at the same moment fails on
    the unique constraint (IntegrityError) and its transaction rolls back."""
    if mark(once):
        m.SentForm.objects.filter(when__lt=now - timedelta(days=1)).delete()
        m.SentForm.objects.create(once=once, fingerprint=fingerprint(posted), user=user, made=made)
