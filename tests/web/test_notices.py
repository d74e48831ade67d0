"""Notices (issue 11, section 2): each change tells the organisations concerned, one
e-mail per user per change, signed webhooks retried and logged, and never a word of
another organisation's requests."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult
from servers import env, free_port
from standardwebhooks import Webhook
from test_workflow_api import MATCH, ROOT, future_derby

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import sending
from pitchpass.web.services.accounts import do_add_user, do_create_token
from pitchpass.web.task_worker import run

# Committed for real: the worker run here (task_worker.run) closes its database connection
# between tasks as Django's worker does, which ends a test's enclosing transaction on
# PostgreSQL.
pytestmark = pytest.mark.django_db(transaction=True)

# The documentary's own requests: r24 (refused, the tunnel full) and r25 (granted).
DOCS = {"r24", "r25"}


@pytest.fixture
def desk() -> dict[str, Client]:
    store.load(future_derby())
    users = {
        "officer": ("officer", "man-united"),
        "away": ("officer", "man-city"),
        "docs": ("media", "man-city-documentary"),
        "docs2": ("media", "man-city-documentary"),
        "bt": ("media", "bt-sport"),
        "steward": ("steward", None),
    }
    clients = {}
    for name, (role, org) in users.items():
        person = "Dana Frame" if name == "docs" else ""  # the others are greeted by username
        do_add_user(name, role, org, "pw-for-tests-only-7", f"{name}@example.org", None, person)
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token(name)}")
    return clients


def _post(client: Client, path: str, body: dict[str, Any] | None = None) -> Any:
    answer = client.post(f"/api/matches/{MATCH}/{path}", body or {}, "application/json")
    assert answer.status_code < 300, answer.content
    return answer


def _mails_to(address: str) -> list[Any]:
    return [x for x in mail.outbox if address in x.to]


def test_a_decide_and_a_publish_each_send_one_mail_per_user(desk) -> None:
    _post(desk["officer"], "decide")
    decided = m.Notice.objects.filter(kind="decided")
    assert {n.request for n in decided if n.organisation.key == "man-city-documentary"} == DOCS
    assert mail.outbox == []  # nothing is sent inside the request: the worker sends
    run(batch=True)
    docs = _mails_to("docs@example.org")
    assert len(docs) == 1, "one e-mail for the whole decide, not one per request"
    body = docs[0].body
    assert "r24" in body and "r25" in body and "proposed refused" in body
    assert "46 of 46" in body  # the reason, in numbers
    assert body.startswith("Hello Dana Frame,\n")  # by name; docs2 has none: its username
    assert _mails_to("docs2@example.org")[0].body.startswith("Hello docs2,\n")
    kickoff = m.Match.objects.get(key=MATCH).kickoff
    assert f"kick-off {kickoff:%a} {kickoff.day} {kickoff:%b %Y, %H:%M} UTC" in body
    assert "/passes/" not in body  # nothing granted yet: no pass to link
    # Nothing of another organisation's requests: r02 is BT Sport's.
    assert "r02" not in body and "BT Sport" not in body
    assert len(_mails_to("bt@example.org")) == 1 and "r02" in _mails_to("bt@example.org")[0].body
    assert "r24" not in _mails_to("bt@example.org")[0].body

    _post(desk["officer"], "publish")
    run(batch=True)
    published = _mails_to("docs@example.org")[1]
    assert "r25" in published.body and "granted (published)" in published.body
    assert "r24" in published.body and "refused (published)" in published.body
    base = settings.PITCHPASS_BASE_URL
    assert (
        f"Your passes (print them, or show them at the door): {base}/matches/{MATCH}/passes/"
        in (published.body)
    )
    # Run again (a worker restarted), the tasks send nothing twice.
    sent = len(mail.outbox)
    for row in DBTaskResult.objects.all():
        row.status = TaskResultStatus.READY
        row.save(update_fields=["status"])
    run(batch=True)
    assert len(mail.outbox) == sent

    # Decided and published again alike: nothing new to tell the documentary.
    _post(desk["officer"], "decide")
    _post(desk["officer"], "publish")
    run(batch=True)
    assert len(_mails_to("docs@example.org")) == 2


def test_each_user_and_organisation_chooses_what_it_hears_of(desk) -> None:
    m.Organisation.objects.filter(key="man-city-documentary").update(notices=["granted"])
    m.Profile.objects.filter(user__username="docs2").update(notices=["refused", "granted"])
    _post(desk["officer"], "decide")
    _post(desk["officer"], "publish")
    run(batch=True)
    docs, docs2 = _mails_to("docs@example.org"), _mails_to("docs2@example.org")
    assert len(docs) == 1 and "r25" in docs[0].body and "r24" not in docs[0].body
    assert len(docs2) == 1 and "r24" in docs2[0].body and "r25" in docs2[0].body
    assert m.NoticeMail.objects.filter(user__username="docs").count() == 1


def test_revoke_consent_and_incidents_are_told_to_whom_they_concern(desk) -> None:
    _post(desk["officer"], "decide")
    _post(desk["officer"], "publish")
    run(batch=True)
    mail.outbox.clear()
    _post(desk["officer"], "requests/r25/revoke", {"reason": "crew not accredited"})
    # A request for City's own dressing room asks City (the away club) for consent.
    room = {"id": "docs-room", "zone": "away-dressing-room", "phases": ["pre-match"], "crew": 1}
    answer = desk["bt"].post(f"/api/matches/{MATCH}/requests", room, "application/json")
    assert answer.status_code == 201, answer.content
    # The altercation in the tunnel after the match: told to those holding places there.
    _post(desk["steward"], "incidents", {"zone": "tunnel", "minute": 125, "what": "scuffle"})
    run(batch=True)
    docs = _mails_to("docs@example.org")
    assert len(docs) == 1 and "revoked: crew not accredited" in docs[0].body
    away = _mails_to("away@example.org")
    assert len(away) == 1 and "docs-room" in away[0].body and "consent" in away[0].body
    assert _mails_to("officer@example.org") == []  # not United's room
    bt = _mails_to("bt@example.org")  # r02 holds the tunnel after the match
    assert len(bt) == 1 and "scuffle" in bt[0].body and "docs-room" not in bt[0].body
    holders = set(
        m.Notice.objects.filter(kind="incident").values_list("organisation__key", flat=True)
    )
    assert "bt-sport" in holders and "man-city-documentary" not in holders  # r24 refused


# Webhooks, received by a real HTTP server on this machine.


class Receiver(BaseHTTPRequestHandler):
    got: list[tuple[dict[str, str], bytes]]
    answers: list[int]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        self.got.append((dict(self.headers.items()), body))
        self.send_response(self.answers.pop(0) if self.answers else 204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, type[Receiver]]]:
    handler = type("Handler", (Receiver,), {"got": [], "answers": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hooks/pitchpass", handler
    server.shutdown()
    server.server_close()


def test_webhooks_are_signed_retried_and_logged(desk, receiver, settings) -> None:
    settings.PITCHPASS_WEBHOOK_PRIVATE = True  # the receiver is on this machine
    settings.PITCHPASS_TASK_RETRY_DELAY = 0
    url, handler = receiver
    handler.answers = [503]  # the first delivery fails: tried again
    org = m.Organisation.objects.get(key="man-city-documentary")
    secret = sending.new_secret()
    m.WebhookEndpoint.objects.create(organisation=org, url=url, secret=secret, kinds=["granted"])
    _post(desk["officer"], "decide")
    _post(desk["officer"], "publish")
    run(batch=True)  # the failed attempt queues the next, due at once (no wait in tests)
    run(batch=True)
    assert len(handler.got) == 2  # only r25's grant (the endpoint chose "granted")
    for headers, body in handler.got:
        # The receiving side: the signature checks with the shared secret...
        event = Webhook(secret).verify(body, headers)
        assert event["type"] == "notice.granted" and event["data"]["request"] == "r25"
        assert event["data"]["match"] == MATCH and event["data"]["zone"] == "pitch-side"
        # ...and with no other secret, nor for another body.
        with pytest.raises(Exception, match="signature"):
            Webhook(sending.new_secret()).verify(body, headers)
        with pytest.raises(Exception, match="signature"):
            Webhook(secret).verify(body.replace(b"r25", b"r24"), headers)
    assert handler.got[0][0]["webhook-id"] == handler.got[1][0]["webhook-id"]  # one message
    log = list(m.WebhookDelivery.objects.order_by("attempt"))
    assert [(d.attempt, d.ok, d.status) for d in log] == [(1, False, 503), (2, True, 204)]
    failed = DBTaskResult.objects.filter(status=TaskResultStatus.FAILED)
    assert [r.task_path.rsplit(".", 1)[-1] for r in failed] == ["send_webhook"]


def test_a_webhook_to_a_private_address_is_refused(desk, receiver, settings) -> None:
    url, handler = receiver
    assert "not a public address" in (sending.check_url(url) or "")
    assert "not a public address" in (sending.check_url("http://10.1.2.3/x") or "")
    assert "not a public address" in (sending.check_url("http://[::ffff:127.0.0.1]/") or "")
    assert "no user name" in (sending.check_url("https://u:p@example.org/") or "")
    assert "https://" in (sending.check_url("file:///etc/passwd") or "")
    org = m.Organisation.objects.get(key="man-city-documentary")
    m.WebhookEndpoint.objects.create(organisation=org, url=url, secret=sending.new_secret())
    _post(desk["officer"], "decide")
    run(batch=True)
    assert handler.got == []  # nothing was sent, and nothing is tried again
    log = list(m.WebhookDelivery.objects.all())
    assert log and all("not a public address" in d.error and not d.ok for d in log)
    assert not DBTaskResult.objects.filter(status=TaskResultStatus.READY).exists()


def test_a_failed_mail_is_tried_again_for_the_users_not_yet_sent(desk, settings) -> None:
    settings.PITCHPASS_TASK_RETRY_DELAY = 60
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    _post(desk["officer"], "decide")
    run(batch=True)
    failed = DBTaskResult.objects.get(status=TaskResultStatus.FAILED)
    assert "e-mail not sent to" in failed.traceback
    again = DBTaskResult.objects.get(status=TaskResultStatus.READY)
    assert again.run_after - failed.finished_at >= timedelta(seconds=59)
    assert not m.NoticeMail.objects.exists()
    # The mail server back: the next attempt sends them all, once.
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    again.run_after = None
    again.save(update_fields=["run_after"])
    run(batch=True)
    assert len(_mails_to("docs@example.org")) == 1
    assert json.loads(json.dumps(again.args_kwargs))["kwargs"] == {"attempt": 2}


def test_the_notices_page_lists_what_changed_since_the_last_visit(desk) -> None:
    _post(desk["officer"], "decide")
    page = Client()
    page.login(username="docs", password="pw-for-tests-only-7")
    board = page.get(f"/matches/{MATCH}/").content.decode()
    assert "2 new" in board  # the header says so on every page
    first = page.get("/notices/").content.decode()
    assert first.count('class="new"') == 2 and "r24" in first and "46 of 46" in first
    assert "r02" not in first and "BT Sport" not in first  # never another's request
    assert "What changed for Manchester City documentary crew (for Amazon Prime Video)" in first
    # The GET wrote nothing: the page, once shown, posts that it was seen (hx-trigger
    # load), up to the moment it was made.
    assert m.Profile.objects.get(user__username="docs").notices_seen is None
    upto = re.search(r'hx-vals=\'\{"upto": "([^"]+)"\}\'', first)
    assert upto is not None and 'hx-post="/notices/seen/"' in first
    assert page.post("/notices/seen/", {"upto": upto[1]}).status_code == 204
    again = page.get("/notices/").content.decode()
    assert 'class="new"' not in again and "r24" in again  # seen: listed, no longer new
    assert "/notices/seen/" not in again  # nothing new: nothing to post
    assert page.post("/notices/seen/", {"upto": "yesterday"}).status_code == 400
    assert page.get("/notices/seen/").status_code == 302  # to the page, as a bookmark
    # The API lists the same lines, word for word, and reading it is not a visit.
    listed = page.get("/api/notices").json()["items"]
    assert [(n["request"], n["kind"], n["new"]) for n in listed] == [
        ("r25", "decided", False),
        ("r24", "decided", False),
    ]
    assert all(n["text"] in again for n in listed)
    assert page.get("/api/notices?kind=granted").json()["items"] == []
    wrong = page.get("/api/notices?kind=everything")
    assert wrong.status_code == 400 and wrong.json()["path"] == "kind"
    assert Client().get("/api/notices").status_code == 401
    # Ticked: the user hears of refusals alone (the page keeps listing everything).
    chose = page.post("/notices/choose/", {"follow": "mine", "kind": ["refused"]}, follow=True)
    assert "you hear of refused" in chose.content.decode()
    assert m.Profile.objects.get(user__username="docs").notices == ["refused"]
    bad = page.post("/notices/choose/", {"follow": "mine", "kind": ["everything"]}, follow=True)
    assert bad.status_code == 200 and "unknown kind of notice: everything" in bad.content.decode()
    page.post("/notices/choose/", {"follow": "organisation"})
    assert m.Profile.objects.get(user__username="docs").notices is None
    # A steward acts for no organisation: nothing to list, and the page says so.
    steward = Client()
    steward.login(username="steward", password="pw-for-tests-only-7")
    told = steward.get("/notices/").content.decode()
    assert "Nothing yet" in told and "you act for none" in told


def test_webhook_listen_checks_what_pitchpass_sends(desk, settings, tmp_path) -> None:
    """`pitchpass webhook listen`, the receiver to try webhooks with, in its own process:
    it prints each message whose signature checks, once, and refuses a forged one."""
    settings.PITCHPASS_WEBHOOK_PRIVATE = True
    port = free_port()
    endpoint = sending.add_endpoint(
        "man-city-documentary", f"http://127.0.0.1:{port}/", ["granted", "refused"]
    )
    listener = subprocess.Popen(
        [sys.executable, "-m", "pitchpass", "webhook", "listen", "--secret", endpoint.secret,
         "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env(tmp_path),
    )  # fmt: skip
    try:
        assert listener.stdout is not None
        assert listener.stdout.readline().startswith("listening at")
        _post(desk["officer"], "decide")
        _post(desk["officer"], "publish")
        run(batch=True)
        lines = [listener.stdout.readline(), listener.stdout.readline()]
        said = {line.split()[0]: line for line in lines}
        assert set(said) == {"notice.granted", "notice.refused"}
        assert '"request": "r25"' in said["notice.granted"]
        assert '"request": "r24"' in said["notice.refused"] and "46 of 46" in lines[1] + lines[0]
        forged = urllib.request.Request(
            f"http://127.0.0.1:{port}/", b'{"type": "notice.granted"}',
            headers={"webhook-id": "msg_x", "webhook-timestamp": str(int(time.time())),
                     "webhook-signature": "v1,AAAA"},
        )  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(forged, timeout=5)
        assert refused.value.code == 401
        assert "refused a message" in listener.stdout.readline()
        assert [d.ok for d in m.WebhookDelivery.objects.all()] == [True, True]
    finally:
        listener.terminate()
        listener.wait(timeout=10)


@pytest.mark.django_db(transaction=True)
def test_webhooks_are_added_checked_and_listed_from_the_command_line(cli_here, settings) -> None:
    """In this process (issue 28, section 10): each case's exit code and words."""
    loaded = cli_here("load", str(ROOT / "scenarios" / "manchester-derby-2017.yaml"))
    assert loaded.returncode == 0, loaded.stderr
    settings.PITCHPASS_WEBHOOK_PRIVATE = False
    private = cli_here("webhook", "add", "bt-sport", "http://127.0.0.1:9/")
    assert private.returncode == 2 and "not a public address" in private.stderr
    assert "Traceback" not in private.stderr
    unknown = cli_here("webhook", "add", "bt", "https://example.org/", "--kind", "granted")
    assert unknown.returncode == 2 and 'unknown organisation "bt"' in unknown.stderr
    settings.PITCHPASS_WEBHOOK_PRIVATE = True
    added = cli_here("webhook", "add", "bt-sport", "http://127.0.0.1:9/hook", "--kind", "granted")
    assert added.returncode == 0, added.stderr
    assert "secret: whsec_" in added.stdout
    listed = cli_here("webhook", "list")
    assert "bt-sport  http://127.0.0.1:9/hook  granted  no delivery yet" in listed.stdout
    number = re.search(r"webhook (\d+) added", added.stdout)
    assert number, added.stdout  # its id (PostgreSQL's sequences do not start again at 1)
    assert cli_here("webhook", "remove", number[1]).returncode == 0
    assert cli_here("webhook", "remove", number[1]).returncode == 2


