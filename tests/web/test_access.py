"""Who sees which match: one rule for a match read by its key and for the list."""

from __future__ import annotations

import pytest
from test_store import SCENARIOS, document

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store

pytestmark = pytest.mark.django_db


def test_one_match_is_seen_as_the_list_of_matches_has_it() -> None:
    """access.sees (a match read by its key) and access.visible_matches (the list) hold
    the same matches for every role and organisation."""
    from django.contrib.auth.models import User

    from pitchpass.web.services import access

    for name in SCENARIOS:
        store.load(document(name))
    clubs = list(m.Organisation.objects.filter(kind="club"))
    users = [("admin", None), ("media", m.Organisation.objects.exclude(kind="club").first()),
             ("steward", None), *(("officer", club) for club in clubs)]  # fmt: skip
    assert len(clubs) >= 2
    for n, (role, organisation) in enumerate(users):
        user = User.objects.create(username=f"u{n}")
        m.Profile.objects.create(user=user, role=role, organisation=organisation)
        listed = {match.key for match in access.visible_matches(user)}
        one = {
            match.key for match in m.Match.objects.all() if access.sees(access.profile(user), match)
        }
        assert listed == one
        if role == "officer":
            assert 0 < len(listed) < m.Match.objects.count()
