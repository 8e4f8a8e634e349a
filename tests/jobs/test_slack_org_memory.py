"""The org memory in Slack (issue 39, item 5): Slack recall and the Slack agent's briefing read
every open memory, as the CLI, MCP and the console do: the team's (a local bare remote), the
org's (a loopback git server with its own password), and the asker's own only where only they
read the answer. Lines are labelled with their memory and link to that memory's console page.
Through signed requests → /slack/events → a real Celery worker → git → the loopback Slack and
Anthropic fakes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from demo.worker import worker_thread
from jobs import memories
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.read_counts import read_counts
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import AddEntry
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import SECRET, SlackFake
from tests.memories_helpers import servers_fixture, urls  # noqa: F401
from tests.slack_helpers import mention, post

pytestmark = pytest.mark.integration
W222 = Author("W222", "w222@example.com")  # the Slack user who asks (tests/slack_helpers.py)
ORG_FACT = "every team signs in through the Okta SSO tenant"
TEAM_FACT = "the checkout service signs in through Okta as well"
OWN_FACT = "I keep my Okta recovery codes in the vault"


@pytest.fixture
def claude() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        fake.default = lambda body: fake.text("An answer.")
        yield fake


@pytest.fixture
def worker(
    tmp_path: Path,
    servers: dict[str, Path],
    slack_fake: SlackFake,
    claude: FakeAnthropic,
    embedded_redis_url: str,
) -> Iterator[Runtime]:
    url = urls(tmp_path)
    config = Config(
        redis_url=embedded_redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        memory_username="hippo",
        personal_remote_template=url["template"],
        personal_memory_token="people-pw",
        org_memory_remote=url["org"],
        org_memory_token="org-pw",
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack_fake.url,
        anthropic_api_key="test",
        anthropic_base_url=claude.url,
        public_url="http://hippo.test",
    )
    rt = Runtime(config)
    rt.redis.flushall()
    rt.store.init()
    rt.store.write([AddEntry("services/checkout.md", TEAM_FACT)], author=W222, message="seed")
    org = memories.runtime_for(rt, "org").store
    org.write([AddEntry("it/sso.md", ORG_FACT)], author=W222, message="seed")
    own = memories.runtime_for(rt, "me", "W222").store
    own.write([AddEntry("inbox.md", OWN_FACT)], author=W222, message="seed")
    with worker_thread(make_celery(rt)):
        yield rt
    rt.redis.close()


@pytest.fixture
def client(worker: Runtime) -> FlaskClient:
    return create_app(worker.config, worker).test_client()


def replies(fake: SlackFake, n: int) -> list[dict[str, Any]]:
    return [c.form for c in fake.wait_for("chat.postMessage", n)]


def test_recall_reads_the_org_memory_labelled_with_links_to_its_console(
    client: FlaskClient, slack_fake: SlackFake, worker: Runtime
) -> None:
    """In a channel: the team's and the org's lines, each labelled, the org's linking to the
    org memory's console page, and counted as read in the org memory; the asker's own line is
    only counted. In a DM it joins, labelled [me]."""
    post(client, mention("what do you know about Okta?", event_id="Ev1", ts="1.1"))
    public = replies(slack_fake, 1)[0]["text"]
    assert f"[org] {ORG_FACT} — <http://hippo.test/m/org/console/file/it/sso.md|it/sso.md>" in (
        public
    )
    assert f"[team] {TEAM_FACT} — <http://hippo.test/console/file/services/checkout.md|" in public
    assert OWN_FACT not in public and "1 more in your own memory" in public
    org_workspace = memories.runtime_for(worker, "org").config.workspace
    assert read_counts(worker.redis, org_workspace) == {"it/sso.md": 1}
    assert "it/sso.md" not in read_counts(worker.redis, worker.config.workspace)
    post(client, mention("what do you know about Okta?", event_id="Ev2", ts="1.2", channel="D1"))
    private = replies(slack_fake, 2)[1]["text"]
    assert f"[me] {OWN_FACT} — <http://hippo.test/m/me/console/file/inbox.md|" in private
    assert f"[org] {ORG_FACT}" in private and "more in your own memory" not in private


def test_the_agents_briefing_reads_the_org_memory(
    client: FlaskClient, slack_fake: SlackFake, claude: FakeAnthropic
) -> None:
    """A question in a channel thread: the prompt's briefing holds the org's matching line and
    the team's, each labelled; never the asker's own (everyone reads the answer)."""
    post(client, mention("how does the checkout team sign in to Okta?", event_id="Ev3", ts="2.1"))
    replies(slack_fake, 1)
    [turn] = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"]
    block = turn["system"][-1]["text"]
    assert f"[org] {ORG_FACT}" in block and f"[team] {TEAM_FACT}" in block
    assert OWN_FACT not in block