def test_a_name_with_a_line_break_kept_from_before_still_gets_its_mail(desk) -> None:
    # A load and the admin now refuse a line break in a name (models.plain_name); a row
    # written before that made Django refuse the subject line, and the match's e-mail
    # was dropped for every user with no word but a log line. Such a row now stops a
    # decide with a 409 that says where; a mail composed meanwhile keeps to one line.
    _post(desk["officer"], "decide")
    m.Organisation.objects.filter(key="man-city-documentary").update(name="Docs\nBcc: x@evil")
    run(batch=True)
    docs = _mails_to("docs@example.org")
    assert len(docs) == 1
    assert "\n" not in docs[0].subject and "for Docs Bcc: x@evil at" in docs[0].subject
    assert docs[0].bcc == []
    again = desk["officer"].post(f"/api/matches/{MATCH}/decide", {}, "application/json")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    assert "organisations[" in again.json()["message"]


def test_the_admin_refuses_a_name_of_two_lines(desk) -> None:
    from django.contrib.auth.models import User

    do_add_user("boss", "admin", None, "pw-for-tests-only-7")
    admin = Client()
    admin.force_login(User.objects.get(username="boss"))
    org = m.Organisation.objects.get(key="bt-sport")
    url = f"/admin/pitchpass/organisation/{org.pk}/change/"
    form = {"key": "bt-sport", "name": "BT\r\nSport", "kind": "broadcaster", "position": 0}
    answer = admin.post(url, {**form, "notices": "null"})
    assert answer.status_code == 200  # the form again, with the error
    assert b"control character or line break (U+000D)" in answer.content
    assert m.Organisation.objects.get(key="bt-sport").name == "BT Sport"


