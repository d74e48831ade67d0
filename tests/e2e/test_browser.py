"""The workflow of issue 3 in a real browser, on the demo site (`make demo`): the officer
decides and publishes the seed match, the documentary crew sees why it was kept out, the
dressing-room incident is "not caught on camera", and the what-if panel shows it caught
with two more places in the tunnel. Screenshots of the board land in test-artefacts/.

One module, one server: the steps build on each other in the order they are written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browsing import Site
from playwright.sync_api import Browser, Page, expect

ROOT = Path(__file__).resolve().parents[2]
ARTEFACTS = ROOT / "test-artefacts"
BOARD = "/matches/mun-mci-2017-12-10/"
REFUSAL = "tunnel, post-match: 46 of 46 places taken by 1 host crew and 22 partner crews"
pytestmark = pytest.mark.slow


def sign_in(browser: Browser, site: Site, username: str, width: int = 1280) -> Page:
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{site.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(site.passwords[username])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{site.url}/")
    return page


def screenshot(page: Page, name: str, full_page: bool = True) -> None:
    ARTEFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / name), full_page=full_page)


def test_officer_decides_and_publishes_the_seed_match(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    # The demo lists the derby twice: next week's (open for requests) and its copy being
    # played now (published already); this is next week's.
    row = page.get_by_role("row").filter(has=page.locator(f'a[href="{BOARD}"]'))
    expect(row).to_contain_text("not decided yet")
    row.get_by_role("link", name="Manchester United v Manchester City").click()
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_have_text("Decided: 36 granted, 1 refused.")
    expect(page.locator("#request-r24")).to_contain_text(REFUSAL)
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_have_text("Published: 36 grants locked.")
    assert asked and asked[0].startswith("Publish the grants of run 1?")
    expect(page.locator("#request-r01")).to_contain_text("(published)")
    screenshot(page, "board-officer.png")


def test_the_broadcaster_sees_the_refusal_reason_and_only_its_own(
    browser: Browser, site: Site
) -> None:
    page = sign_in(browser, site, "documentary")
    page.goto(f"{site.url}{BOARD}")
    expect(page.locator("#request-r24")).to_contain_text("refused")
    expect(page.locator("#request-r24")).to_contain_text(REFUSAL)
    expect(page.locator("#requests tbody tr")).to_have_count(2)  # r24 and r25, its own
    expect(page.get_by_role("button", name="Decide")).to_have_count(0)
    screenshot(page, "board-documentary.png")


def test_the_incident_shows_not_caught_on_camera(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "steward")
    page.goto(f"{site.url}{BOARD}")
    altercation = page.locator("#incidents li", has_text="dressing-room-altercation")
    expect(altercation).to_contain_text("not caught on camera")
    page.get_by_text("Log an incident").click()
    form = page.get_by_role("form", name="log an incident")
    form.get_by_label("Zone").select_option("pitch-side")
    form.get_by_label("Minute").fill("30")
    form.get_by_label("What happened").fill("late tackle on the touchline")
    form.get_by_role("button", name="Log incident").click()
    expect(page.get_by_role("status")).to_have_text("Incident incident-1 logged.")
    expect(page.locator("#incidents li", has_text="incident-1")).to_contain_text(
        "caught by a crew of"
    )


def test_what_if_panel_shows_it_caught_after_adding_places(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("link", name="What if…").click()
    # Grant and refuse of one request exclude each other as they are ticked.
    page.get_by_label("grant r24").check()
    page.get_by_label("refuse r24").check()
    expect(page.get_by_label("grant r24")).not_to_be_checked()
    page.get_by_label("refuse r24").uncheck()
    page.get_by_label("tunnel@post-match").fill("48")
    page.get_by_role("button", name="Show what would change").click()
    result = page.locator("#what-if-result")
    expect(result).to_contain_text("r24 would be granted")
    expect(result.locator("li", has_text="dressing-room-altercation")).to_contain_text(
        "caught by r24"
    )
    assert page.url.endswith("/what-if/")  # HTMX swapped the answer in; no page load
    screenshot(page, "what-if.png")


def test_the_request_form_hints_room_left_as_it_is_filled(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "documentary")
    page.goto(f"{site.url}{BOARD}requests/new/")
    page.get_by_label("Zone").select_option("away-dressing-room")
    page.get_by_label("post-match").check()
    hint = page.locator("#room")
    expect(hint).to_contain_text("away-dressing-room, post-match: 4 of 4 places left")
    expect(hint).to_contain_text(
        "tunnel (on the way to away-dressing-room), post-match: 0 of 46 places left"
    )
    page.get_by_label("Crew (people)").fill("5")  # as it is typed, without leaving the field
    expect(hint).to_contain_text("4 of 4 places left, too few for a crew of 5")
    page.get_by_label("Crew (people)").fill("2")
    expect(hint).not_to_contain_text("too few for a crew of 5")
    page.get_by_label("Your reference (optional)").fill("post-match-2")
    page.get_by_role("button", name="Submit request").click()
    expect(page.get_by_role("status")).to_have_text(
        "Request man-city-documentary.post-match-2 submitted."
    )
    expect(page.locator("#request-man-city-documentary\\.post-match-2")).to_contain_text("waiting")


def test_the_board_fits_a_phone(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer", width=390)
    page.goto(f"{site.url}{BOARD}")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page is {overflow}px wider than a phone"
    expect(page.get_by_role("button", name="Decide")).to_be_visible()
    screenshot(page, "board-phone.png", full_page=False)  # the first screen
    row = page.locator("#request-r24")
    row.scroll_into_view_if_needed()
    box = row.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390  # a card
    screenshot(page, "board-phone-r24.png", full_page=False)
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided")
    cell = page.locator('td[title^="tunnel, post-match"]')
    cell.scroll_into_view_if_needed()
    box = cell.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    assert fits(page, "table.grid")
    screenshot(page, "board-phone-grid.png", full_page=False)
    page.goto(f"{site.url}{BOARD}what-if/")
    assert fits(page, "table.grid") and fits(page, "table.ticks")
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    screenshot(page, "what-if-phone.png", full_page=False)


def fits(page: Page, selector: str) -> bool:
    """Whether the table needs no sideways scrolling within its box."""
    return page.locator(selector).evaluate(
        "t => t.parentElement.scrollWidth <= t.parentElement.clientWidth"
    )


def test_the_api_docs_render_with_no_other_host(browser: Browser, site: Site) -> None:
    page = browser.new_context().new_page()
    elsewhere: list[str] = []

    def only_the_site(route) -> None:  # type: ignore[no-untyped-def]
        if route.request.url.startswith(site.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_site)
    page.goto(f"{site.url}/api/docs")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    expect(page.get_by_text("/api/matches/{match}/what-if")).to_be_visible()
    assert elsewhere == []


def test_another_page_cannot_frame_the_board(browser: Browser, site: Site) -> None:
    """A page elsewhere framing the officer's board (signed in) gets no board: Chromium
    refuses the frame (X-Frame-Options, CSP frame-ancestors), so no Decide to click."""
    page = sign_in(browser, site, "officer")
    page.set_content(f'<iframe src="{site.url}{BOARD}" width="900" height="600"></iframe>')
    framed = page.frames[1]
    framed.wait_for_load_state()
    assert not framed.url.startswith(site.url) or framed.locator("body").inner_text() == ""
    assert framed.get_by_role("button", name="Decide").count() == 0
    unframed = sign_in(browser, site, "officer")  # the same board, opened itself, has it
    unframed.goto(f"{site.url}{BOARD}")
    expect(unframed.get_by_role("button", name="Decide")).to_be_visible()
