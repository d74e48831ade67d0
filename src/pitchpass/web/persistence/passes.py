"""Passes, made as grants are published: a publish, an offer from the waitlist accepted,
a load of a scenario whose requests are `locked` (published already). Reading them (the
passes page, the API, a door's offline list) writes nothing."""

from __future__ import annotations

import secrets

from django.db.models import Q, QuerySet

from pitchpass.web.persistence import models as m

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: typed from a phone screen
CODE_LENGTH = 10
# A published grant: held now, or published on the desk and taken back since (its pass
# says so, as a pass listed before it was taken back does).
PUBLISHED = Q(locked=True) | (Q(granted_at__isnull=False) & ~Q(revoked=""))


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def make_passes(requests: QuerySet[m.Request]) -> int:
    """A pass for each of `requests` published and with none yet; how many were made.
    The caller holds the lock of their matches (or writes them in its own transaction)."""
    missing = list(requests.filter(PUBLISHED, pass_of__isnull=True).values_list("pk", flat=True))
    codes = _free_codes(len(missing))
    m.Pass.objects.bulk_create(
        [m.Pass(request_id=pk, code=code) for pk, code in zip(missing, codes, strict=True)],
        batch_size=500,
    )
    return len(missing)


def _free_codes(count: int) -> list[str]:
    """`count` new codes, none another pass's (32**10 of them: a clash is as good as
    never, but never a duplicate), checked in one query."""
    codes: set[str] = set()
    while len(codes) < count:
        wanted = sorted({new_code() for _ in range(count - len(codes))} - codes)
        for n in range(0, len(wanted), 500):  # a database's limit of parameters
            some = wanted[n : n + 500]
            taken = set(m.Pass.objects.filter(code__in=some).values_list("code", flat=True))
            codes.update(c for c in some if c not in taken)
    return sorted(codes)
