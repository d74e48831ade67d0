"""Issue 26's releases in a real browser, on `make demo`'s server and its worker: the
seed match loaded kicking off in 100 minutes; before publishing, the home officer reads
on a phone which crews the publish puts inside their release time (the grace after a
publish) and when; after the publish, `pitchpass match-day --at` as the worker at the
warning and at the release: the documentary crew reads its warning and then its
pre-match place released, with the rule, the time and the phase, at 1280 px; the
officer's board asks nobody to decide again. Screenshots in test-artefacts/.
One module, one server (its own): the steps build on each other in the order written."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from browsing import Site
from playwright.sync_api import Browser, expect
from test_browser import BOARD, ROOT, screenshot, sign_in

pytestmark = pytest.mark.slow
MATCH = "mun-mci-2017-12-10"


def _cli(site: Site, *args: str) -> str:
    env = dict(os.environ, PITCHPASS_HOME=str(site.home))
    env.pop("DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "pitchpass", *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_officer_reads_who_a_publish_puts_inside_their_release_time(
    browser: Browser, site: Site, tmp_path: Path
) -> None:
    seed: dict[str, Any] = yaml.safe_load(
        (ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text()
    )
    kickoff = datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=100)
    seed["matches"][0]["kickoff"] = kickoff.isoformat()
    path = tmp_path / "derby-soon.yaml"
    path.write_text(yaml.safe_dump(seed, sort_keys=False))
    _cli(site, "load", str(path), "--replace")
    page = sign_in(browser, site, "officer", 390)
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided")
    soon = page.locator("#release-soon")
    expect(soon).to_contain_text("Publishing now puts")
    expect(soon).to_contain_text("r25 (Manchester City documentary")
    expect(soon).to_contain_text("its pre-match place is released at")
    expect(soon).not_to_contain_text("r27")  # Sky, the host: never released
    screenshot(page, "release-soon-390.png")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text("Published")


def test_the_crew_is_warned_then_loses_only_its_pre_match_place(
    browser: Browser, site: Site
) -> None:
    warned = _cli(site, "match-day", MATCH, "--at", "-69")  # 30 minutes before -39
    assert "r25" in warned.split("warned of a release to come: ")[1].splitlines()[0]
    page = sign_in(browser, site, "documentary")
    page.get_by_role("link", name="Notices").click()
    table = page.get_by_role("table", name="notices")
    expect(table).to_contain_text("unless one of its crew checks in at a door before")
    screenshot(page, "release-warned-1280.png")
    released = _cli(site, "match-day", MATCH, "--at", "-39")
    assert "r25" in released.split("released (not checked in): ")[1].splitlines()[0]
    page.goto(f"{site.url}{BOARD}")
    row = page.locator("#request-r25")
    expect(row).to_contain_text("revoked")
    expect(row).to_contain_text("60 minutes after its grant was published")
    screenshot(page, "release-released-1280.png")


def test_the_officers_board_asks_nobody_to_decide_again(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer", 390)
    page.goto(f"{site.url}{BOARD}")
    expect(page.locator("#request-r25")).to_contain_text("revoked")
    expect(page.locator("body")).not_to_contain_text("decide again")
    screenshot(page, "release-officer-390.png")
