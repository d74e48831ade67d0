"""Real threads against PostgreSQL: the match lock serialises what changes a match.

Skipped on SQLite (one writer at a time by design; the in-memory test database is not
shared between threads); `.ci/run` runs it on the local PostgreSQL.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.errors import ErrorCode
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions, entries
from pitchpass.web.services.accounts import do_add_user

ROOT = Path(__file__).resolve().parents[2]
MATCH = "mun-mci-2099-12-10"
NOW = datetime(2099, 11, 1, tzinfo=UTC)
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def setup_match() -> None:
    text = (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    text = text.replace("mun-mci-2017-12-10", MATCH).replace(
        "kickoff: 2017-12-10T16:30:00+00:00", "kickoff: 2099-12-10T16:30:00+00:00"
    )
    store.load(parse_text(text, "future.yaml"))


def _started(work, count: int, barrier: threading.Barrier | None = None):
    """`count` threads doing `work(n)`, started (each after `barrier`, if given), and the
    list their errors go to."""
    errors: list[BaseException] = []

    def one(n: int) -> None:
        try:
            if barrier is not None:
                barrier.wait()
            work(n)
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    return threads, errors


def run_together(work, count: int) -> list[BaseException]:
    """Start `count` threads at once; the errors they raised."""
    threads, errors = _started(work, count, threading.Barrier(count))
    for thread in threads:
        thread.join()
    return errors


def run_against_the_lock(work, count: int, match_key: str = MATCH) -> list[BaseException]:
    """`count` threads doing `work` while this test holds the match's row lock: each
    is let go only once PostgreSQL shows every one of them waiting for a lock, so the race
    surely happened (threads merely started together may each run alone, one after the
    other, and a test of the lock would pass without it). The errors they raised."""
    import time

    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                m.Match.objects.select_for_update().get(key=match_key)
                held.set()
                done.wait(60)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(30)
    threads, errors = _started(work, count)
    waiting = 0
    for _ in range(600):  # until all wait (a condition, polled: not a measure of time)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            )
            waiting = cursor.fetchone()[0]
        if waiting >= count:
            break
        time.sleep(0.05)
    done.set()
    holder.join()
    for thread in threads:
        thread.join()
    assert waiting == count, f"{waiting} of {count} waited for the lock: no race to test"
    return errors


def test_a_burst_of_submissions_gets_distinct_ids_and_loses_none() -> None:
    setup_match()
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    user = User.objects.get(username="bt")
    before = m.Request.objects.filter(match__key=MATCH).count()
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    errors = run_against_the_lock(lambda n: entries.do_submit_request(user, MATCH, body, NOW), 8)
    assert errors == []
    keys = list(m.Request.objects.filter(match__key=MATCH).values_list("key", flat=True))
    assert len(keys) == before + 8 == len(set(keys))
    # Each took the match lock in turn: a place after every earlier one, a version each.
    new = m.Request.objects.filter(match__key=MATCH).order_by("-position")[:8]
    assert len({r.position for r in new}) == 8
    assert len({r.changed_in for r in new}) == 8
    assert min(r.position for r in new) > max(
        m.Request.objects.filter(match__key=MATCH).exclude(pk__in=[r.pk for r in new])
        .values_list("position", flat=True)
    )  # fmt: skip


def test_one_id_sent_at_once_by_eight_makes_one_request_and_seven_409s() -> None:
    """The id's uniqueness is the database's (checked at the insert, under the lock):
    the other seven are told it exists, nothing half-written, one audit entry."""
    setup_match()
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    user = User.objects.get(username="bt")
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1, "id": "same"}
    before = m.AuditEntry.objects.count()
    errors = run_together(lambda n: entries.do_submit_request(user, MATCH, body, NOW), 8)
    assert [getattr(e, "code", e) for e in errors] == [ErrorCode.DUPLICATE] * 7
    assert all('request "bt-sport.same" exists already' in str(e) for e in errors)
    assert m.Request.objects.filter(match__key=MATCH, key="bt-sport.same").count() == 1
    assert m.AuditEntry.objects.count() == before + 1


def test_two_officers_deciding_at_once_make_two_runs_in_turn() -> None:
    setup_match()
    do_add_user("ed", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("admin", "admin", None, "pw-for-tests-only-7")
    users = [User.objects.get(username="ed"), User.objects.get(username="admin")]
    errors = run_together(lambda n: decisions.do_decide(users[n], MATCH), 2)
    assert errors == []
    runs = m.DecisionRun.objects.filter(match__key=MATCH).order_by("number")
    assert [r.number for r in runs] == [1, 2]
    assert runs[0].output == runs[1].output


def test_an_admin_lowering_a_capacity_while_an_officer_publishes_never_overbooks() -> None:
    """The admin's check of the matches an edit touches takes the match lock: it waits
    for a publish in progress and then sees its locked grants (the edit is refused), or
    the publish waits and finds its run stale. Without the lock the check passed on the
    rows as they were before the publish, and both committed: 46 locked in a room of 40."""
    import time

    from django.test import Client
    from test_admin import zone_form

    setup_match()
    do_add_user("ed", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("boss", "admin", None, "pw-for-tests-only-7")
    officer = User.objects.get(username="ed")
    decisions.do_decide(officer, MATCH)
    tunnel = m.Zone.objects.get(key="tunnel")
    published = threading.Event()
    answers: list[int] = []

    def work(n: int) -> None:
        if n == 0:
            with transaction.atomic():
                decisions.do_publish(officer, MATCH)
                published.set()
                time.sleep(1.0)  # the admin's edit arrives while this is not committed
        else:
            assert published.wait(10)
            client = Client()
            client.force_login(User.objects.get(username="boss"))
            form = zone_form(tunnel, capacity=40)
            answers.append(
                client.post(f"/admin/pitchpass/zone/{tunnel.pk}/change/", form).status_code
            )

    assert run_together(work, 2) == []
    assert answers == [200]  # the form again, refused: the published grants would not fit
    assert m.Zone.objects.get(key="tunnel").capacity == 46
    locked = m.Request.objects.filter(match__key=MATCH, zone__key="tunnel", locked=True)
    assert sum(r.crew for r in locked if "post-match" in r.phases) == 46


def test_an_admin_edit_takes_the_match_lock_before_it_writes_a_row() -> None:
    """As every other change does: then it can never hold a zone's row while waiting for
    a match that a load (which locks its matches, then writes zones) holds: a deadlock."""
    import time

    from django.db.utils import OperationalError
    from django.test import Client
    from test_admin import zone_form

    setup_match()
    do_add_user("boss", "admin", None, "pw-for-tests-only-7")
    tunnel = m.Zone.objects.get(key="tunnel")
    holding = threading.Event()
    free: list[bool] = []

    def work(n: int) -> None:
        if n == 0:
            with transaction.atomic():
                list(m.Match.objects.select_for_update().filter(key=MATCH))  # as a load does
                holding.set()
                time.sleep(1.0)  # the admin's edit is under way meanwhile
                try:
                    list(m.Zone.objects.select_for_update(nowait=True).filter(pk=tunnel.pk))
                    free.append(True)
                except OperationalError:  # the admin wrote the zone first and now waits
                    free.append(False)
        else:
            assert holding.wait(10)
            client = Client()
            client.force_login(User.objects.get(username="boss"))
            form = zone_form(tunnel, capacity=50)
            assert (
                client.post(f"/admin/pitchpass/zone/{tunnel.pk}/change/", form).status_code == 302
            )

    assert run_together(work, 2) == []
    assert free == [True]
    assert m.Zone.objects.get(key="tunnel").capacity == 50  # done once the lock was free


def test_a_form_sent_twice_at_the_same_moment_makes_one() -> None:
    """A double click under a threaded server: both posts arrive at once; the form's mark
    is unique in the database, so the second's transaction fails and makes nothing."""
    from django.test import Client

    setup_match()
    do_add_user("st", "steward", None, "pw-for-tests-only-7")
    do_add_user("docs", "media", "man-city-documentary", "pw-for-tests-only-7")
    board = f"/matches/{MATCH}/"
    forms = {
        "st": (f"{board}incidents/", {"zone": "tunnel", "minute": "3", "once": "same-mark"}),
        "docs": (
            f"{board}requests/new/",
            {
                "zone": "mixed-zone",
                "phases": ["post-match"],
                "crew": "1",
                "once": "same-mark",
                "id": "myref",
            },
        ),
    }
    for username, (url, form) in forms.items():
        answers: list[int] = []

        def send(
            n: int,
            url: str = url,
            form: dict[str, object] = form,
            who: str = username,
            answers: list[int] = answers,
        ) -> None:
            client = Client()
            client.force_login(User.objects.get(username=who))
            answers.append(client.post(url, form).status_code)

        incidents, requests = m.Incident.objects.count(), m.Request.objects.count()
        assert run_together(send, 2) == []
        assert answers == [302, 302]  # both back to the board, one saying it was sent
        made = (m.Incident.objects.count() - incidents) + (m.Request.objects.count() - requests)
        assert made == 1, username


