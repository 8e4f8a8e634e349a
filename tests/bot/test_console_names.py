"""The console names people as Slack does (issue 39, item 6): a commit's author, an entry's
`by:`, a proposal's or a reminder's Slack user id (`U0ALICE`) shows as their display name,
asked of Slack's users.info (the loopback fake answers Slack's own shape, tests/data/
slack-web-api/) once per person however many pages show them, at most jobs.names.MAX_ASKED new
people a page; an id Slack cannot name stays an id. Real git, Redis and the web app."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.names import MAX_ASKED
from jobs.runtime import Runtime
from memory import writes
from memory.git import Author
from tests.bot.test_console import make_rt, sign_in
from tests.fakes.slack import SlackFake


@pytest.fixture
def rt(tmp_path: Path, redis_url: str, slack_fake: SlackFake) -> Iterator[Runtime]:
    runtime = make_rt(
        tmp_path, redis_url=redis_url, slack_bot_token="xoxb-test", slack_api_url=slack_fake.url
    )
    yield runtime
    runtime.close()


@pytest.fixture
def signed(rt: Runtime) -> FlaskClient:
    client = create_app(rt.config, rt).test_client()
    sign_in(client)
    return client


def someone() -> str:
    """A Slack user id no other test used (names are kept per process)."""
    return "U0" + uuid.uuid4().hex[:9].upper()


def asked(fake: SlackFake, user: str) -> int:
    return sum(1 for c in fake.calls("users.info") if c.form.get("user") == user)


def test_slack_ids_show_as_display_names_asked_once(
    signed: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    alice = someone()
    slack_fake.users[alice] = {
        "name": "alice", "real_name": "Alice Doe",
        "profile": {"display_name": "alice.d", "real_name": "Alice Doe"},
    }  # fmt: skip
    op = writes.AddEntry("services/checkout.md", "the cache warms at six", (("by", alice),))
    rt.store.write([op], author=Author(alice, f"{alice}@slack"), message="note from Slack")
    history = signed.get("/console/history").get_data(as_text=True)
    assert f'<td class="who" title="{alice}">alice.d</td>' in history
    page = signed.get("/console/file/services/checkout.md").get_data(as_text=True)
    assert f'<span class="who" title="{alice}">alice.d</span>' in page  # by:, last changed
    assert '<td class="who" title="ann">ann</td>' in history  # a git author's name is a name
    assert asked(slack_fake, "ann") == 0
    assert asked(slack_fake, alice) == 1


def test_an_id_slack_cannot_name_stays_an_id_and_is_asked_once(
    signed: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    gone = someone()
    slack_fake.script("users.info", (200, {"ok": False, "error": "user_not_found"}, {}))
    rt.store.write(
        [writes.AddEntry("services/checkout.md", "the queue drains first")],
        author=Author(gone, f"{gone}@slack"),
        message="note",
    )
    for _ in range(2):
        history = signed.get("/console/history").get_data(as_text=True)
        assert f'<td class="who" title="{gone}">{gone}</td>' in history
    assert asked(slack_fake, gone) == 1


def test_a_page_asks_slack_about_a_bounded_number_of_people(
    signed: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    """A history of 25 people no one has seen asks about MAX_ASKED; the next view the rest."""
    people = [someone() for _ in range(MAX_ASKED + 5)]
    for i, who in enumerate(people):
        slack_fake.users[who] = {"profile": {"display_name": f"person {i}"}}
        op = writes.AddEntry("services/checkout.md", f"fact number {i} of many")
        rt.store.write([op], author=Author(who, f"{who}@slack"), message=f"note {i}")
    first = signed.get("/console/history").get_data(as_text=True)
    assert len(slack_fake.calls("users.info")) == MAX_ASKED
    assert len(re.findall(r'title="U0[0-9A-F]+">U0', first)) == 5  # shown as ids this time
    second = signed.get("/console/history").get_data(as_text=True)
    assert len(slack_fake.calls("users.info")) == MAX_ASKED + 5
    assert all(f">person {i}<" in second for i in range(len(people)))
