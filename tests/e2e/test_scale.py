"""The board stays readable at scale: a match of 500 requests, decided by the officer in
the browser, at desktop and phone width (screenshots in test-artefacts/: board-500-*.png).
The note that grants are proposed is said once above the rows, not on each; an incident
caught by many crews lists them folded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from browsing import Site
from playwright.sync_api import Browser, expect
from test_browser import ROOT, screenshot, sign_in

pytestmark = pytest.mark.slow
MATCH = "mun-ars-2099-01-20"
ZONES = ["pitch-side", "mixed-zone", "flash-interview", "press-conference", "tunnel"]


def big_match(requests: int = 500) -> dict[str, Any]:
    """The seed's competition, venue and clubs, one match to come and `requests`
    requests by 60 broadcasters, spread over the open zones and phases."""
    seed = yaml.safe_load((ROOT / "scenarios" / "manchester-derby-2017.yaml").read_text())
    orgs = [o for o in seed["organisations"]]
    extra = [
        {"id": f"tv-{n:02d}", "name": f"Television {n:02d}", "kind": "broadcaster"}
        for n in range(60)
    ]
    phases = ["pre-match", "first-half", "half-time", "second-half", "post-match"]
    doc = {k: seed[k] for k in ("pitchpass", "competition", "venues") if k in seed}
    doc["organisations"] = orgs + extra
    doc["matches"] = [
        {
            "id": MATCH,
            "venue": seed["matches"][0]["venue"],
            "home": "man-united",
            "away": "man-city",
            "kickoff": "2099-01-20T20:00:00+00:00",
        }
    ]
    doc["requests"] = [
        {
            "id": f"q{n:03d}",
            "match": MATCH,
            "by": extra[n % len(extra)]["id"],
            "zone": ZONES[n % len(ZONES)],
            "phases": [phases[(n // 5) % 5], phases[(n // 25) % 5]],
            "crew": 1 + n % 3,
            "cameras": 1,
            "submitted": f"2098-12-{1 + n % 28:02d}T10:{n % 60:02d}:00+00:00",
        }
        for n in range(requests)
    ]
    for request in doc["requests"]:
        request["phases"] = sorted(set(request["phases"]), key=phases.index)
    doc["incidents"] = [
        {"id": "goal", "match": MATCH, "zone": "pitch-side", "minute": 30, "what": "a goal"},
        {"id": "row", "match": MATCH, "zone": "tunnel", "minute": 150, "what": "words"},
    ]
    return doc


def test_a_500_request_board_at_desktop_and_phone_width(
    browser: Browser, site: Site, tmp_path: Path
) -> None:
    scenario = tmp_path / "big.yaml"
    scenario.write_text(yaml.safe_dump(big_match()))
    env = dict(os.environ, PITCHPASS_HOME=str(site.home))
    env.pop("DATABASE_URL", None)
    loaded = subprocess.run(
        [sys.executable, "-m", "pitchpass", "load", str(scenario)],
        capture_output=True, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    page = sign_in(browser, site, "officer")
    page.goto(f"{site.url}/matches/{MATCH}/")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided:")
    expect(page.locator("#requests tbody tr")).to_have_count(500)
    expect(page.locator("#proposed-note")).to_have_count(1)
    assert page.locator("#requests").get_by_text("not published yet").count() == 0  # no row
    goal = page.locator("#incidents li", has_text="goal")
    expect(goal.locator("details summary")).to_contain_text("caught by")
    screenshot(page, "board-500-desktop.png", full_page=False)
    goal.screenshot(path=str(ROOT / "test-artefacts" / "board-500-incident-desktop.png"))
    phone = sign_in(browser, site, "officer", width=390)
    phone.goto(f"{site.url}/matches/{MATCH}/")
    expect(phone.locator("#requests tbody tr")).to_have_count(500)
    screenshot(phone, "board-500-phone.png", full_page=False)
    phone.locator("#request-q000").screenshot(
        path=str(ROOT / "test-artefacts" / "board-500-row-phone.png")
    )
