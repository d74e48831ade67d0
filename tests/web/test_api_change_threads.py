"""Real threads against PostgreSQL: changes to one request are made one after another."""

from __future__ import annotations

from itertools import pairwise

import pytest
from django.contrib.auth.models import User
from django.db import connection
from test_concurrency import MATCH, NOW, run_together, setup_match

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
    errors = run_together(
        # Crews 3 to 8: each a change, whatever the order (r25 has 2; a change to the crew
        # it has already is no change and would send nothing).
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
