"""Sending notices (services/notices.py), as tasks run by `pitchpass worker`:

- one e-mail per user per batch (one change), listing that batch's notices of the user's
  organisation that the user hears of (core.notices.wanted); a batch's mail sent to a
  user is written down, so the task run again sends the others only;
- one webhook message per notice and endpoint, signed as the Standard Webhooks
  specification says (headers webhook-id, webhook-timestamp, webhook-signature; the id
  is the notice's, the same on every attempt, for the receiver to skip a repeat), POSTed
  as JSON; anything but a 2xx within PITCHPASS_WEBHOOK_TIMEOUT seconds is tried again
  (services/queue.py), every attempt logged per endpoint (the admin's Webhook
  deliveries). Redirects are not followed. An address that is private, loopback,
  link-local or otherwise not public is refused (the check is on the address connected
  to, so a name that resolves elsewhere the second time gains nothing) unless
  PITCHPASS_WEBHOOK_PRIVATE=1.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import ipaddress
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterable
from datetime import timedelta
from typing import Any
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.contrib.auth.models import User
from django.core.mail import EmailMessage
from django.utils import timezone
from standardwebhooks import Webhook

from pitchpass.core.match_day import notices as core
from pitchpass.core.reading.fields import UNWRITABLE
from pitchpass.web.persistence import models as m
from pitchpass.web.services import times
from pitchpass.web.services.queue import job

log = logging.getLogger("pitchpass.notices")


def queue(batch: str, organisations: Iterable[int]) -> None:
    """Queue a batch's sending (in the transaction that wrote it)."""
    send_mails.enqueue(batch)
    ids = set(organisations)
    endpoints = list(m.WebhookEndpoint.objects.filter(organisation_id__in=ids, active=True))
    if not endpoints:
        return
    rows = list(m.Notice.objects.filter(batch=batch).values_list("pk", "organisation_id", "kind"))
    for endpoint in endpoints:
        for pk, org, kind in rows:
            if org == endpoint.organisation_id and core.wanted(kind, endpoint.kinds, None):
                send_webhook.enqueue(endpoint.pk, pk)


@job(attempts=5)
def send_mails(batch: str) -> int:
    """E-mail each user concerned by the batch once; how many were sent now."""
    notices = list(
        m.Notice.objects.filter(batch=batch).select_related(
            "organisation", "match__home", "match__away"
        )
    )
    by_org: dict[int, list[m.Notice]] = {}
    for notice in notices:
        by_org.setdefault(notice.organisation_id, []).append(notice)
    done = set(m.NoticeMail.objects.filter(batch=batch).values_list("user_id", flat=True))
    sent, failed = 0, []
    for org_id, its in by_org.items():
        org = its[0].organisation
        users = (
            User.objects.filter(is_active=True, profile__organisation_id=org_id)
            .exclude(email="")
            .select_related("profile")
            .order_by("pk")
        )
        for user in users:
            heard = [n for n in its if core.wanted(n.kind, org.notices, user.profile.notices)]
            if not heard or user.pk in done:
                continue
            try:
                _mail(user, org, heard)
            except Exception as error:  # the others are still sent; this one again later
                log.warning("e-mail of batch %s to %s failed: %s", batch, user.username, error)
                failed.append(user.username)
                continue
            m.NoticeMail.objects.create(
                batch=batch, user=user, address=user.email, notices=len(heard), sent=timezone.now()
            )
            sent += 1
    if failed:
        raise RuntimeError(f"e-mail not sent to {', '.join(failed)}: tried again later")
    return sent


PASS_KINDS = (core.GRANTED, core.RELEASE_WARNING, core.RELEASED)  # the e-mail links the pass


def _mail(user: User, org: m.Organisation, notices: list[m.Notice]) -> None:
    """One e-mail of a batch: greeting the person by name (else username), each notice in
    words (its times with their date and the venue's time zone), the link to the pass of
    each grant it tells of, then the match and the user's notice settings."""
    match = notices[0].match
    name = f"{match.home.name} v {match.away.name}"
    count = f"{len(notices)} change{'s' if len(notices) != 1 else ''}"
    # One line whatever the names hold (a load and the admin refuse a line break in a
    # name; a row kept from before would make Django refuse the header, and the e-mail).
    subject = " ".join(UNWRITABLE.sub(" ", f"pitchpass: {count} for {org.name} at {name}").split())
    base = settings.PITCHPASS_BASE_URL
    kickoff = times.text(match, match.kickoff)
    greeting = user.first_name.strip() or user.get_username()
    lines = [f"Hello {greeting},", "", f"{name}, kick-off {kickoff}, for {org.name}:", ""]
    lines += [f"- {n.text}" for n in notices]
    if any(n.kind in PASS_KINDS for n in notices):
        lines += ["", f"Your passes (print them, or show them at the door): {base}/matches/"
                      f"{quote(match.key)}/passes/"]  # fmt: skip
    lines += [
        "",
        f"The match: {base}/matches/{quote(match.key)}/",
        f"What you hear about: {base}/notices/",
    ]
    EmailMessage(subject, "\n".join(lines), to=[user.email]).send()


