"""Request ids of media users are their organisation's id, a dot and a reference. With
organisations "sky" and "sky.news" those spaces would meet ("sky" + "news.exclusive" is
"sky.news" + "exclusive"): a reference holds no dot, so one organisation can neither take
nor learn of another's ids (issue 10, found by the security probe)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from test_workflow_api import MATCH, future_derby

from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user, do_create_token

pytestmark = pytest.mark.django_db
BODY = {"zone": "mixed-zone", "phases": ["post-match"], "crew": 1}


@pytest.fixture
def two_skies() -> dict[str, Client]:
    document = future_derby()
    document["organisations"] += [
        {"id": "sky", "name": "Sky", "kind": "broadcaster"},
        {"id": "sky.news", "name": "Sky News", "kind": "broadcaster"},
    ]
    # A request loaded from a file under an id in "sky"'s space, though another's.
    document["requests"].append({**document["requests"][0], "id": "sky.loaded", "by": "bt-sport"})
    store.load(document)
    clients = {}
    for name in ("sky", "sky.news"):
        do_add_user(name.replace(".", "-"), "media", name, "pw-for-tests-only-7")
        token = do_create_token(name.replace(".", "-"))
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    return clients


def _send(client: Client, reference: str) -> Any:
    return client.post(
        f"/api/matches/{MATCH}/requests", {**BODY, "id": reference}, content_type="application/json"
    )


def test_one_organisation_cannot_take_or_learn_of_anothers_ids(two_skies) -> None:
    first = _send(two_skies["sky.news"], "exclusive")
    assert first.status_code == 201 and first.json()["id"] == "sky.news.exclusive"
    for reference in ("news.exclusive", "sky.news.exclusive", "news.other"):
        refused = _send(two_skies["sky"], reference)
        assert refused.status_code == 400, reference
        assert refused.json()["path"] == "id" and "cannot hold a" in refused.json()["message"]
        assert "exists" not in refused.json()["message"]
    # Its own prefix, typed, is kept once: "sky." + "news", in its own space (those of
    # "sky.news" all hold a dot after "sky.news").
    own = _send(two_skies["sky"], "sky.news")
    assert own.status_code == 201 and own.json()["id"] == "sky.news"


def test_an_id_in_its_space_held_by_another_is_not_named(two_skies) -> None:
    taken = _send(two_skies["sky"], "loaded")
    assert taken.status_code == 409
    said = taken.json()["message"]
    assert said == 'the reference "loaded" cannot be used: choose another'
    mine = _send(two_skies["sky"], "mine")
    again = _send(two_skies["sky"], "mine")
    assert mine.status_code == 201 and again.status_code == 409
    assert (
        again.json()["message"]
        == 'your reference "mine" is taken: request "sky.mine" exists already'
    )


def test_an_id_not_chosen_is_the_first_number_free_in_the_organisations_space(two_skies) -> None:
    """Counted by the database (one query while the numbers have no gap); a number freed
    by a withdrawal is given again first; a reference that looks like a number, or
    another organisation's numbers, change nothing."""
    sky = two_skies["sky"]

    def sent(body: dict[str, Any]) -> str:
        answer = sky.post(f"/api/matches/{MATCH}/requests", body, content_type="application/json")
        assert answer.status_code == 201, answer.content
        return str(answer.json()["id"])

    assert [sent(BODY) for _ in range(3)] == ["sky.1", "sky.2", "sky.3"]
    assert sent({**BODY, "id": "07"}) == "sky.07"  # not the number 7
    assert sent({**BODY, "id": "5"}) == "sky.5"
    assert (
        two_skies["sky.news"]
        .post(f"/api/matches/{MATCH}/requests", BODY, content_type="application/json")
        .json()["id"]
        == "sky.news.1"
    )
    assert sent(BODY) == "sky.4"  # 5 is taken: the gap at 4 first
    assert sent(BODY) == "sky.6"
    assert sky.delete(f"/api/matches/{MATCH}/requests/sky.2").status_code == 204
    assert sent(BODY) == "sky.2"
    assert sent(BODY) == "sky.7"
