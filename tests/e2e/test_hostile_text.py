"""Script and HTML in every text field (issue 10): names of organisations, zones, the
venue, the competition and its tiers, cameras, request ids, incidents' notes, reasons
typed by hand. Every page shows them as text: Chromium opens no dialog and the pages hold
no element the text would have made, for each role. (The Content-Security-Policy would
also stop an inline script; this checks the escaping itself.)

One module, one server (its own): the steps build on each other in the order written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from browsing import Site
from playwright.sync_api import Browser, Page, expect
from test_browser import ROOT, sign_in

pytestmark = pytest.mark.slow
MATCH = "xss-derby"
BOARD = f"/matches/{MATCH}/"
HTML = '<img src=x onerror=alert(1)><b class="injected">bold</b>'
IN_AN_ID = "<img src=x onerror=alert(2)>"  # an id holds no "/"


def hostile() -> dict:
    doc = yaml.safe_load((ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text())
    doc["competition"]["name"] = f"Cup {HTML}"
    for organisation in doc["organisations"]:
        organisation["name"] = f"{organisation['name']} {HTML}"
    venue = doc["venues"][0]
    venue["name"] = f"Ground {HTML}"
    for zone in venue["zones"]:
        zone["name"] = f"{zone['name']} {HTML}"
    for camera in venue.get("cameras", []):
        camera["name"] = f"Camera {HTML}"
    match = doc["matches"][0]
    old = match["id"]
    match.update(id=MATCH, kickoff="2099-12-10T16:30:00+00:00")
    for request in doc["requests"]:
        request.update(match=MATCH, submitted="2099-12-01T10:00:00+00:00")
    doc["requests"][0]["id"] = IN_AN_ID
    for incident in doc["incidents"]:
        incident.update(match=MATCH, what=f"{incident.get('what', '')} {HTML}")
    assert old != MATCH
    return doc


def clean(page: Page) -> None:
    """Nothing the text would have made if it were read as HTML."""
    assert page.locator("b.injected").count() == 0
    assert page.locator("img[src='x']").count() == 0


def watched(page: Page) -> list[str]:
    opened: list[str] = []

    def seen(dialog) -> None:  # type: ignore[no-untyped-def]
        opened.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", seen)
    return opened


def test_the_hostile_match_is_loaded(site: Site, tmp_path: Path) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(hostile(), sort_keys=False))
    env = dict(os.environ, PITCHPASS_HOME=str(site.home))
    env.pop("DATABASE_URL", None)
    loaded = subprocess.run(
        [sys.executable, "-m", "pitchpass", "load", str(path)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr


def test_the_officer_sees_it_all_as_text(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    opened = watched(page)
    page.goto(f"{site.url}/")
    expect(page.get_by_text(f"Ground {HTML}").first).to_be_visible()
    clean(page)
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided")
    row = page.locator("#requests tr", has_text=IN_AN_ID)
    expect(row).to_have_count(1)
    row.locator("summary", has_text="Override").click()
    row.get_by_label("new status").select_option("refused")
    row.get_by_label("reason").fill(f"because {HTML}")
    row.get_by_role("button", name="Override").click()
    expect(page.get_by_role("status")).to_contain_text("refused by hand")
    expect(page.locator("#requests")).to_contain_text(f"refused by hand: because {HTML}")
    expect(page.locator("#incidents")).to_contain_text(HTML)
    page.get_by_text("The policy of this match").click()
    page.get_by_text("Fixed cameras of").click()
    clean(page)
    page.goto(f"{site.url}{BOARD}what-if/")
    page.get_by_role("button", name="Show what would change").click()
    expect(page.locator("table.ticks")).to_contain_text(IN_AN_ID)
    clean(page)
    assert opened == [], opened


def test_the_steward_and_the_documentary_crew_see_it_as_text(browser: Browser, site: Site) -> None:
    steward = sign_in(browser, site, "steward")
    opened = watched(steward)
    steward.goto(f"{site.url}{BOARD}")
    steward.get_by_text("Log an incident").click()
    form = steward.get_by_role("form", name="log an incident")
    form.get_by_label("Zone").select_option("tunnel")
    form.get_by_label("Minute").fill("30")
    form.get_by_label("What happened").fill(f"a fight {HTML}")
    form.get_by_role("button", name="Log incident").click()
    expect(steward.locator("#incidents")).to_contain_text(f"a fight {HTML}")
    clean(steward)
    docs = sign_in(browser, site, "documentary")
    opened += watched(docs)
    docs.goto(f"{site.url}{BOARD}requests/new/")
    docs.get_by_label("Zone").select_option("tunnel")
    docs.get_by_label("post-match").check()
    expect(docs.locator("#room")).to_contain_text("tunnel, post-match")
    clean(docs)
    docs.goto(f"{site.url}{BOARD}")
    clean(docs)
    assert opened == [], opened


def test_the_admin_pages_show_it_as_text(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "admin")
    opened = watched(page)
    for path in ("/admin/pitchpass/organisation/", "/admin/pitchpass/zone/",
                 "/admin/pitchpass/auditentry/", "/admin/pitchpass/request/"):  # fmt: skip
        page.goto(f"{site.url}{path}")
        expect(page.locator("#result_list")).to_be_visible()
        clean(page)
    assert opened == [], opened