def test_the_admins_webhook_page_shows_its_deliveries(desk, receiver, settings) -> None:
    # The page was a 500: its inline of the last 50 deliveries sliced the queryset that
    # the admin then filters by the endpoint.
    from django.contrib.auth.models import User

    settings.PITCHPASS_WEBHOOK_PRIVATE = True
    url, _handler = receiver
    org = m.Organisation.objects.get(key="man-city-documentary")
    hook = m.WebhookEndpoint.objects.create(organisation=org, url=url, secret=sending.new_secret())
    _post(desk["officer"], "decide")
    run(batch=True)
    do_add_user("boss", "admin", None, "pw-for-tests-only-7")
    admin = Client()
    admin.force_login(User.objects.get(username="boss"))
    page = admin.get(f"/admin/pitchpass/webhookendpoint/{hook.pk}/change/")
    assert page.status_code == 200
    delivered = m.WebhookDelivery.objects.filter(endpoint=hook)
    assert delivered.count() == 2 and all(d.ok for d in delivered)  # r24 and r25
    assert f"?endpoint__id__exact={hook.pk}".encode() in page.content
    assert b"2 deliveries" in page.content
    # Named by its own id and its organisation's key (it was the organisation's pk alone).
    assert f"webhook {hook.pk} of man-city-documentary".encode() in page.content
    # An empty list of kinds (every kind) reads empty, not `null`.
    added = admin.get("/admin/pitchpass/webhookendpoint/add/").content.decode()
    kinds = re.search(r'<textarea name="kinds"[^>]*>([^<]*)</textarea>', added)
    assert kinds is not None and kinds[1].strip() == ""


