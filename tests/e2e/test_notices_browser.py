"""Issue 11's notices in a real browser, on `make demo`'s server and its worker: the
documentary's webhook is added from the command line; the officer decides and publishes
on the board; the worker e-mails the documentary crew (a file in the demo's mail folder)
and POSTs the signed notices to its webhook; the crew opens Notices on a phone and reads
what changed, then chooses what it hears about. Screenshots at 1280 and 390 px land in
test-artefacts/.

One module, one server (its own): the steps build on each other in the order written.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from browsing import Site
from playwright.sync_api import Browser, expect
from standardwebhooks import Webhook
from test_browser import BOARD, screenshot, sign_in

pytestmark = pytest.mark.slow
GOT: list[tuple[dict[str, str], bytes]] = []
SECRET: list[str] = []


class _Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        GOT.append(
            (dict(self.headers.items()), self.rfile.read(int(self.headers["content-length"])))
        )
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def receiver() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pitchpass"
    server.shutdown()
    server.server_close()


def _wait(check: Any, what: str, seconds: float = 45) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.25)
    pytest.fail(f"not within {seconds} s: {what}")


def test_the_documentary_adds_a_webhook(site: Site, receiver: str) -> None:
    env = dict(os.environ, PITCHPASS_HOME=str(site.home), PITCHPASS_WEBHOOK_PRIVATE="1")
    env.pop("DATABASE_URL", None)
    added = subprocess.run(
        [sys.executable, "-m", "pitchpass", "webhook", "add", "man-city-documentary", receiver],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    SECRET.append(added.stdout.split("secret: ")[1].strip())


def test_the_officer_publishes_and_the_crew_is_told(browser: Browser, site: Site) -> None:
    page = sign_in(browser, site, "officer")
    page.goto(f"{site.url}{BOARD}")
    page.get_by_role("button", name="Decide").click()
    expect(page.get_by_role("status")).to_contain_text("Decided")
    page.once("dialog", lambda dialog: dialog.accept())  # "Publish the grants of run 1?"
    page.get_by_role("button", name="Publish").click()
    expect(page.get_by_role("status")).to_contain_text("Published")

    def mails() -> list[str]:
        folder = Path(site.home) / "mail"
        files = sorted(folder.glob("*.log")) if folder.exists() else []
        texts = [f.read_text() for f in files]
        return [t for t in texts if "documentary@demo.pitchpass.invalid" in t]

    # The decide and the publish: one e-mail each, sent by the worker beside the server.
    told = _wait(lambda: [t for t in mails() if "refused (published)" in t], "the e-mail")
    assert "r24" in told[0] and "46 of 46" in told[0] and "r02" not in told[0]
    # The webhook: each notice signed; the receiver's check passes with the secret.
    _wait(lambda: any(b"notice.refused" in body for _, body in GOT), "the webhook")
    events = [Webhook(SECRET[0]).verify(body, headers) for headers, body in GOT]
    kinds = {(e["type"], e["data"]["request"]) for e in events}
    assert ("notice.refused", "r24") in kinds and ("notice.granted", "r25") in kinds
    assert {e["data"]["request"] for e in events} <= {"r24", "r25"}  # its own alone


def test_the_crew_reads_its_notices_on_a_phone(browser: Browser, site: Site) -> None:
    for width in (1280, 390):
        page = sign_in(browser, site, "documentary", width)
        if width == 1280:
            expect(page.get_by_role("link", name="Notices")).to_contain_text("new")
            # The page, once shown, posts that it was seen (its GET writes nothing).
            with page.expect_response(lambda r: r.url.endswith("/notices/seen/")) as seen:
                page.get_by_role("link", name="Notices").click()
            assert seen.value.status == 204
            page.reload()
            expect(page.get_by_role("link", name="Notices")).not_to_contain_text("new")
        else:
            page.get_by_role("link", name="Notices").click()
        table = page.get_by_role("table", name="notices")
        expect(table).to_contain_text("r24")
        expect(table).to_contain_text("refused (published)")
        expect(table).to_contain_text("46 of 46")
        expect(table).not_to_contain_text("r02")
        screenshot(page, f"notices-documentary-{width}.png")
    # It hears of refusals alone from now on.
    page.get_by_label("As I tick below").check()
    for box in page.get_by_role("checkbox").all():
        box.uncheck()
    page.locator("input[name=kind][value=refused]").check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved: you hear of refused")
    expect(page.locator("input[name=kind][value=granted]")).not_to_be_checked()
    screenshot(page, "notices-chosen-390.png")
