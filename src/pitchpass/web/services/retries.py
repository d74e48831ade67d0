"""Safe retries for the API: a call sent with an `Idempotency-Key` header is answered
once; the same call sent again with the same key (a client retrying after a timeout)
gets the first answer back instead of acting twice (two requests submitted, two
incidents logged). The same key with another call is refused: a client's mistake. Keys
are the user's own, kept a day."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import models as m

KEY = re.compile(r"[\x21-\x7e]{1,100}")  # printable ASCII, no spaces
KEPT = timedelta(days=1)


def fingerprint(method: str, path: str, body: bytes) -> str:
    return hashlib.sha256(b"\0".join([method.encode(), path.encode(), body])).hexdigest()


def begin(user: User, key: str, print_: str, now: datetime) -> tuple[int, Any] | None:
    """The first answer to this key and call, if there is one; None if this call is the
    first (it is now marked as being answered). Refused: a malformed key, the key used
    for another call, or its first call not answered yet."""
    if not KEY.fullmatch(key):
        raise ServiceError(
            ErrorCode.INVALID,
            "an Idempotency-Key is 1 to 100 printable characters, no spaces",
            "Idempotency-Key",
        )
    m.RetriedAnswer.objects.filter(when__lt=now - KEPT).delete()
    try:
        with transaction.atomic():
            m.RetriedAnswer.objects.create(user=user, key=key, fingerprint=print_)
        return None
    except IntegrityError:
        pass
    found = m.RetriedAnswer.objects.filter(user=user, key=key).first()
    if found is None:  # its first call failed and let the key go since: act now
        return begin(user, key, print_, now)
    if found.fingerprint != print_:
        raise ServiceError(
            ErrorCode.CONFLICT,
            "this Idempotency-Key was used for another call: use a new key for a new call",
            "Idempotency-Key",
        )
    if found.status == 0:
        raise ServiceError(
            ErrorCode.CONFLICT,
            "the first call with this Idempotency-Key is still being answered: retry shortly",
            "Idempotency-Key",
        )
    return found.status, found.body


def keep(user: User, key: str, status: int, body: Any) -> None:
    """The first call's answer, for its retries."""
    m.RetriedAnswer.objects.filter(user=user, key=key).update(status=status, body=body)


def together() -> Any:
    """The transaction a keyed call runs in, from its key to its answer: a failure (an
    error, a crash, the database lost) undoes the key with the call, so a retry acts
    afresh; a twin sent at the same moment waits on the key, then gets the answer."""
    return transaction.atomic()
