"""The season report in a real browser (issue 12, section 2): on `make demo`'s server, a
league's season with season rules is loaded from the command line; the league admin finds
its report from the match list and reads it (tables and the plot) at desktop and phone
width; an officer gets no link and a 403. Screenshots land in test-artefacts/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from browsing import Site
from playwright.sync_api import Browser, expect
from test_browser import screenshot, sign_in

pytestmark = pytest.mark.slow
EXAMPLE = Path(__file__).parents[2] / "scenarios" / "season-rules.yaml"


def test_the_league_loads_a_season_with_rules(site: Site) -> None:
    env = dict(os.environ, PITCHPASS_HOME=str(site.home))
    env.pop("DATABASE_URL", None)
    loaded = subprocess.run(
        [sys.executable, "-m", "pitchpass", "load", str(EXAMPLE)],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    assert "policy.season" not in loaded.stderr  # kept, and the desk decides under them
    assert "loaded 4 matches" in loaded.stdout


@pytest.mark.parametrize("width", [1280, 390])
def test_the_admin_reads_the_season_report(browser: Browser, site: Site, width: int) -> None:
    page = sign_in(browser, site, "admin", width)
    page.get_by_role("link", name="Season report: Mini League").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Season report: Mini League")
    minimums = page.get_by_role("table", name="minimums")
    expect(minimums).to_contain_text("m1:d1b: refused at m1 (capacity), paid at m3")
    expect(minimums).to_contain_text("short by 1")
    expect(page.get_by_role("table", name="quotas")).to_contain_text("2 of 2 requests")
    rotations = page.get_by_role("table", name="rotations")
    expect(rotations).to_contain_text("Sky Sports 2, BT Sport 2")
    expect(minimums).to_contain_text("North FC")
    plot = page.get_by_role("img", name="Each organisation's share")
    expect(plot).to_be_visible()
    assert plot.evaluate("img => img.naturalWidth") > 0  # the SVG loaded and drew
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width + 1, f"the page is {wide} px wide at {width}"
    for name in ("organisations", "quotas", "minimums", "rotations"):  # read, not scrolled
        box = page.get_by_role("table", name=name).evaluate(
            "t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]"
        )
        assert box[0] <= box[1] + 1, f"the {name} table scrolls sideways at {width}: {box}"
    screenshot(page, f"season-{width}.png")


def test_an_officer_gets_no_season_report(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    expect(page.get_by_role("link", name="Season report: Mini League")).to_have_count(0)
    answer = page.goto(f"{site.url}/competitions/mini-league/season/")
    assert answer is not None and answer.status == 403
