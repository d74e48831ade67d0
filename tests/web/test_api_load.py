"""`load` over a match changed through the API: refused unless replacing, then audited."""

from __future__ import annotations

import pytest
from test_workflow_api import MATCH, api, future_derby, post

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store

__all__ = ["api"]  # the fixture, shared with the workflow tests
pytestmark = pytest.mark.django_db


def test_a_load_does_not_overwrite_web_changes_unless_told_to(api) -> None:
    created = post(api["bt"], "/requests", {"zone": "mixed-zone", "phases": ["post-match"],
                                            "crew": 1})  # fmt: skip
    new_id = created.json()["id"]
    version = m.Match.objects.get(key=MATCH).version
    with pytest.raises(store.LoadRefused) as refused:
        store.load(future_derby())
    assert refused.value.changed == {MATCH: ["submit"]}
    assert MATCH in str(refused.value)
    assert m.Request.objects.filter(match__key=MATCH, key=new_id).exists()  # nothing written
    assert m.Match.objects.get(key=MATCH).version == version
    store.load(future_derby(), replace=True)
    assert not m.Request.objects.filter(match__key=MATCH, key=new_id).exists()
    assert m.Match.objects.get(key=MATCH).version == version + 1
    entry = m.AuditEntry.objects.filter(action="load").last()
    assert entry is not None and entry.user is None and entry.target == MATCH
    assert new_id in [r["id"] for r in entry.before["requests"]]
    assert entry.after == store.export(MATCH)
    # Loaded again since: the same file is welcome, and changes nothing (no new entry).
    store.load(future_derby())
    assert m.AuditEntry.objects.filter(action="load").count() == 2
    assert m.Match.objects.get(key=MATCH).version == version + 1


def test_a_decide_or_a_change_undone_does_not_stop_a_load(api) -> None:
    post(api["officer"], "/decide")
    created = post(api["bt"], "/requests", {"zone": "mixed-zone", "phases": ["post-match"],
                                            "crew": 1})  # fmt: skip
    api["bt"].delete(f"/api/matches/{MATCH}/requests/{created.json()['id']}")
    store.load(future_derby())  # the file changes nothing of what the API left
    assert post(api["officer"], "/publish").status_code == 409  # the run predates the submit
    document = future_derby()
    document["requests"][0]["crew"] = 1
    post(api["officer"], "/decide")
    store.load(document)  # no web change since: just the file's own change
    assert m.Request.objects.get(match__key=MATCH, key="r01").crew == 1
    assert post(api["officer"], "/publish").json()["code"] == "stale-run"
    seen = api["officer"].get(f"/api/matches/{MATCH}/decisions").json()
    assert seen["waiting"] == ["r01"]  # the load changed it: the run decided it as it was
    assert "r01" not in {d["request"] for d in seen["decisions"]} and len(seen["decisions"]) > 30
