"""A submission with its id, to a match submitted to since its load, is written to
PostgreSQL in one round trip under the lock (persistence/submission.py): the same rows,
places, versions and audit seals as the step-by-step write, the same 409 for a taken id,
and the step-by-step write again when the lock shows a load landed since the check.

Skipped on SQLite (written step by step there); `.ci/run` runs it on PostgreSQL.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from test_concurrency import MATCH, NOW, run_together, setup_match

from pitchpass.web.errors import ErrorCode, ServiceError
from pitchpass.web.persistence import audit, store, submission
from pitchpass.web.persistence import models as m
from pitchpass.web.services import entries
from pitchpass.web.services.accounts import do_add_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]
BODY = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}


def _ready() -> User:
    """The seed match, a broadcaster's user, and a first submission (the match's first
    since its load: written step by step, as it records the kind of web change)."""
    setup_match()
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    user = User.objects.get(username="bt")
    entries.do_submit_request(user, MATCH, {**BODY, "id": "first"}, NOW)
    assert "submit" in m.Match.objects.get(key=MATCH).web_changes
    return user


def _one_trip(queries: CaptureQueriesContext) -> bool:
    return any("WITH t AS MATERIALIZED" in q["sql"] for q in queries.captured_queries)


def test_one_trip_writes_what_the_steps_write_and_seals_as_audit_does() -> None:
    user = _ready()
    first = m.Request.objects.get(key="bt-sport.first")
    with CaptureQueriesContext(connection) as queries:
        entries.do_submit_request(user, MATCH, {**BODY, "id": "second", "crew": 2}, NOW)
    assert _one_trip(queries)
    match = m.Match.objects.get(key=MATCH)
    second = m.Request.objects.get(key="bt-sport.second")
    assert second.position == first.position + 1
    assert second.changed_in == match.version == first.changed_in + 1
    assert (second.crew, second.phases, second.by.key, second.zone.key) == (
        2, ["post-match"], "bt-sport", "mixed-zone",
    )  # fmt: skip
    before, entry = m.AuditEntry.objects.order_by("-pk")[:2][::-1]
    assert (entry.action, entry.target, entry.user_id) == ("submit", second.key, user.pk)
    assert entry.after == store.request_json(MATCH, second)
    assert entry.when.microsecond % 1000 == 0  # to the millisecond, as sealed
    assert entry.when >= before.when
    assert entry.digest == audit.seal(before.digest, entry)
    head = m.AuditHead.objects.get(pk=1)
    assert (head.digest, head.entries) == (entry.digest, m.AuditEntry.objects.count())
    assert audit.verify().broken is None and not audit.verify().cut


def test_a_taken_id_is_a_409_in_one_trip_too() -> None:
    """Eight sending one id at once: one request, seven 409s, one audit entry."""
    user = _ready()
    count = m.AuditEntry.objects.count()
    body = {**BODY, "id": "same"}
    errors = run_together(lambda n: entries.do_submit_request(user, MATCH, body, NOW), 8)
    assert [getattr(e, "code", e) for e in errors] == [ErrorCode.DUPLICATE] * 7
    assert m.Request.objects.filter(key="bt-sport.same").count() == 1
    assert m.AuditEntry.objects.count() == count + 1
    assert audit.verify().broken is None


def test_a_burst_in_one_trip_each_keeps_the_order_and_the_chain() -> None:
    user = _ready()
    before = set(m.Request.objects.values_list("pk", flat=True))
    last = max(m.Request.objects.values_list("position", flat=True))
    errors = run_together(
        lambda n: entries.do_submit_request(user, MATCH, {**BODY, "id": f"b{n}"}, NOW), 8
    )
    assert errors == []
    new = list(m.Request.objects.exclude(pk__in=before))
    assert len(new) == 8
    assert sorted(r.position for r in new) == list(range(last + 1, last + 9))
    assert len({r.changed_in for r in new}) == 8
    verified = audit.verify()
    assert verified.broken is None and not verified.cut


def test_a_load_landing_before_the_lock_sends_it_the_step_by_step_way(monkeypatch) -> None:
    """The frame moved between the check and the lock (kick-off moved to the past by
    another transaction): rolled back, checked again under the lock, refused; nothing
    written, the version as it was."""
    user = _ready()
    real = submission.write

    def after_an_edit(*args: object) -> None:
        def edit() -> None:
            m.Match.objects.filter(key=MATCH).update(kickoff=datetime(2000, 1, 1, tzinfo=UTC))
            store.frames_changed()
            connection.close()

        elsewhere = threading.Thread(target=edit)  # its own connection: committed
        elsewhere.start()
        elsewhere.join()
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(submission, "write", after_an_edit)
    requests = m.Request.objects.count()
    entries_before = m.AuditEntry.objects.count()
    version = m.Match.objects.get(key=MATCH).version
    with pytest.raises(ServiceError) as refused:
        entries.do_submit_request(user, MATCH, {**BODY, "id": "late"}, NOW)
    assert refused.value.code == ErrorCode.DEADLINE_PASSED
    assert m.Request.objects.count() == requests
    assert m.AuditEntry.objects.count() == entries_before
    assert m.Match.objects.get(key=MATCH).version == version


def test_audit_times_follow_the_chain_whichever_way_entries_are_written() -> None:
    """From an independent review: entries written in one trip are timed by the
    database; so are those written step by step on PostgreSQL (audit.audit), so that the
    times never go back along the chain (the admin's list is in time order)."""
    user = _ready()
    start = m.AuditEntry.objects.order_by("-pk").values_list("pk", flat=True)[0]
    for n in range(20):  # one trip with an id, step by step without one
        entries.do_submit_request(user, MATCH, {**BODY, **({"id": f"o{n}"} if n % 2 else {})}, NOW)
    times = list(
        m.AuditEntry.objects.filter(pk__gte=start).order_by("pk").values_list("when", flat=True)
    )
    assert len(times) == 21 and times == sorted(times)
    assert all(t.microsecond % 1000 == 0 for t in times)
    assert audit.verify().broken is None


def test_a_match_removed_before_the_lock_is_a_404(monkeypatch) -> None:
    """From an independent review: a match removed between its read and the lock is
    not found (404), whether its row was kept or read just then."""
    from pitchpass.web.services import access

    user = _ready()
    real = submission.write

    def after_a_removal(*args: object) -> None:
        def gone() -> None:
            m.Match.objects.filter(key=MATCH).delete()
            connection.close()

        elsewhere = threading.Thread(target=gone)
        elsewhere.start()
        elsewhere.join()
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(submission, "write", after_a_removal)
    for kept in (False, True):
        access.forget_rows()
        if kept:
            setup_match()  # made again
            access.match_to_submit_to(user, MATCH)
        with pytest.raises(ServiceError) as missing:
            entries.do_submit_request(user, MATCH, {**BODY, "id": f"gone-{kept}"}, NOW)
        assert missing.value.code == ErrorCode.NOT_FOUND
