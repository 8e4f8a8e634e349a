"""Repository preferences from Slack, and the briefing in the agent's prompt when a thread names
a repository: signed requests → /slack/events → a real Celery worker → git → the loopback Slack."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs import oplog
from jobs.agent.turn import Question, take_turn
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import WriteFile
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import SECRET, SlackFake
from tests.slack_helpers import command, mention, post

ANN = Author("ann", "ann@example.com")
LESSON = "Observed: people edit the agent's changes to tests/api/*.py: they added `fixture`"
CONVENTIONS = (
    "# Conventions: acme/shop\n\n"
    f"- {LESSON} [source: https://github.com/acme/shop/pull/7; status: active; "
    "scope: tests/api/*.py]\n"
    "- Observed: people put `print` back [source: https://github.com/acme/shop/pull/5; "
    "status: revoked]\n"
)


def replies(fake: SlackFake, n: int) -> list[dict[str, Any]]:
    return [c.form for c in fake.wait_for("chat.postMessage", n)]


def remote_messages(rt: Runtime) -> list[str]:
    repo = pygit2.Repository(rt.config.memory_remote)
    return [c.message for c in repo.walk(repo.head.target)]


@pytest.mark.integration
def test_repository_preferences_from_mentions_and_the_command(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """ "@hippo in acme/shop, …" and `/hippo instructions add --repo acme/shop …` each add a line
    to preferences/repos/acme/shop.md (one commit each); list and remove take --repo too; a
    question naming the repository is not taken for a preference."""
    rt = celery_worker_for
    client: FlaskClient = create_app(rt.config, rt).test_client()
    text = "in acme/shop, when you open a pull request here, assess its impact on billing"
    post(client, mention(text, event_id="EvR1", ts="7.0"))
    first = replies(slack_fake, 1)[0]["text"]
    assert first.startswith("Noted for acme/shop: “when you open a pull request here, assess")
    post(client, command("instructions add --repo acme/shop run the contract tests", trigger="r2"))
    replies(slack_fake, 2)
    prefs = rt.store.read("preferences/repos/acme/shop.md")
    assert prefs.startswith("# Repository acme/shop: how to work here\n")
    assert "- when you open a pull request here, assess its impact on billing [source: " in prefs
    assert "- run the contract tests [source: " in prefs and "by: W" in prefs
    post(client, command("instructions --repo acme/shop", trigger="r3"))
    listing = replies(slack_fake, 3)[2]["text"]
    assert "Instructions for acme/shop" in listing and "2. run the contract tests" in listing
    post(client, command("instructions remove --repo acme/shop 2", trigger="r4"))
    assert "Removed instruction 2 from acme/shop" in replies(slack_fake, 4)[3]["text"]
    assert "contract tests" not in rt.store.read("preferences/repos/acme/shop.md")
    assert sum(m.startswith("instructions acme/shop") for m in remote_messages(rt)) == 3
    post(client, command("instructions add --repo acme reply fast", trigger="r5"))
    assert "'acme' is not a repository: write owner/name" in replies(slack_fake, 5)[4]["text"]
    assert rt.store.read_or_none("preferences/channels/dev.md") is None


def _runtime(tmp_path: Path, slack: SlackFake, claude: FakeAnthropic | None) -> Runtime:
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack.url,
        anthropic_api_key="test" if claude else "",
        anthropic_base_url=claude.url if claude else "",
        model="claude-sonnet-5-5",
        small_model="claude-haiku-5-5",
    )
    rt = Runtime(config)
    rt.store.init()
    rt.store.write(
        [
            WriteFile("conventions/acme/shop.md", CONVENTIONS),
            WriteFile("preferences/repos/acme/shop.md", "# acme/shop\n\n- assess billing impact\n"),
            WriteFile("MEMORY.md", "# Memory\n\n- deploys at 10:00\n"),
        ],
        author=ANN,
        message="seed",
    )
    make_celery(rt)  # binds the tasks to this Runtime
    return rt


@pytest.fixture
def claude() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


def _q(text: str, n: int = 1, thread: str = "1700000000.000100") -> Question:
    return Question("T1", "C1", thread, f"1700000001.{n:06d}", "W2", text, f"EvB{n}")


def test_agent_prompt_carries_the_briefing_when_the_thread_names_a_repository(
    tmp_path: Path, slack_fake: SlackFake, claude: FakeAnthropic
) -> None:
    """A question naming acme/shop gets the repository's briefing in the system prompt, after
    the cached snapshot; the next turn of that thread keeps it; a thread naming none gets none."""
    rt = _runtime(tmp_path, slack_fake, claude)
    try:
        claude.default = lambda body: claude.text("An answer.")
        take_turn(rt, _q("how should I write tests for the refund api in acme/shop?"))
        take_turn(rt, _q("and for the docs?", n=2))
        take_turn(rt, _q("what time are deploys?", n=3, thread="1700000099.000100"))
        turns = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"]
        first, second, other = (t["system"] for t in turns)
        block = first[-1]["text"]
        assert block.startswith("<repository-briefing>") and block.endswith(
            "</repository-briefing>"
        )
        assert "Briefing in acme/shop for: how should I write tests" in block
        assert f"- [active] {LESSON} (source: https://github.com/acme/shop/pull/7;" in block
        assert "assess billing impact" in block and "`print`" not in block
        assert "cache_control" in first[1] and "cache_control" not in first[-1]
        assert second[-1]["text"].startswith("<repository-briefing>")
        assert not any(b["text"].startswith("<repository-briefing>") for b in other)
        assert oplog.day(rt.redis, rt.config.workspace, oplog.today())["briefings"] == 2
    finally:
        rt.close()


def test_without_a_key_the_answer_shows_the_briefing(tmp_path: Path, slack_fake: SlackFake) -> None:
    """No API key: the answer in the thread carries the repository's briefing under the hits."""
    rt = _runtime(tmp_path, slack_fake, None)
    try:
        out = take_turn(rt, _q("tests for acme/shop please"))
        assert "Briefing in acme/shop for: tests for acme/shop please" in out.answer
        assert LESSON in out.answer
        posted = slack_fake.wait_for("chat.postMessage")[0].form["text"]
        assert LESSON in posted
    finally:
        rt.close()