# Webhooks


class Refused(Exception):
    """An endpoint's address is not one pitchpass sends to."""


def new_secret() -> str:
    """A signing secret as Standard Webhooks writes one: whsec_ and 24 random bytes."""
    return "whsec_" + base64.b64encode(os.urandom(24)).decode()


def check_url(url: str) -> str | None:
    """What is wrong with a webhook URL as written (None: nothing); its address is checked
    again at each delivery."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "a webhook URL starts with https:// (or http://) and names a host"
    if parts.username or parts.password:
        return "a webhook URL carries no user name or password (the signature proves the sender)"
    try:
        _address(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except Refused as refused:
        return str(refused)
    return None


def _address(host: str, port: int) -> str:
    """The address to connect to for `host`: the first it resolves to, each checked."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise Refused(f"{host} does not resolve: {error}") from None
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0])
        plain = getattr(address, "ipv4_mapped", None) or address
        if not settings.PITCHPASS_WEBHOOK_PRIVATE and not public(address):
            raise Refused(
                f"{host} is at {address}, not a public address: webhooks go to public "
                "addresses only (PITCHPASS_WEBHOOK_PRIVATE=1 allows others)"
            )
        return str(plain)
    raise Refused(f"{host} does not resolve")


# IPv6 ranges that carry or reach an IPv4 address (whose own range is what counts) or are
# left over from old drafts: no receiver of ours is there, and each can lead to a private
# address, so none is sent to. ::ffff:a.b.c.d (mapped) is read as its IPv4 address.
_NOT_SENT_TO = tuple(
    ipaddress.ip_network(n)
    for n in (
        "::/96",  # IPv4-compatible (::7f00:1 is 127.0.0.1)
        "::ffff:0:0:0/96",  # IPv4-translated
        "64:ff9b::/96", "64:ff9b:1::/48",  # NAT64 (64:ff9b::a9fe:a9fe is 169.254.169.254)
        "2002::/16",  # 6to4
        "2001::/32",  # Teredo
        "fec0::/10",  # site-local
    )
)  # fmt: skip


def public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether a webhook may be sent to `address`: a global unicast address, not
    multicast (224.0.0.1 is "global" to Python) nor reserved, and for IPv6 in none of
    the ranges that lead to another address (_NOT_SENT_TO)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return public(address.ipv4_mapped)
        if any(address in network for network in _NOT_SENT_TO):
            return False
    return address.is_global and not address.is_multicast and not address.is_reserved


def message(notice: m.Notice) -> tuple[str, bytes]:
    """The webhook id and body of a notice (the same on every attempt)."""
    body = {
        "type": f"notice.{notice.kind}",
        "timestamp": notice.when.isoformat().replace("+00:00", "Z"),
        "data": notice.data,
    }
    return f"msg_{notice.batch}_{notice.pk}", json.dumps(body, sort_keys=True).encode()


@job(attempts=8)
def send_webhook(endpoint_id: int, notice_id: int) -> str:
    """POST one notice to one endpoint, signed; raise (to be tried again) unless a 2xx."""
    endpoint = m.WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    notice = m.Notice.objects.filter(pk=notice_id).first()
    if endpoint is None or notice is None or not endpoint.active:
        return "endpoint or notice gone, or endpoint off: nothing sent"
    if endpoint.deliveries.filter(notice=notice, ok=True).exists():
        return "delivered already"
    attempt = endpoint.deliveries.filter(notice=notice).count() + 1
    msg_id, body = message(notice)
    now = timezone.now()
    headers = {
        "content-type": "application/json",
        "user-agent": "pitchpass-webhooks",
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(endpoint.secret).sign(msg_id, now, body),
    }
    record: dict[str, Any] = {"endpoint": endpoint, "notice": notice, "attempt": attempt}
    waiting = _timed_out_lately(endpoint, now)
    if waiting:  # not tried now: a receiver that hangs holds the worker once, not per notice
        m.WebhookDelivery.objects.create(**record, when=now, error=waiting)
        raise RuntimeError(f"webhook {endpoint.url}: {waiting}")
    started = time.monotonic()
    try:
        status = _post(endpoint.url, body, headers)
    except Refused as refused:  # never tried again: the address will not change by itself
        m.WebhookDelivery.objects.create(**record, when=now, error=str(refused)[:1000])
        return f"refused: {refused}"
    except (OSError, http.client.HTTPException) as error:
        _failed(record, now, started, None, f"{type(error).__name__}: {error}")
        raise
    if not 200 <= status < 300:
        _failed(record, now, started, status, f"answered {status}")
        raise RuntimeError(f"webhook {endpoint.url} answered {status}")
    m.WebhookDelivery.objects.create(
        **record, when=now, ok=True, status=status, seconds=time.monotonic() - started
    )
    return f"delivered: {status}"


