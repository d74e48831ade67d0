"""scenarios/section-k.yaml on the desk, as a Chromium trial played it (issue 27): what
the board says of a run that grants nothing, the season page's debts with the refusal
that opened them, a filter the season lacks said so, and a 404 that says nothing of
Django's own."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.contrib.auth.models import User
from django.test import Client

from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services import decisions
from pitchpass.web.services.accounts import do_add_user

pytestmark = pytest.mark.django_db

EXAMPLE = Path(__file__).parents[2] / "scenarios" / "section-k.yaml"


def _signed_in(username: str, role: str, org: str | None) -> tuple[User, Client]:
    do_add_user(username, role, org, "pw-for-tests-only-7")
    user = User.objects.get(username=username)
    client = Client()
    client.force_login(user)
    return user, client


def test_a_run_that_grants_nothing_is_published_to_tell_its_refusals() -> None:
    """At m3 North never consented to BT's only request: run 1 refuses it. The board
    offers Publish (it locks no grant and tells BT its refusal), where it once said there
    was nothing to publish and the refusal was never told; published, BT is told once,
    and the board then says so."""
    store.load(yaml.safe_load(EXAMPLE.read_text()))
    north, client = _signed_in("north", "officer", "north-fc")
    decisions.do_decide(north, "m3")
    page = client.get("/matches/m3/").content.decode()
    assert 'Publish</button> <span class="muted">locks no grant; tells 1 refusal to its' in page
    assert "Every grant" not in page
    done = client.post("/matches/m3/publish/", follow=True).content.decode()
    assert "Published: no grant to lock; its refusals are told to their organisations." in done
    told = m.Notice.objects.filter(organisation__key="bt-sport", request="b3")
    assert [n.kind for n in told.order_by("pk")] == ["decided", "refused"]  # proposed, published
    page = client.get("/matches/m3/").content.decode()
    assert "Run 1 grants nothing and its refusals are told: nothing to publish." in page
    assert "Publish</button>" not in page


def test_the_season_page_says_why_a_debt_opened_and_which_filters_it_did_not_use() -> None:
    store.load(yaml.safe_load(EXAMPLE.read_text()))
    _, client = _signed_in("league", "admin", None)
    page = client.get("/competitions/section-k-league/season/").content.decode()
    assert "m3:b3: refused at m3 (no-consent), owed" in page
    assert "at least 1 occasion)" in page and 'marked "occasions" counts a match once' in page
    odd = client.get(
        "/competitions/section-k-league/season/", {"org": "<b>nobody</b>", "rule": "minimum:Nope"}
    ).content.decode()
    assert "Not filtered by this: no organisation &quot;&lt;b&gt;nobody&lt;/b&gt;&quot;" in odd
    assert "no rule &quot;minimum:Nope&quot; in this season" in odd
    assert "<b>nobody</b>" not in odd and "Show everything" in odd


def test_a_page_not_found_says_nothing_of_djangos_own() -> None:
    _, client = _signed_in("league", "admin", None)
    answer = client.get("/no/such/page/")
    assert answer.status_code == 404
    said = answer.content.decode()
    assert "There is nothing at this address that you may see." in said
    assert "Resolver404" not in said and "tried" not in said
    # A view's own reason is still said.
    told = client.get("/matches/no-such-match/").content.decode()
    assert "no-such-match" in told
