"""The Content-Security-Policy allows no inline script (issue 10): every page works from
its files alone. Chromium reports each violation on the console; none may appear while
each role uses the pages, and the behaviours that moved out of inline handlers (confirm
before Decide, the what-if ticks, the address after an error) still work.

One module, one server (its own): the steps build on each other in the order written.
"""

from __future__ import annotations

import pytest
from browsing import Site
from playwright.sync_api import Browser, Page, expect
from test_browser import BOARD, sign_in

pytestmark = pytest.mark.slow


def watched(page: Page) -> list[str]:
    """The console's complaints about the policy, as they come."""
    seen: list[str] = []
    page.on(
        "console",
        lambda message: (
            seen.append(message.text)
            if "Content Security Policy" in message.text
            or "Content-Security-Policy" in message.text
            else None
        ),
    )
    return seen


def test_the_policy_is_sent_and_forbids_inline_script(browser: Browser, site: Site) -> None:
    page = browser.new_context().new_page()
    answer = page.goto(f"{site.url}/login/")
    assert answer is not None
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]


def test_decide_asks_before_dropping_decisions_by_hand(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    complaints = watched(page)
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()  # nothing by hand yet: no question
    expect(page.get_by_role("status")).to_contain_text("Decided")
    r24 = page.locator("#request-r24")
    r24.locator("summary", has_text="Override").click()
    r24.get_by_label("new status").select_option("granted")
    r24.get_by_label("reason").fill("the story needs it")
    r24.get_by_role("button", name="Override").click()
    expect(page.get_by_role("status")).to_contain_text("r24 granted by hand")
    asked: list[str] = []

    def dismiss(dialog) -> None:  # type: ignore[no-untyped-def]
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", dismiss)
    page.get_by_role("button", name="Decide").click()
    expect(page.locator("#request-r24")).to_contain_text("granted by hand")  # kept
    assert asked == ["Deciding again drops the 1 decision made by hand. Decide?"]
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decisions by hand dropped: r24")
    page.goto(f"{site.url}{BOARD}what-if/")
    page.get_by_label("grant r24").check()
    page.get_by_label("refuse r24").check()
    expect(page.get_by_label("grant r24")).not_to_be_checked()
    assert complaints == [], complaints


def test_an_error_sets_the_address_back_to_the_board(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "steward")
    complaints = watched(page)
    page.goto(f"{site.url}{BOARD}")
    page.get_by_text("Log an incident").click()
    form = page.get_by_role("form", name="log an incident")
    form.get_by_label("Zone").select_option("tunnel")
    form.get_by_label("Minute").fill("900")
    form.get_by_role("button", name="Log incident").click()
    expect(page.get_by_role("alert")).to_contain_text("outside every phase")
    expect(page).to_have_url(f"{site.url}{BOARD}")  # not the action's address
    assert complaints == [], complaints


def test_the_request_form_and_the_api_docs_keep_to_the_policy(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "documentary")
    complaints = watched(page)
    page.goto(f"{site.url}{BOARD}requests/new/")
    page.get_by_label("Zone").select_option("pitch-side")
    page.get_by_label("pre-match").check()
    expect(page.locator("#room")).to_contain_text("pitch-side, pre-match")
    page.goto(f"{site.url}/api/docs")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    assert complaints == [], complaints