def test_scans_at_two_doors_of_a_zone_at_once_never_pass_its_places() -> None:
    """Issue 26, section 3: a scan locks its zone's row (not the match) and reads who is
    inside after the lock: eight scans at once at the pitch-side doors, for two crews of
    2 and 8, into a zone of 5 places in pre-match, admit at most 5, never more of a crew
    than the crew, and the counts kept with the scans are the core's."""
    from datetime import timedelta

    from pitchpass.web.services import doors

    setup_match()
    do_add_user("ed", "officer", "man-united", "pw-for-tests-only-7")
    do_add_user("st", "steward", None, "pw-for-tests-only-7", venues=["old-trafford"])
    officer, steward = User.objects.get(username="ed"), User.objects.get(username="st")
    decisions.do_decide(officer, MATCH)
    decisions.do_publish(officer, MATCH)
    match = m.Match.objects.get(key=MATCH)

    m.Zone.objects.filter(key="pitch-side").update(capacity_by_phase={"pre-match": 5})
    codes = dict(
        m.Pass.objects.filter(request__match=match, request__key__in=["r25", "r27"]).values_list(
            "request__key", "code"
        )
    )
    assert set(codes) == {"r25", "r27"}
    at = match.kickoff - timedelta(minutes=30)
    verdicts: list[dict[str, object]] = []

    def work(n: int) -> None:
        body = {"code": codes["r25" if n % 2 else "r27"], "zone": "pitch-side",
                "phase": "pre-match", "direction": "in"}  # fmt: skip
        verdicts.append(doors.do_check_in(steward, MATCH, body, at + timedelta(seconds=n)))

    assert run_together(work, 8) == []
    admitted = [v for v in verdicts if v["result"] == "admitted"]
    assert len(admitted) == 5
    assert sum(v.get("request") == "r25" for v in admitted) <= 2
    rows = list(m.Scan.objects.filter(match=match, zone="pitch-side").order_by("scanned", "id"))
    replay = [
        doors.core.Scan(r.request, "pitch-side", r.direction, 0.0, r.result == "admitted")
        for r in rows
    ]
    assert [(r.crew_inside, r.zone_inside) for r in rows] == doors.core.counted(replay, {})
    assert max(r.zone_inside for r in rows) == 5


