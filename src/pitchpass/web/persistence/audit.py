"""The audit: append-only, in chains: one per match (its changes) and one for the site
(accounts, sign-ins, what concerns no match). Each entry is sealed with the digest of the
one before it in its chain, so that `pitchpass audit verify` finds the first entry
edited, removed or reordered. A chain's head row is locked until the writing
transaction ends: entries of one chain are written one after another, while two
matches' changes never wait for each other here (each already waits for its own
match's lock)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from pitchpass.web.persistence import models as m

SITE = "site"  # the chain of what concerns no match
COMMAND_LINE = "(command line)"  # who did it, in the audit, when no user of the app did


# What users change on the web (and a fixture list's moves); `pitchpass load` refuses to
# overwrite them (store.load).
WEB_CHANGES = (
    "submit", "change", "withdraw", "publish", "revoke", "consent", "incident", "fixtures",
)  # fmt: skip


def audit(
    user: User | None,
    action: str,
    match: m.Match | None,
    target: str,
    before: Any,
    after: Any,
    username: str = "",
) -> m.AuditEntry:
    """An audit entry, sealed with the digest of the one before it in its chain (the
    match's, else the site's); `username` when there is no user (COMMAND_LINE, or the
    name a failed sign-in tried). Holds the chain's head until the transaction ends.
    Part of the caller's transaction when there is one (no savepoint: a failure here
    fails it)."""
    entry = new_entry(user, action, match, target, before, after, username)
    with transaction.atomic(savepoint=False):
        head = _take_head(entry.chain)
        entry.when = timezone.now()  # once the chain is held: in the chain's order
        entry.digest = seal(head.digest, entry)
        entry.save(force_insert=True)
        head.digest, head.entries = entry.digest, head.entries + 1
        head.save(update_fields=["digest", "entries"])
        if match is not None:
            _note_web_change(match, action)
        return entry


def chain_of(match: m.Match | None) -> str:
    """The chain an entry about `match` (None: about no match) is written in."""
    return SITE if match is None else f"match:{match.pk}"


def new_entry(
    user: User | None,
    action: str,
    match: m.Match | None,
    target: str,
    before: Any,
    after: Any,
    username: str = "",
) -> m.AuditEntry:
    """The entry `audit` writes, not yet timed or sealed."""
    return m.AuditEntry(
        chain=chain_of(match),
        user=user,
        username=username or (user.get_username() if user is not None else ""),
        action=action,
        match=match,
        target=target[:200],
        before=before,
        after=after,
    )


def _take_head(chain: str) -> m.AuditHead:
    """The chain's head, locked until the transaction ends (SQLite has one writer at a
    time: nothing to lock); made with the chain's first entry."""
    heads = m.AuditHead.objects.select_for_update()
    head = heads.filter(chain=chain).first()
    if head is None:
        m.AuditHead.objects.get_or_create(chain=chain)  # another may make it meanwhile
        head = heads.get(chain=chain)
    return head


def _note_web_change(match: m.Match, action: str) -> None:
    """Keep on the match the kinds of web change since its last load (a field: nothing
    is read back from the log). The caller holds the match lock: `match` is current."""
    if action == "load":
        kinds: list[str] = []
    elif action in WEB_CHANGES:
        kinds = sorted({*match.web_changes, action})
    else:
        return
    if kinds != match.web_changes:
        match.web_changes = kinds
        m.Match.objects.filter(pk=match.pk).update(web_changes=kinds)


def seal(previous: str, entry: m.AuditEntry) -> str:
    """The entry's digest: sha256 of the one before and of what the entry says (the JSON
    object of its fields, keys sorted; its time to the millisecond, as a backup (Django's
    JSON) keeps times). The only place a seal is computed."""
    said = {
        "user": entry.user_id,
        "username": entry.username,
        "action": entry.action,
        "match": entry.match_id,
        "target": entry.target,
        "before": entry.before,
        "after": entry.after,
        "when": entry.when.astimezone(UTC).isoformat(timespec="milliseconds"),
    }
    text = json.dumps(said, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{previous}\n{text}".encode()).hexdigest()


@contextmanager
def one_snapshot() -> Iterator[None]:
    """A transaction whose reads all see the database as it was at its first (REPEATABLE
    READ on PostgreSQL; SQLite's transaction, writers waiting for it). Inside a caller's
    transaction, that transaction is the snapshot."""
    inside = connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and not inside:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


@dataclass(frozen=True)
class Verified:
    entries: int
    broken: m.AuditEntry | None  # the first entry whose seal does not hold
    cut: bool  # the newest entries of a chain were removed (its head names one not there)
    # The first entry past its chain head's count: sealed on the chain's end, but not
    # written through the head (every entry written moves the head in the same
    # transaction).
    added: m.AuditEntry | None = None
    chains: int = 0  # how many chains were walked


def verify() -> Verified:
    """Walk every chain from its first entry, in one snapshot with the heads (REPEATABLE
    READ on PostgreSQL; SQLite's read transaction): each seal must be the digest of the
    one before it in its chain and of what the entry says; fewer entries than a head
    counts, or another last digest, and the newest of that chain were removed; more, and
    one was added past the head (a row inserted by hand, sealed on the chain's end).
    Entries written while it walks are not in its snapshot: they are for the next walk
    (on SQLite, writers wait for it, as for a backup)."""
    with one_snapshot():
        heads = {h.chain: h for h in m.AuditHead.objects.all()}
        previous: dict[str, str] = {}
        counts: dict[str, int] = {}
        total = 0
        for entry in m.AuditEntry.objects.order_by("pk").iterator():
            chain = entry.chain
            if entry.digest != seal(previous.get(chain, ""), entry):
                return Verified(total, entry, False)
            head = heads.get(chain)
            if head is None or counts.get(chain, 0) == head.entries:
                return Verified(total, None, False, entry)
            previous[chain], counts[chain] = entry.digest, counts.get(chain, 0) + 1
            total += 1
    cut = any(
        counts.get(chain, 0) != head.entries or previous.get(chain, "") != head.digest
        for chain, head in heads.items()
    )
    return Verified(total, None, cut, chains=len(counts))
