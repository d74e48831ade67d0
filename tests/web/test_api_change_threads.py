"""Real threads against PostgreSQL: changes to one request are made one after another."""

from __future__ import annotations

from itertools import pairwise

import pytest
from django.contrib.auth.models import User
from django.db import connection
from test_concurrency import MATCH, NOW, run_against_the_lock, setup_match

from pitchpass.web.persistence import models as m
from pitchpass.web.services import entries
from pitchpass.web.services.accounts import do_add_user

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL"),
]


def test_changes_at_once_each_see_the_one_before() -> None:
    setup_match()
    do_add_user("docs", "media", "man-city-documentary", "pw-for-tests-only-7")
    user = User.objects.get(username="docs")
    version = m.Match.objects.get(key=MATCH).version
    errors = run_against_the_lock(
        # Crews 3 to 8: each a change, whatever the order (r25 has 2; a change to the crew
        # it has already is no change and would send nothing). All six wait for the match
        # lock at once, then go in turn.
        lambda n: entries.do_change_request(user, MATCH, "r25", {"crew": n + 3}, NOW),
        6,
    )
    assert errors == []
    logged = list(m.AuditEntry.objects.filter(action="change", target="r25").order_by("pk"))
    assert len(logged) == 6
    for earlier, later in pairwise(logged):
        assert later.before == earlier.after  # none changed a state another had replaced
    assert m.Request.objects.get(match__key=MATCH, key="r25").crew == logged[-1].after["crew"]
    assert m.Match.objects.get(key=MATCH).version == version + 6


@pytest.mark.django_db(transaction=True)
def test_retries_sent_at_once_act_once() -> None:
    """Six copies of one submission with one Idempotency-Key, at the same moment, on real
    threads: one request is made; each copy is the answer or a 409 to retry shortly."""
    from django.test import Client

    from pitchpass.web.services.accounts import do_create_token

    setup_match()
    do_add_user("bt", "media", "bt-sport", "pw-for-tests-only-7")
    token = do_create_token("bt")
    body = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}  # ids made: bt-sport.N
    statuses: list[int] = []

    def send(n: int) -> None:
        answer = Client(HTTP_AUTHORIZATION=f"Bearer {token}").post(
            f"/api/matches/{MATCH}/requests",
            body,
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY="same-key",
        )
        statuses.append(answer.status_code)

    assert run_against_the_lock(send, 6) == []  # all six in flight at once, waiting
    assert m.Request.objects.filter(key__startswith="bt-sport.").count() == 1  # not six
    assert statuses.count(201) >= 1 and set(statuses) <= {201, 409}, statuses