def test_two_matches_writes_never_wait_for_each_other() -> None:
    """Issue 28 (section 4): while a submission to one match holds its transaction open
    (the match's lock, its audit chain's head), a submission to another match and an
    account's audit entry go through without waiting for any lock: each is made with a
    lock timeout that would fail it at the first wait (a site-wide audit head made them
    all wait)."""
    from django.db import OperationalError

    setup_match()
    other = "mun-mci-2099-12-17"
    text = (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    store.load(parse_text(text.replace("mun-mci-2017-12-10", other).replace(
        "kickoff: 2017-12-10T16:30:00+00:00", "kickoff: 2099-12-17T16:30:00+00:00"
    ), "other.yaml"))  # fmt: skip
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    user = User.objects.get(username="bt")
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                entries.do_submit_request(user, MATCH, body, NOW)
                held.set()
                done.wait(60)
        finally:
            connection.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(30)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '200ms'")
            entries.do_submit_request(user, other, body, NOW)
            do_add_user("al", "steward", None, "pw-for-tests-only-7")
    except OperationalError as waited:  # "canceling statement due to lock timeout"
        pytest.fail(f"a write to another match waited for a lock: {waited}")
    finally:
        done.set()
        holder.join()
    assert m.Request.objects.filter(match__key=other).count() > 0
    from pitchpass.web.persistence.audit import verify

    verified = verify()
    assert (verified.broken, verified.cut, verified.added) == (None, False, None)
