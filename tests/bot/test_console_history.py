"""The console's search over history: who added, changed or removed matching entries, why and
on what evidence, through the Flask app signed in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.runtime import Runtime
from memory import writes as ops
from memory.git import Author
from tests.bot.test_console import FACT, make_rt, sign_in

BOB = Author("bob", "bob@example.com")


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[Runtime]:
    runtime = make_rt(tmp_path)
    fix = ops.ReplaceEntry("services/checkout.md", FACT, "checkout-api 504s come from our proxy")
    runtime.store.write([fix], author=BOB, message="504s\n\nthe vendor was cleared <b>twice</b>")
    other = ops.AddEntry("services/other.md", "the sandbox resets nightly")
    runtime.store.write([other], author=BOB, message="other")
    yield runtime
    runtime.close()


@pytest.fixture
def signed(rt: Runtime) -> FlaskClient:
    client = create_app(rt.config, rt).test_client()
    sign_in(client)
    return client


def test_search_shows_who_what_why_and_evidence(signed: FlaskClient) -> None:
    page = signed.get("/console/history?q=checkout-api+504s").get_data(as_text=True)
    who = '<strong class="who" title="{0}">{0}</strong>'
    assert page.index(who.format("bob")) < page.index(who.format("ann"))  # newest first
    assert "changed in" in page and FACT in page and "our proxy" in page
    assert "Why: the vendor was cleared &lt;b&gt;twice&lt;/b&gt;" in page  # escaped, not markup
    assert '<a href="https://example.test/p123" rel="noopener noreferrer">' in page
    assert "the sandbox resets nightly" not in page


def test_search_in_one_file_and_since(signed: FlaskClient) -> None:
    page = signed.get("/console/history/services/other.md?q=sandbox").get_data(as_text=True)
    assert "the sandbox resets nightly" in page and FACT not in page
    later = signed.get("/console/history?q=sandbox&since=2999-01-01").get_data(as_text=True)
    assert "No commit changed an entry matching that since 2999-01-01" in later
    recent = signed.get("/console/history?since=2000-01-01").get_data(as_text=True)
    assert recent.count('class="change"') == 4  # init, seed, the fix, other


def test_a_bad_date_is_answered_on_the_page(signed: FlaskClient) -> None:
    resp = signed.get("/console/history?q=sandbox&since=soon")
    page = resp.get_data(as_text=True)
    assert resp.status_code == 400 and "is not a date" in page and 'value="sandbox"' in page


def test_search_needs_sign_in(rt: Runtime) -> None:
    resp = create_app(rt.config, rt).test_client().get("/console/history?q=sandbox")
    assert resp.status_code == 302 and "/console/login" in resp.headers["Location"]


def test_a_long_query_says_what_was_not_searched(signed: FlaskClient) -> None:
    """Issue 37: a query past the search bounds is cut, and the page says what was left out."""
    page = signed.get("/console/history?q=sandbox+" + "q" * 5000).get_data(as_text=True)
    assert "Searched a shorter query: only its first 1,000 characters were read" in page
