"""A tamper-evident audit (issue 10): entries are append-only (the model refuses to change
or remove one; on PostgreSQL the database too), each sealed with the digest of the one
before; `pitchpass audit verify` names the first entry edited, removed or reordered, and
sees the newest ones removed, exit 1."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.db import DatabaseError, connection, transaction

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.persistence.audit import audit, verify
from pitchpass.web.persistence.models import AppendOnly

pytestmark = pytest.mark.django_db
SEED = Path(__file__).parents[2] / "scenarios" / "manchester-derby-2017.yaml"


def test_entries_are_never_changed_or_removed() -> None:
    entry = audit(None, "test", None, "t", None, {"n": 1}, "(command line)")
    entry.target = "other"
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        entry.delete()
    with pytest.raises(AppendOnly):
        m.AuditEntry.objects.filter(pk=entry.pk).update(target="other")
    with pytest.raises(AppendOnly):
        m.AuditEntry.objects.all().delete()
    assert verify().entries == 1 and verify().broken is None and not verify().cut


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL trigger")
def test_postgresql_itself_refuses_to_change_an_entry() -> None:
    audit(None, "test", None, "t", None, None, "(command line)")
    for statement in (
        "UPDATE pitchpass_auditentry SET target = 'forged'",
        "DELETE FROM pitchpass_auditentry",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert verify().broken is None


@pytest.mark.skipif(connection.vendor != "sqlite", reason="PostgreSQL refuses the edits")
def test_verify_names_the_first_entry_tampered_with(cli_here) -> None:
    """On SQLite (no trigger there), rows edited, removed or reordered behind the app's
    back are found. In this process (issue 28, section 10), over the test's database."""
    assert cli_here("load", str(SEED)).returncode == 0
    for name in ("ed", "al", "jo"):
        added = cli_here("user", "add", name, "--role", "steward", "--password", "a-long-phrase-1")
        assert added.returncode == 0, added.stderr
    intact = cli_here("audit", "verify")
    assert intact.returncode == 0 and "audit intact: 4 entries" in intact.stdout
    with connection.cursor() as db:  # behind the app's back
        db.execute("UPDATE pitchpass_auditentry SET target = 'mallory' WHERE target = 'al'")
    edited = cli_here("audit", "verify")
    assert edited.returncode == 1 and "Traceback" not in edited.stderr
    assert (
        "(user-add mallory" in edited.stderr and "does not follow the 2 before it" in edited.stderr
    )
    with connection.cursor() as db:
        db.execute("UPDATE pitchpass_auditentry SET target = 'al' WHERE target = 'mallory'")
        db.execute("DELETE FROM pitchpass_auditentry WHERE target = 'jo'")
    cut = cli_here("audit", "verify")
    assert cut.returncode == 1 and "the newest entries were removed" in cut.stderr


def test_no_state_is_read_back_from_the_audit_log() -> None:
    """Refused consent, incident ids and the web's changes since a load are fields
    (issue 10): the log is written, and read only to show it and to verify it."""
    import re
    from pathlib import Path

    web = Path(__file__).parents[2] / "src" / "pitchpass" / "web"
    readers = sorted(
        str(path.relative_to(web))
        for path in web.rglob("*.py")
        if "migrations" not in path.parts
        and re.search(
            r"AuditEntry\.objects\.(?!create)|\.audit\.(filter|all|order_by)", path.read_text()
        )
    )
    assert readers == ["persistence/audit.py"]


def test_the_seal_is_the_digest_of_the_entrys_whole_json() -> None:
    """What audit.seal seals is the entry's whole JSON object, keys sorted, after the
    digest of the one before."""
    import hashlib
    import json
    from datetime import UTC, datetime, timedelta, timezone

    from pitchpass.web.persistence import audit

    when = datetime(2099, 5, 1, 12, 30, 15, 123456, tzinfo=timezone(timedelta(hours=2)))
    for after in (None, {"z": [1, 2.5, "é\u202e"], "a": {'"': "}"}}, "when"):
        entry = m.AuditEntry(
            when=when, user_id=7, username='ann"}', action="submit", match_id=3,
            target="r\n1", before={"when": "x"}, after=after,
        )  # fmt: skip
        said = {
            "when": when.astimezone(UTC).isoformat(timespec="milliseconds"), "user": 7,
            "username": 'ann"}', "action": "submit", "match": 3, "target": "r\n1",
            "before": {"when": "x"}, "after": after,
        }  # fmt: skip
        text = json.dumps(said, sort_keys=True, separators=(",", ":"), default=str)
        expected = hashlib.sha256(f"previous\n{text}".encode()).hexdigest()
        assert audit.seal("previous", entry) == expected


def test_a_row_sealed_on_the_chains_end_but_not_through_its_head_is_found() -> None:
    """Issue 28 (section 11): an entry inserted behind the app, sealed correctly on the
    last entry's digest (a plain hash anyone can compute), passed `verify`: the walk
    stopped at the head's count, taking the rest for entries written meanwhile. In one
    snapshot with the head, an entry past its count was not written by the app."""
    from django.utils import timezone

    from pitchpass.web.persistence.audit import new_entry, seal

    audit(None, "user-add", None, "al", None, {"role": "media"}, "(command line)")
    audit(None, "user-add", None, "jo", None, {"role": "media"}, "(command line)")
    intact = verify()
    assert (intact.entries, intact.broken, intact.cut, intact.added) == (2, None, False, None)
    last = m.AuditEntry.objects.order_by("-pk").first()
    assert last is not None
    forged = new_entry(None, "role", None, "al", {"role": "media"}, {"role": "admin"}, "boss")
    forged.when = timezone.now()
    forged.digest = seal(last.digest, forged)
    forged.save(force_insert=True)  # as the app writes an entry, but the head is not moved
    found = verify()
    assert found.added is not None and found.added.target == "al"
    assert (found.entries, found.broken, found.cut) == (2, None, False)


def test_each_match_has_its_chain_and_verify_walks_them_all() -> None:
    """Issue 28 (section 4): a match's entries are chained apart from another's and from
    the site's; an edit in one chain is found, a chain's newest entry removed too."""
    from pitchpass.web.persistence.audit import chain_of

    store.load(yaml.safe_load(SEED.read_text()))
    match = m.Match.objects.first()
    assert match is not None
    audit(None, "incident", match, "i1", None, {"n": 1}, "(command line)")
    audit(None, "user-add", None, "al", None, None, "(command line)")
    audit(None, "incident", match, "i2", None, {"n": 2}, "(command line)")
    chains = dict(m.AuditHead.objects.values_list("chain", "entries"))
    assert chains[chain_of(match)] >= 2 and chains["site"] >= 1
    entries = list(m.AuditEntry.objects.filter(match=match).order_by("pk"))
    assert {e.chain for e in entries} == {chain_of(match)}
    site = m.AuditEntry.objects.filter(chain="site").order_by("-pk").first()
    assert site is not None and site.target == "al"
    intact = verify()
    assert (intact.broken, intact.cut, intact.added) == (None, False, None)
    assert intact.entries == m.AuditEntry.objects.count()
    head = m.AuditHead.objects.get(chain=chain_of(match))
    m.AuditHead.objects.filter(pk=head.pk).update(entries=head.entries + 1)  # one "removed"
    assert verify().cut
