"""The season report on the desk (issue 12, section 2): the season rules loaded with the
competition; the report of the competition as it stands (published grants fixed, the rest
as the rules decide it) as JSON and as a page with its plot, for league admins only."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from django.test import Client
from test_workflow_api import ROOT

from pitchpass.core.reading.parse import parse_text
from pitchpass.web.persistence import models as m
from pitchpass.web.persistence import store
from pitchpass.web.services.accounts import do_add_user, do_create_token

pytestmark = pytest.mark.django_db

EXAMPLE = ROOT / "scenarios" / "season-rules.yaml"
PASSWORD = "pw-for-tests-only-7"
API = "/api/competitions/mini-league/season"


def document() -> dict[str, Any]:
    return parse_text(EXAMPLE.read_text(), str(EXAMPLE))


@pytest.fixture
def league() -> dict[str, Client]:
    store.load(document())
    users = {
        "admin": ("admin", None),
        "officer": ("officer", "north-fc"),
        "sky": ("media", "sky-sports"),
        "steward": ("steward", None),
    }
    clients = {}
    for name, (role, org) in users.items():
        do_add_user(name, role, org, PASSWORD)
        clients[name] = Client(HTTP_AUTHORIZATION=f"Bearer {do_create_token(name)}")
        pages = Client()
        assert pages.login(username=name, password=PASSWORD)
        clients[f"{name}-page"] = pages
    return clients


def test_a_load_keeps_the_rules_for_the_desk_and_a_load_without_drops_them() -> None:
    loaded = store.load(document())
    assert "policy.season" not in [w.path for w in loaded.warnings]  # the desk applies them
    rules = m.Competition.objects.get(key="mini-league").season
    assert rules["rotations"] == [{"zone": "tunnel", "phase": "post-match", "tier": "partner"}]
    plain = document()
    del plain["policy"]["season"]
    store.load(plain)
    assert m.Competition.objects.get(key="mini-league").season is None


def test_the_admin_gets_the_report_the_cli_gives(league: dict[str, Client]) -> None:
    answer = league["admin"].get(API)
    assert answer.status_code == 200, answer.content
    report = answer.json()
    assert (report["rules"], report["matches"], report["published"]) == (True, 4, 0)
    # As `pitchpass season` on the file (tests/core/test_season_report.py), with the
    # desk's request ids (`match:id`).
    bt = next(p for p in report["minimums"] if p["club"] == "north-fc" and p["to"] == "bt-sport")
    assert bt["debts"] == [
        {"opened_at": "m1", "request": "m1:d1b", "paid_at": "m3", "refused": ["capacity"]}
    ]
    assert report["rotations"][0]["spread"] == 0
    assert report["quotas"][0]["used"] == 2


def test_published_grants_stand_in_the_report(league: dict[str, Client]) -> None:
    """Sky's tunnel grant at m3 published: it stays, and the rotation gives BT its turns
    elsewhere (2 each); the documentary's published grants at m3 and m4 fill its quota."""
    m.Request.objects.filter(key__in=["t3s", "p3", "p4"]).update(locked=True)
    report = league["admin"].get(API).json()
    assert report["published"] == 3
    turns = {t["organisation"]: t["turns"] for t in report["rotations"][0]["turns"]}
    assert turns == {"sky-sports": 2, "bt-sport": 2}
    assert report["quotas"][0] == {**report["quotas"][0], "used": 2, "refused": 2}


@pytest.mark.parametrize("who", ["officer", "sky", "steward"])
def test_only_a_league_admin_sees_it(league: dict[str, Client], who: str) -> None:
    answer = league[who].get(API)
    assert answer.status_code == 403
    assert answer.json()["code"] == "forbidden"
    assert league[f"{who}-page"].get("/competitions/mini-league/season/").status_code == 403
    assert "Season report" not in league[f"{who}-page"].get("/").content.decode()


def test_an_unknown_competition_is_a_404(league: dict[str, Client]) -> None:
    answer = league["admin"].get("/api/competitions/no-such-league/season")
    assert answer.status_code == 404 and answer.json()["code"] == "not-found"