@pytest.mark.parametrize(
    "address",
    ["[::7f00:1]", "[::ffff:0:7f00:1]", "[64:ff9b::a9fe:a9fe]", "[fec0::1]", "224.0.0.1",
     "[ff02::1]", "[2002:7f00:1::1]", "240.0.0.1", "[::ffff:127.0.0.1]"],
)  # fmt: skip
def test_a_webhook_to_an_address_that_leads_inside_is_refused(address: str) -> None:
    # Each passed the check: IPv4-compatible, IPv4-translated, NAT64 (to the cloud's
    # metadata address), site-local, multicast (all "global" to Python's ipaddress).
    assert "not a public address" in (sending.check_url(f"http://{address}/hook") or "")


def test_a_webhook_to_a_public_address_passes_the_check() -> None:
    assert sending.check_url("https://8.8.8.8/hook") is None
    assert sending.check_url("https://[2606:4700:4700::1111]/hook") is None


@pytest.fixture
def slow_receiver() -> Iterator[tuple[str, list[int], threading.Event]]:
    """A receiver that takes each connection, reads it, and then answers a byte at a
    time, every 0.1 s, for as long as the test runs: each read is quick, the answer never
    ends. Yields its URL, the connections it took (a list of 1 per connection) and the
    event that stops it."""
    import socket as sockets

    stop = threading.Event()
    taken: list[int] = []
    server = sockets.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)

    def drip(conn: sockets.socket) -> None:
        with conn:
            conn.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\n" + b"X" * 100_000:
                if stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return
                time.sleep(0.1)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            taken.append(1)
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/hook", taken, stop
    stop.set()
    thread.join()
    server.close()


