"""Slack notes into several memories: the team's on one remote, each person's own on a loopback
git server (smart HTTP, its own password), through signed requests, the Celery worker and the
fake Slack; an unclear note is a question in the thread, not a commit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from demo.worker import worker_thread
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from tests.fakes.slack import SECRET as SLACK_SECRET
from tests.fakes.slack import SlackFake
from tests.memories_helpers import on_server, servers_fixture, urls  # noqa: F401
from tests.slack_helpers import mention, post

pytestmark = pytest.mark.integration


@pytest.fixture
def worker(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake, embedded_redis_url: str
) -> Iterator[Runtime]:

    config = Config(
        redis_url=embedded_redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        memory_username="hippo",
        personal_remote_template=urls(tmp_path)["template"],
        personal_memory_token="people-pw",
        slack_bot_token="xoxb-test",
        slack_signing_secret=SLACK_SECRET,
        slack_api_url=slack_fake.url,
        public_url="http://hippo.test",
    )
    rt = Runtime(config)
    rt.redis.flushall()
    rt.store.init()
    with worker_thread(make_celery(rt)):
        yield rt
    rt.redis.close()


@pytest.fixture
def client(worker: Runtime) -> FlaskClient:
    return create_app(worker.config, worker).test_client()


def replies(fake: SlackFake, n: int) -> list[dict[str, Any]]:
    return [c.form for c in fake.wait_for("chat.postMessage", n)]


def team_inbox(rt: Runtime) -> str:
    repo = pygit2.Repository(rt.config.memory_remote)
    blob = repo.revparse_single("main:inbox.md")
    return blob.data.decode() if isinstance(blob, pygit2.Blob) else ""


def test_notes_go_by_scope_and_an_unclear_one_is_asked_about(
    client: FlaskClient, slack_fake: SlackFake, worker: Runtime, servers: dict[str, Path]
) -> None:
    mine = servers["W222"]  # the Slack user who asks (tests/slack_helpers.py)
    post(
        client,
        mention("save a note: I prefer tabs over spaces", event_id="Ev1", ts="1700000001.000100"),
    )
    [saved] = replies(slack_fake, 1)
    assert "Saved to your own memory, `inbox.md`" in saved["text"]
    assert "I prefer tabs over spaces [source: " in on_server(mine, "inbox.md")
    assert "by: W222" in on_server(mine, "inbox.md") and "tabs" not in team_inbox(worker)
    assert "tabs" not in on_server(servers["bob"], "inbox.md")

    post(
        client,
        mention(
            "save a note: the deploy drains the queue first", event_id="Ev2", ts="1700000002.000100"
        ),
    )
    assert "console/file/inbox.md" in replies(slack_fake, 2)[1]["text"]
    assert "drains the queue" in team_inbox(worker)

    post(
        client,
        mention(
            "remember that I prefer we deploy on Fridays", event_id="Ev3", ts="1700000003.000100"
        ),
    )
    asked = replies(slack_fake, 3)[2]["text"]
    assert "Not saved yet: which memory" in asked
    assert "your own memory or the team memory" in asked and "save a note to my memory" in asked
    assert "Fridays" not in team_inbox(worker) + on_server(mine, "inbox.md")

    post(
        client,
        mention(
            "save a note to the team memory: I prefer we deploy on Fridays",
            event_id="Ev4",
            ts="1700000004.000100",
        ),
    )
    replies(slack_fake, 4)
    assert "deploy on Fridays" in team_inbox(worker)
    post(
        client,
        mention(
            "save a note to my memory: my deploy checklist is pinned",
            event_id="Ev5",
            ts="1700000005.000100",
        ),
    )
    assert "your own memory" in replies(slack_fake, 5)[4]["text"]
    assert "deploy checklist" in on_server(mine, "inbox.md")


def test_recall_shows_the_askers_own_lines_only_where_only_they_see_them(
    client: FlaskClient, slack_fake: SlackFake, worker: Runtime, servers: dict[str, Path]
) -> None:
    post(client, mention("save a note: I prefer tabs over spaces", event_id="Ev1", ts="1.1"))
    post(client, mention("save a note: the linter enforces tabs", event_id="Ev2", ts="1.2"))
    replies(slack_fake, 2)
    post(client, mention("what do you know about tabs?", event_id="Ev3", ts="1.3"))
    public = replies(slack_fake, 3)[2]["text"]
    assert "the linter enforces tabs" in public and "I prefer tabs" not in public
    assert "1 more in your own memory: ask me in a DM" in public
    post(client, mention("what do you know about tabs?", event_id="Ev4", ts="1.4", channel="D01"))
    private = replies(slack_fake, 4)[3]["text"]
    assert "• [me] I prefer tabs over spaces — <http://hippo.test/m/me/console/file/inbox.md|" in (
        private
    )
    assert "• [team] the linter enforces tabs — <http://hippo.test/console/file/inbox.md|" in (
        private
    )
