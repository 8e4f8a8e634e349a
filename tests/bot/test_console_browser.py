"""The console in a real headless Chromium (Debian's package, driven by Playwright).

Runs wherever a Chromium is found; in CI (CI=true) a missing Chromium is a failure, not a skip.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from werkzeug.serving import make_server

from bot.app import create_app
from jobs.config import Config
from jobs.dream import run_dream
from jobs.runtime import Runtime
from memory import writes
from memory.git import Author
from tests.fakes.slack import SlackFake

pytestmark = pytest.mark.browser

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
TOKEN = "browser-token"
FACT = "deploys freeze on Fridays"


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("no Chromium in CI: .ci/run must install Debian's chromium package")
    pytest.skip("no Chromium here (apt-get install chromium)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    path = chromium()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=ARGS, headless=True)
        yield b
        b.close()


@contextlib.contextmanager
def serving(tmp_path: Path, **extra: Any) -> Iterator[tuple[str, Runtime]]:
    """The web app on loopback over a memory seeded with one entry by ann."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        console_token=TOKEN,
        secret_key="browser-secret",
        **extra,
    )
    rt = Runtime(config)
    rt.store.init()
    rt.store.write(
        [
            writes.AddEntry(
                "team/releases.md", FACT, (("source", "https://example.test/r1"),), "Releases"
            )
        ],
        author=Author("ann", "ann@example.com"),
        message="seed",
    )
    server = make_server("127.0.0.1", 0, create_app(config, rt), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", rt
    finally:
        server.shutdown()
        thread.join(5)
        rt.close()


@pytest.fixture
def base_url(tmp_path: Path) -> Iterator[tuple[str, Runtime]]:
    with serving(tmp_path) as served:
        yield served


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    p = context.new_page()
    p.set_default_timeout(15_000)
    yield p
    context.close()


def test_sign_in_edit_entry_see_history_and_revert(
    page: Page, base_url: tuple[str, Runtime]
) -> None:
    """In Chromium: sign in with the token, edit an entry, see the commit in history, revert it."""
    url, rt = base_url
    page.goto(f"{url}/console/file/team/releases.md")
    expect(page).to_have_url(f"{url}/console/login?next=/console/file/team/releases.md")
    page.fill("input[name=name]", "Dee")
    page.fill("input[name=token]", TOKEN)
    page.click("text=Sign in with token")
    expect(page.locator("h1")).to_have_text("team/releases.md")
    expect(page.locator("td.source a")).to_have_attribute("href", "https://example.test/r1")

    page.click("a.edit-entry")
    page.fill("input[name=text]", "deploys freeze on Fridays after 3pm")
    page.fill("input[name=message]", "narrow the freeze")
    page.click("text=Save entry")
    expect(page.locator("td.text").first).to_contain_text("after 3pm")
    assert rt.store.log(limit=1)[0].author == "Dee"

    page.click("text=History")
    page.click("text=narrow the freeze")
    expect(page.locator("pre.diff .add")).to_contain_text("after 3pm")
    page.click("text=Revert this commit")
    expect(page.locator(".flash.ok")).to_contain_text("Reverted")
    assert f"- {FACT} [source: https://example.test/r1]" in rt.store.read("team/releases.md")

    page.goto(f"{url}/console/history/team/releases.md")
    expect(page.locator("tr.commit").first).to_contain_text('revert: "narrow the freeze"')


def sign_in(page: Page, url: str, where: str) -> None:
    page.goto(f"{url}{where}")
    page.fill("input[name=name]", "Dee")
    page.fill("input[name=token]", TOKEN)
    page.click("text=Sign in with token")


def test_people_show_by_their_slack_names(
    page: Page, tmp_path: Path, slack_fake: SlackFake, redis_url: str
) -> None:
    """Issue 39, item 6: a Slack user id (an author, an entry's `by:`) reads as the person's
    Slack display name (users.info on the loopback fake, Slack's own answer), the id kept as
    the element's title."""
    slack_fake.users["U0ALICE7"] = {"profile": {"display_name": "Alice", "real_name": "A. Doe"}}
    extra = {"slack_bot_token": "xoxb-test", "slack_api_url": slack_fake.url}
    with serving(tmp_path, redis_url=redis_url, **extra) as (url, rt):
        op = writes.AddEntry("team/releases.md", "the freeze ends at noon", (("by", "U0ALICE7"),))
        rt.store.write([op], author=Author("U0ALICE7", "U0ALICE7@slack"), message="from Slack")
        sign_in(page, url, "/console/history")
        who = page.locator("tr.commit td.who").first
        expect(who).to_have_text("Alice")
        expect(who).to_have_attribute("title", "U0ALICE7")
        page.goto(f"{url}/console/file/team/releases.md")
        expect(page.locator("td.by .who")).to_have_text("Alice")


def test_memory_health_is_drawn_as_charts(page: Page, tmp_path: Path, redis_url: str) -> None:
    """Issue 39, item 8: after two dreams the activity page shows the memory's health as
    server-drawn SVG (no script): entries by standing per night, one point per night and
    standing, each naming its night and count; the files nobody reads and recalls per day."""
    with serving(tmp_path, redis_url=redis_url) as (url, rt):
        run_dream(rt, now_iso="2026-11-29T03:00")
        op = writes.AddEntry("team/releases.md", "the freeze may move", (("status", "tentative"),))
        rt.store.write([op], author=Author("ann", "ann@example.com"), message="more")
        run_dream(rt, now_iso="2026-11-30T03:00")
        sign_in(page, url, "/console/activity")
        standing = page.locator("figure.standing svg.chart")
        expect(standing).to_be_visible()
        box = standing.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 60
        dots = standing.locator("circle")
        expect(dots).to_have_count(6)  # 2 nights x active, tentative, revoked
        titles = [t.strip() for t in standing.locator("circle title").all_text_contents()]
        assert "2026-11-28 · active: 1" in titles and "2026-11-29 · tentative: 1" in titles
        expect(page.locator("figure.recalls svg.chart")).to_be_visible()
        assert page.locator("script").count() == 0


def test_no_chromium_fails_in_ci_and_skips_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a Chromium on PATH the browser tests fail when CI=true and are skipped otherwise."""
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no chromium to be found
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no Chromium in CI"):
        chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        chromium()