def test_a_receiver_that_never_finishes_holds_the_worker_once(
    desk, slow_receiver, settings
) -> None:
    # One hanging receiver held the only worker 10 s per attempt, per notice: a byte at a
    # time, each read within its timeout, it could hold it for ever. The whole exchange now
    # has its time, and the endpoint's other notices wait for their next attempt.
    settings.PITCHPASS_WEBHOOK_PRIVATE = True
    settings.PITCHPASS_WEBHOOK_TIMEOUT = 0.5
    settings.PITCHPASS_TASK_RETRY_DELAY = 60  # the next attempts are not due in this test
    url, taken, _stop = slow_receiver
    org = m.Organisation.objects.get(key="man-city-documentary")
    m.WebhookEndpoint.objects.create(organisation=org, url=url, secret=sending.new_secret())
    _post(desk["officer"], "decide")  # two notices for the documentary: r24 and r25
    run(batch=True)
    assert len(taken) == 1  # the second notice did not connect
    errors = sorted(d.error for d in m.WebhookDelivery.objects.all())
    assert len(errors) == 2 and not m.WebhookDelivery.objects.filter(ok=True).exists()
    assert errors[0].startswith("TimeoutError: no whole answer within 0.5 s")
    assert errors[1].startswith("held back: it ran out of time at")
    waiting = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
    assert waiting.count() == 2  # both tried again later, after the pause