def test_the_page_and_its_plot(league: dict[str, Client]) -> None:
    client = league["admin-page"]
    listed = client.get("/").content.decode()
    assert 'href="/competitions/mini-league/season/"' in listed
    page = client.get("/competitions/mini-league/season/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "<title>Season report: Mini League · pitchpass</title>" in text
    assert text.count('id="hindsight"') == 1
    for words in ("Season report: Mini League", "short by 1",
                  "m1:d1b: refused at m1 (capacity), paid at m3",
                  "2 of 2 requests", "tunnel, post-match (partner)"):  # fmt: skip
        assert words in text
    plot = client.get("/competitions/mini-league/season.svg")
    assert plot["Content-Type"] == "image/svg+xml"
    drawing = ET.fromstring(plot.content)
    assert len(drawing.findall("{http://www.w3.org/2000/svg}polyline")) == 3


def test_the_report_is_decided_once_for_the_same_data(
    league: dict[str, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitchpass.web.services import season

    decided: list[int] = []
    real = season.decide

    def counting(scenario: Any) -> Any:
        decided.append(1)
        return real(scenario)

    monkeypatch.setattr(season, "decide", counting)
    client = league["admin-page"]
    assert client.get("/competitions/mini-league/season/").status_code == 200
    assert client.get("/competitions/mini-league/season.svg").status_code == 200
    assert league["admin"].get(API).status_code == 200
    assert len(decided) == 1
    # Any change (here a load: every write moves a match's version on) is other data:
    # decided again, and seen.
    late = document()
    next(r for r in late["requests"] if r["id"] == "p3")["submitted"] = "2026-08-28T10:00:00+01:00"
    store.load(late)
    again = league["admin"].get(API).json()
    assert len(decided) == 2
    assert again["quotas"][0]["refused"] == 1  # p4 only: p3 is late now
    assert league["admin"].get(API).json() == again and len(decided) == 2  # kept again
    # A load changing only the season rules moves no match's version: the rules are in
    # the version too.
    late["policy"]["season"]["quotas"][0]["at_most"] += 1
    store.load(late)
    assert (
        league["admin"].get(API).json()["quotas"][0]["at_most"] == again["quotas"][0]["at_most"] + 1
    )
    assert len(decided) == 3


def test_the_page_sums_up_first_then_filters_and_pages(
    league: dict[str, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27, section 5: a summary of the whole season first; filters by organisation,
    club and rule (values it does not know are ignored, and it says so by not marking
    them); long tables paged, each page's links keeping the filters."""
    from django.contrib.auth.models import User

    from pitchpass.web.services import season

    admin = User.objects.get(username="admin")
    whole = season.season_page(admin, "mini-league", {}, {})
    report = whole.view.report
    assert whole.summary["granted"] == sum(o["granted"] for o in report["organisations"])
    assert whole.summary["minimums"] == len(report["minimums"])
    unasked = [x for x in report["minimums"] if not x["met"] and x["too_few_asked"]]
    assert whole.summary["minimums_unasked"] == len(unasked) > 0  # South FC: nobody asked
    assert ("quota:0", "quota 1: Documentary Films, at most 2 requests a season") in (
        whole.options["rule"]
    )
    sky = season.season_page(admin, "mini-league", {"org": "sky-sports"}, {})
    assert [o["organisation"] for o in sky.organisations] == ["sky-sports"]
    assert sky.minimums.rows and all(
        "sky-sports" in (x["club"], x["to"]) for x in sky.minimums.rows
    )
    assert sky.quotas.total == 0  # the quota is the documentary's
    north = season.season_page(admin, "mini-league", {"club": "north-fc"}, {})
    assert {x["club"] for x in north.minimums.rows} == {"north-fc"}
    assert len(north.organisations) == len(whole.organisations)  # season totals, whole
    rule = season.season_page(admin, "mini-league", {"rule": "minimum:enhancements"}, {})
    assert rule.quotas.total == 0 and rule.rotations == [] and rule.minimums.total
    assert rule.shown == {"minimum"}  # the other rules' sections are not shown at all
    odd = season.season_page(admin, "mini-league", {"org": "<nobody>", "rule": "quota:9"}, {})
    assert odd.filters == {"org": "", "club": "", "rule": ""}
    assert odd.minimums.total == whole.minimums.total
    # Paged: two rows a page here, the asked page clamped to those there are.
    monkeypatch.setattr(season, "PER_PAGE", 2)
    pages = {"minimums": "999", "quotas": "abc"}
    paged = season.season_page(admin, "mini-league", {}, pages)
    assert paged.minimums.page == paged.minimums.pages > 1 and len(paged.minimums.rows) <= 2
    assert paged.quotas.page == 1
    text = league["admin-page"].get("/competitions/mini-league/season/?club=north-fc").content
    said = text.decode()
    assert "Summary" in said and "requests granted." in said
    assert 'value="north-fc" selected' in said and "Show everything" in said
    first = league["admin-page"].get("/competitions/mini-league/season/").content.decode()
    assert 'href="?minimums_page=2#minimums">Next' in first
    assert f'href="?minimums_page={paged.minimums.pages}#minimums">Last' in first
    assert ">First</a>" not in first.split('aria-label="minimum pages"')[1].split("</nav>")[0]
    # The plot's legend written beside it too (on a phone the plot scrolls sideways).
    for name, colour, granted in whole.view.legend:
        assert f'background:{colour}"></span> {name} ({granted})' in first