TIMED_OUT = "TimeoutError"  # how a delivery that ran out of time begins its error


def _timed_out_lately(endpoint: m.WebhookEndpoint, now: Any) -> str:
    """Why the endpoint is not tried now ("" if it is): its last attempt ran out of time
    less than PITCHPASS_WEBHOOK_PAUSE seconds ago (its notices wait for their next
    attempt, with the queue's growing waits)."""
    pause = timedelta(seconds=settings.PITCHPASS_WEBHOOK_PAUSE)
    last = endpoint.deliveries.filter(when__gt=now - pause).order_by("-when", "-id").first()
    if last is None or not last.error.startswith(TIMED_OUT):
        return ""
    return (
        f"held back: it ran out of time at {last.when:%H:%M:%S} UTC; tried again after"
        f" {settings.PITCHPASS_WEBHOOK_PAUSE:g} s"
    )


def _failed(
    record: dict[str, Any], now: Any, started: float, status: int | None, error: str
) -> None:
    m.WebhookDelivery.objects.create(
        **record, when=now, status=status, error=error[:1000], seconds=time.monotonic() - started
    )


def _post(url: str, body: bytes, headers: dict[str, str]) -> int:
    """POST to `url`, connecting to its checked address; the status (redirects too)."""
    parts = urlsplit(url)
    secure = parts.scheme == "https"
    host = parts.hostname or ""
    port = parts.port or (443 if secure else 80)
    address = _address(host, port)
    timeout = settings.PITCHPASS_WEBHOOK_TIMEOUT
    connection: http.client.HTTPConnection = (
        http.client.HTTPSConnection(host, port, timeout=timeout)
        if secure
        else http.client.HTTPConnection(host, port, timeout=timeout)
    )

    def connect_to_checked(where: Any, *args: Any, **kwargs: Any) -> socket.socket:
        return socket.create_connection((address, port), *args, **kwargs)

    connection._create_connection = connect_to_checked  # type: ignore[attr-defined]
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    # The whole exchange within `timeout`, not each read: a receiver that answers a byte
    # at a time would hold the worker for as long as it likes. At the deadline the
    # socket is shut, which ends the read that waits on it.
    cut = threading.Event()

    def at_deadline() -> None:
        cut.set()
        if connection.sock is not None:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)

    deadline = threading.Timer(timeout, at_deadline)
    deadline.start()
    try:
        connection.request("POST", path, body, headers)
        answer = connection.getresponse()
        answer.read(65536)
        status = answer.status
    except (OSError, http.client.HTTPException):
        if cut.is_set():
            raise TimeoutError(f"no whole answer within {timeout:g} s") from None
        raise
    finally:
        deadline.cancel()
        connection.close()
    if cut.is_set():
        raise TimeoutError(f"no whole answer within {timeout:g} s")
    return status


def add_endpoint(org_key: str, url: str, kinds: Iterable[str] | None) -> m.WebhookEndpoint:
    """A new webhook of an organisation (its secret made here); `kinds` None: all."""
    from pitchpass.web.errors import ErrorCode, ServiceError

    org = m.Organisation.objects.filter(key=org_key).first()
    if org is None:
        raise ServiceError(ErrorCode.NOT_FOUND, f'unknown organisation "{org_key}"', "org")
    if len(url) > 500:
        raise ServiceError(ErrorCode.INVALID, "a webhook URL has at most 500 characters", "url")
    problem = check_url(url)
    if problem:
        raise ServiceError(ErrorCode.INVALID, problem, "url")
    chosen = checked_kinds(kinds, "kind")
    return m.WebhookEndpoint.objects.create(
        organisation=org, url=url, secret=new_secret(), kinds=chosen
    )


def endpoints() -> list[m.WebhookEndpoint]:
    return list(m.WebhookEndpoint.objects.select_related("organisation").order_by("pk"))


def last_delivery(endpoint: m.WebhookEndpoint) -> m.WebhookDelivery | None:
    return endpoint.deliveries.order_by("-when", "-id").first()


def remove_endpoint(endpoint_id: int) -> None:
    from pitchpass.web.errors import ErrorCode, ServiceError

    deleted, _ = m.WebhookEndpoint.objects.filter(pk=endpoint_id).delete()
    if not deleted:
        raise ServiceError(ErrorCode.NOT_FOUND, f"no webhook {endpoint_id}", "id")


def checked_kinds(kinds: Iterable[str] | None, path: str) -> list[str] | None:
    """Kinds of notice as chosen (sorted, once each; None: every kind), each one known."""
    from pitchpass.web.errors import ErrorCode, ServiceError

    chosen = None if kinds is None else sorted(set(kinds))
    unknown = sorted(set(chosen or ()) - set(core.KINDS))
    if unknown:
        raise ServiceError(
            ErrorCode.INVALID,
            f"unknown kind of notice: {', '.join(unknown)} (known: {', '.join(core.KINDS)})",
            path,
        )
    return chosen
