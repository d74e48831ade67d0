"""Issue 9's trial in a real browser: every outcome on the board explained, with a way
forward. The documentary crew sends requests (one without the home club's consent, one
large crew among smaller ones of its tier); the officer decides, grants r24 by hand (the
crew it bumps says why), decides again and publishes; then r24 cannot be granted by hand
and the board says why and links the what-if that would let it in, the incident r24 would
have caught names it, and a what-if grant without consent is "only if". Screenshots of
the officer's board at 1280 and 390 px land in test-artefacts/.

One module, one server (its own): the steps build on each other in the order written.
"""

from __future__ import annotations

import pytest
from browsing import Site
from playwright.sync_api import Browser, Page, expect
from test_browser import BOARD, screenshot, sign_in

pytestmark = pytest.mark.slow
BIG = "#request-man-city-documentary\\.big"


def _send(page: Page, site: Site, zone: str, phase: str, crew: str, reference: str) -> None:
    page.goto(f"{site.url}{BOARD}requests/new/")
    page.get_by_label("Zone").select_option(zone)
    page.get_by_label(phase, exact=True).check()
    page.get_by_label("Crew (people)").fill(crew)
    page.get_by_label("Your reference (optional)").fill(reference)
    page.get_by_role("button", name="Submit request").click()
    expect(page.get_by_role("status")).to_contain_text("submitted")


def test_the_documentary_crew_sends_its_requests(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "documentary")
    for reference, crew in (("big", "5"), ("s1", "2"), ("s2", "2"), ("s3", "2")):
        _send(page, site, "flash-interview", "half-time", crew, reference)
    _send(page, site, "home-dressing-room", "pre-match", "1", "hdr1")


def test_a_crew_bumped_by_a_grant_by_hand_says_who_and_why(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided")
    # The large crew lost its places to smaller ones of its tier sent later: named.
    expect(page.locator(BIG)).to_contain_text(
        "Granted there though ranked after it: man-city-documentary.s1, sent later"
    )
    expect(page.locator(BIG).get_by_role("link", name="The policy")).to_be_visible()
    r24 = page.locator("#request-r24")
    r24.locator("summary", has_text="Override").click()
    r24.get_by_label("new status").select_option("granted")
    r24.get_by_label("reason").fill("the story needs it")
    r24.get_by_role("button", name="Override").click()
    expect(page.get_by_role("status")).to_contain_text("r24 granted by hand")
    expect(page.locator("#request-r23")).to_contain_text(
        "r24 was granted by hand there: the story needs it"
    )


def test_after_publishing_the_refused_crew_is_offered_the_way_forward(
    browser: Browser, site: Site
) -> None:
    page = sign_in(browser, site, "officer")
    page.on("dialog", lambda dialog: dialog.accept())  # Decide drops the grant by hand
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decisions by hand dropped: r24")
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text("Published")
    r24 = page.locator("#request-r24")
    expect(r24).to_contain_text("Cannot be granted by hand: tunnel, post-match")
    expect(page.locator(BIG)).to_contain_text("Granted there though ranked after it")
    altercation = page.locator("#incidents li", has_text="dressing-room-altercation")
    expect(altercation).to_contain_text("it would have caught this: r24")
    screenshot(page, "explained-officer.png")
    r24.get_by_role("link", name="What if there were room").click()
    result = page.locator("#what-if-result")
    expect(result).to_contain_text("r24 would be granted")
    expect(result.locator("li", has_text="dressing-room-altercation")).to_contain_text(
        "caught by r24"
    )


def test_a_what_if_grant_without_consent_is_only_if(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    page.goto(f"{site.url}{BOARD}what-if/")
    page.get_by_label("grant man-city-documentary.hdr1").check()
    page.get_by_role("button", name="Show what would change").click()
    expect(page.locator("#what-if-result")).to_contain_text(
        "man-city-documentary.hdr1 could be granted only if this were not so"
    )


def test_the_requester_reads_the_policy_without_others_requests(
    browser: Browser, site: Site
) -> None:
    page = sign_in(browser, site, "documentary", width=390)
    page.goto(f"{site.url}{BOARD}")
    big = page.locator(BIG)
    expect(big).to_contain_text("Crews of its tier or a lower one hold places there.")
    expect(big).not_to_contain_text("sent later")
    big.scroll_into_view_if_needed()
    screenshot(page, "explained-requester-phone.png", full_page=False)
    officer = sign_in(browser, site, "officer", width=390)
    officer.goto(f"{site.url}{BOARD}")
    assert officer.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    row = officer.locator("#request-r24")
    row.scroll_into_view_if_needed()
    expect(row).to_contain_text("Cannot be granted by hand")
    screenshot(officer, "explained-officer-phone.png", full_page=False)
