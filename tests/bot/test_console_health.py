"""The memory's health in the console (issue 39, item 8): after each dream the night's figures
are kept (jobs/memory_health.py), and /console/activity draws them on the server as SVG:
entries by standing per night, stale facts fixed and deleted, what waits for people, recalls
per day, the files nobody reads. Real dreams on a real git memory and Redis; the charts'
builder on hostile text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from bot.console.charts import chart
from jobs import memory_health
from jobs.dream import run_dream
from jobs.read_counts import ReadBy, count_read
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import AddEntry, WriteFile
from tests.bot.test_console import make_rt, sign_in

AGENT_LINE = "the checkout cache warms at seven"


@pytest.fixture
def rt(tmp_path: Path, redis_url: str) -> Iterator[Runtime]:
    runtime = make_rt(tmp_path, redis_url=redis_url)
    yield runtime
    runtime.close()


def two_nights(rt: Runtime) -> None:
    """Night one: the seed (one active entry, one tentative). Night two: an agent's line that
    contradicts a person's, an open reminder; a file read once."""
    run_dream(rt, now_iso="2026-11-29T03:00")
    rt.store.write(
        [
            WriteFile("services/cache.md", "# Cache\n\n- the checkout cache warms at six\n"),
            WriteFile("reminders.md", "# Reminders\n\n- rotate the TLS certificate [due: 2026-12-20]\n"),
            AddEntry(
                "services/cache.md", AGENT_LINE,
                (("status", "tentative"), ("kind", "fact"), ("contradicts", "the checkout cache warms at six")),
            ),
        ],
        author=Author("ann", "ann@example.com"),
        message="more",
    )  # fmt: skip
    count_read(rt.redis, rt.config.workspace, "services/cache.md", by=ReadBy("W1", "slack"))
    run_dream(rt, now_iso="2026-11-30T03:00")


def test_each_night_keeps_its_figures(rt: Runtime) -> None:
    two_nights(rt)
    nights = memory_health.nights(rt.redis, rt.config.workspace)
    assert [n["night"] for n in nights] == ["2026-11-28", "2026-11-29"]
    first, second = nights
    assert (first["active"], first["tentative"], first["revoked"]) == (1, 1, 0)
    assert second["contradictions"] == 1 and second["reminders"] == 1
    assert second["active"] >= 2 and second["tentative"] >= 2


def test_the_activity_page_draws_the_nights(rt: Runtime) -> None:
    two_nights(rt)
    client: FlaskClient = create_app(rt.config, rt).test_client()
    sign_in(client)
    page = client.get("/console/activity").get_data(as_text=True)
    assert page.count('<svg class="chart') == 4 and "<script" not in page
    assert "<title>2026-11-29 · contradictions: 1</title>" in page
    assert "<title>2026-11-28 · tentative: 1</title>" in page
    today = re.search(r"<title>(\d{4}-\d\d-\d\d) · recalls: 1</title>", page)
    assert today is not None  # the read above, on today's bar
    assert '<b>1</b><a href="/console/proposals">contradictions</a>' in page


def test_nothing_recorded_says_so(rt: Runtime) -> None:
    client: FlaskClient = create_app(rt.config, rt).test_client()
    sign_in(client)
    page = client.get("/console/activity").get_data(as_text=True)
    assert "No night recorded yet" in page
    assert "Entries by standing: nothing recorded yet." in page


def test_the_charts_escape_what_they_draw() -> None:
    """Labels and series names come from Redis: drawn as text, never as markup."""
    svg = str(
        chart("T <b>", ["<script>alert(1)</script>", "b"], [('x" onload="y', [1, 2])], "lines")
    )
    assert "<script>" not in svg and "&lt;script&gt;" in svg and 'onload="y' not in svg
    bars = str(chart("B", ["a", "b", "c"], [("fixed", [0, 3, 1]), ("deleted", [1, 0, 1])], "bars"))
    assert bars.count("<rect") == 4  # a zero draws nothing
    area = str(chart("A", ["a", "b"], [("active", [5, 6]), ("revoked", [0, 1])], "area"))
    assert area.count("<polygon") == 2 and "<title>b · revoked: 1</title>" in area
