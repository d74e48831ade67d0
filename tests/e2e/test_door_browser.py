"""Issue 11's match day in a real browser, on `make demo`'s server: the documentary crew's
pass on a desktop and a phone; the steward's door admits it at its zone and refuses it at
another with the reason; then the connection drops (Playwright's offline mode): the page
checks the codes against the list it keeps, queues the scans, and sends them once the
connection returns, each recorded once. Without JavaScript the plain form still works.
Screenshots at 1280 and 390 px land in test-artefacts/.

The demo moves the seed match to next week, when no door is open yet ("not-yet-open"):
this module loads it again kicking off in 30 minutes (its pre-match doors open, as
tests/web/test_doors.py has it), then the officer decides and publishes on the board.
One module, one server (its own): the steps build on each other in the order written.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from browsing import Site
from playwright.sync_api import Browser, Page, expect
from test_browser import BOARD, ROOT, screenshot, sign_in
from test_csp import watched

pytestmark = pytest.mark.slow
DOCS = "Manchester City documentary crew (for Amazon Prime Video)"  # the documentary crew, by name
DOOR = f"{BOARD}door/"
PASS: dict[str, str] = {}  # the documentary's pitch-side pass: "typed", "signed"


def _door(page: Page, site: Site, zone: str) -> None:
    page.goto(f"{site.url}{DOOR}?zone={zone}&phase=pre-match")
    expect(page.locator("#kept")).to_contain_text("passes, fetched ")  # kept for offline


def _scan(page: Page, code: str, way: str = "In") -> None:
    page.get_by_label("Pass code").fill(code)
    page.get_by_role("button", name=way, exact=True).click()


def test_the_seed_match_at_its_own_dates_is_decided_and_published(
    browser: Browser, site: Site, tmp_path: Path
) -> None:
    env = dict(os.environ, PITCHPASS_HOME=str(site.home))
    env.pop("DATABASE_URL", None)
    document = yaml.safe_load((ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text())
    kickoff = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=30)
    document["matches"][0]["kickoff"] = kickoff.isoformat()  # the clock: pre-match
    seed = tmp_path / "derby-pre-match.yaml"
    seed.write_text(yaml.safe_dump(document, sort_keys=False))
    loaded = subprocess.run(
        [sys.executable, "-m", "pitchpass", "load", str(seed), "--replace"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    page = sign_in(browser, site, "officer")
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text("Published")


def test_the_crew_shows_its_pass_on_a_desktop_and_a_phone(browser: Browser, site: Site) -> None:
    for width in (1280, 390):
        page = sign_in(browser, site, "documentary", width)
        page.goto(f"{site.url}{BOARD}passes/")
        r25 = page.get_by_role("region", name="pass r25")
        expect(r25.locator(".qr svg")).to_be_visible()
        expect(r25).to_contain_text("Pitch-side positions")
        expect(page.get_by_role("region", name="pass r24")).to_have_count(0)  # refused
        PASS["typed"] = r25.locator(".code").inner_text()
        screenshot(page, f"passes-documentary-{width}.png")
        fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert fits, f"the passes page is wider than {width} px"
    # What its QR code carries (the page shows it as the QR; the API gives it as text).
    passes = page.request.get(f"{site.url}/api/matches/mun-mci-2017-12-10/passes").json()["items"]
    PASS["signed"] = next(p["code"] for p in passes if p["request"] == "r25")
    assert PASS["signed"].startswith(PASS["typed"].replace("-", "") + ":")


def test_the_door_admits_the_crew_and_refuses_it_elsewhere(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "steward")
    complaints = watched(page)
    _door(page, site, "pitch-side")
    expect(page.locator("#offline")).to_contain_text("It cannot check the people inside")
    expect(page.get_by_role("button", name="Scan with camera")).to_have_count(
        1 if page.evaluate("'BarcodeDetector' in window") else 0
    )  # hidden where the browser reads no QR codes (headless Chromium on Linux)
    _scan(page, PASS["typed"])
    verdict = page.get_by_role("alert", name="verdict")
    expect(verdict).to_contain_text("ADMITTED")
    expect(verdict).to_contain_text(f"r25 ({DOCS}, crew 2): in, 1 of its 2")
    expect(page.get_by_role("status", name="inside")).to_have_text("1 of 30 inside")
    expect(page.get_by_label("Pass code")).to_be_empty()  # ready for the next one
    screenshot(page, "door-admitted-1280.png")
    _door(page, site, "tunnel")
    _scan(page, PASS["typed"])
    expect(verdict).to_contain_text("REFUSED")
    expect(verdict).to_contain_text("its pass is for pitch-side, not tunnel")
    expect(page.get_by_role("table", name="scans")).to_contain_text("refused (wrong-zone)")
    screenshot(page, "door-refused-1280.png")
    assert complaints == [], complaints


def test_offline_the_door_checks_its_list_queues_and_sends_once(
    browser: Browser, site: Site
) -> None:
    page = sign_in(browser, site, "steward", 390)
    complaints = watched(page)
    _door(page, site, "pitch-side")
    screenshot(page, "door-390.png")
    page.context.set_offline(True)
    _scan(page, PASS["signed"])  # as the camera reads the QR code
    verdict = page.get_by_role("alert", name="verdict")
    expect(verdict).to_contain_text("OFFLINE — admitted by the cached list, queued")
    expect(verdict).to_contain_text("Not checked: people inside")
    _scan(page, "ZZZZZ-ZZZZZ")
    expect(verdict).to_contain_text("OFFLINE — unknown code, queued")
    queue = page.get_by_role("status", name="queue")
    expect(queue).to_contain_text("2 scans wait to be sent")
    scans = page.get_by_role("table", name="scans")
    expect(scans.locator("tr", has_text="queued (offline)")).to_have_count(2)
    expect(scans.locator("tr", has_text="r25").first).to_contain_text("queued (offline)")
    expect(page.get_by_role("status", name="inside")).to_contain_text("not counted")
    screenshot(page, "door-offline-390.png")
    keys = page.evaluate(
        "JSON.parse(localStorage.getItem('pitchpass.door.queue')).map(i => i.body.key)"
    )
    assert len(keys) == 2
    page.evaluate("window.dispatchEvent(new Event('online'))")  # a flicker: still offline
    kept = page.locator("#kept")
    expect(kept).to_contain_text("a newer one could not be fetched")
    page.context.set_offline(False)  # the online event: the queue is sent
    expect(queue).to_contain_text("Sent 2 queued scans: 1 admitted, 1 refused by the desk")
    expect(kept).not_to_contain_text("could not be fetched")  # the list fetched again
    expect(page.get_by_role("table", name="scans")).not_to_contain_text("queued")
    expect(verdict).to_contain_text("REFUSED")  # the desk's answer to the one shown
    expect(verdict).to_contain_text("Sent when the connection returned: not a pass")
    expect(page.get_by_role("status", name="inside")).to_have_text("2 of 30 inside")
    screenshot(page, "door-sent-390.png")
    page.reload()  # what the server recorded: each scan once, at the time it was made
    rows = page.get_by_role("table", name="scans").locator("tbody tr")
    expect(rows).to_have_count(3)  # the first admission, the queued two
    expect(rows.nth(0)).to_contain_text("refused (unknown)")
    expect(rows.filter(has_text="r25")).to_have_count(2)
    expect(page.get_by_role("status", name="inside")).to_have_text("2 of 30 inside")
    expect(page.get_by_role("status", name="queue")).to_have_count(0)  # nothing waits
    with sqlite3.connect(site.home / "pitchpass.sqlite3") as db:
        found = db.execute(
            "SELECT key, result, scanned < received FROM pitchpass_scan WHERE key IN (?, ?)",
            keys,
        ).fetchall()
    assert sorted(found) == sorted([(keys[0], "admitted", 1), (keys[1], "refused", 1)])
    assert complaints == [], complaints


def test_without_javascript_the_plain_form_still_checks(browser: Browser, site: Site) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 900})
    page = context.new_page()
    page.goto(f"{site.url}/login/")
    page.get_by_label("Username").fill("steward")
    page.get_by_label("Password").fill(site.passwords["steward"])
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"{site.url}{DOOR}?zone=pitch-side&phase=pre-match")
    expect(page.locator("#offline")).to_be_hidden()  # it needs the script
    _scan(page, PASS["typed"], "Out")
    verdict = page.get_by_role("alert", name="verdict")
    expect(verdict).to_contain_text("OUT")  # a way out let through
    expect(verdict).to_contain_text("out of pitch-side; 1 of its crew still inside")
    expect(page.get_by_role("status", name="inside")).to_have_text("1 of 30 inside")
    screenshot(page, "door-no-script-390.png")
    context.close()


def test_where_the_browser_has_no_web_crypto_it_says_it_cannot_check(
    browser: Browser, site: Site
) -> None:
    page = sign_in(browser, site, "steward", 390)
    # As on a page served over plain HTTP from another machine: no crypto.subtle.
    page.add_init_script(
        "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined})"
    )
    _door(page, site, "pitch-side")
    page.context.set_offline(True)
    _scan(page, PASS["typed"], "Out")
    verdict = page.get_by_role("alert", name="verdict")
    expect(verdict).to_contain_text("OFFLINE — cannot check offline, queued")
    expect(verdict).to_contain_text("needs a secure connection")
    screenshot(page, "door-no-crypto-390.png")
    page.context.set_offline(False)
    expect(verdict).to_contain_text("Sent when the connection returned: r25")
    expect(page.get_by_role("status", name="inside")).to_have_text("0 of 30 inside")
