"""The audit trail holds the state before and after each change, not only the change."""

from __future__ import annotations

import pytest
from test_workflow_api import api, post

from pitchpass.web.persistence import models as m

__all__ = ["api"]  # the fixture, shared with the workflow tests
pytestmark = pytest.mark.django_db


def test_an_override_records_the_decision_it_replaced(api) -> None:
    decided = post(api["officer"], "/decide").json()
    r24 = next(d for d in decided["decisions"] if d["request"] == "r24")
    post(api["officer"], "/requests/r24/override", {"status": "granted", "reason": "story"})
    entry = m.AuditEntry.objects.get(action="override", target="r24")
    assert entry.before == {"status": "refused", "reasons": r24["reasons"]}
    assert entry.before["reasons"][0]["code"] == "capacity"
    assert entry.after == {"status": "granted", "reason": "story"}
    post(api["officer"], "/requests/r24/override", {"status": "refused", "reason": "no"})
    second = m.AuditEntry.objects.filter(action="override", target="r24").last()
    assert second is not None and second.before == {"status": "granted", "reasons": []}


def test_a_publish_records_the_grants_locked_before(api) -> None:
    post(api["officer"], "/decide")
    first = post(api["officer"], "/publish").json()["published"]
    late = {"by": "sky-sports", "id": "late", "zone": "mixed-zone", "phases": ["post-match"]}
    post(api["admin"], "/requests", {**late, "crew": 1})
    post(api["officer"], "/decide")
    assert post(api["officer"], "/publish").json()["published"] == ["late"]
    entries = list(m.AuditEntry.objects.filter(action="publish"))
    assert entries[0].before == {"published": []}
    assert entries[0].after == {"published": first, "newly": first}
    assert entries[1].before == {"published": first}
    assert entries[1].after == {"published": sorted([*first, "late"]), "newly": ["late"]}
