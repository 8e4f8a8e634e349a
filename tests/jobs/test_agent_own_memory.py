"""The asker's own memory in the Slack agent's turn: their matching lines join the briefing
block labelled [me] (with and without an API key); another person's never do. The team's memory
is a local bare remote, the personal ones on a loopback git server with their own password."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jobs import memories
from jobs.agent.own_tools import SAVE
from jobs.agent.turn import Question, take_turn
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import AddEntry
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import SECRET, SlackFake
from tests.memories_helpers import on_server, servers_fixture, urls  # noqa: F401

W222 = Author("W222", "w222@example.com")


@pytest.fixture
def claude() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


def runtime(tmp_path: Path, slack: SlackFake, claude: FakeAnthropic | None) -> Runtime:
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        memory_username="hippo",
        personal_remote_template=urls(tmp_path)["template"],
        personal_memory_token="people-pw",
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack.url,
        anthropic_api_key="test" if claude else "",
        anthropic_base_url=claude.url if claude else "",
    )
    rt = Runtime(config)
    rt.store.init()
    rt.store.write([AddEntry("MEMORY.md", "deploys start at 10:00")], author=W222, message="m")
    own = memories.runtime_for(rt, "me", "W222").store
    entry = AddEntry("inbox.md", "I prefer deploy answers as a checklist")
    own.write([entry, AddEntry("MEMORY.md", "I am on call on Tuesdays")], author=W222, message="m")
    make_celery(rt)
    return rt


def ask(user: str, text: str, n: int, channel: str = "D1") -> Question:
    thread, ts = f"17000000{n:02d}.000100", f"17000001{n:02d}.0"
    return Question("T1", channel, thread, ts, user, text, f"E{n}")


def test_without_a_key_the_answer_shows_the_askers_own_lines(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake
) -> None:
    rt = runtime(tmp_path, slack_fake, None)
    try:
        out = take_turn(rt, ask("W222", "how do deploy answers look?", 1))
        assert "[me] I prefer deploy answers as a checklist" in out.answer
        assert "- [me] I am on call on Tuesdays" in out.answer  # their own MEMORY.md
        other = take_turn(rt, ask("bob", "how do deploy answers look?", 2))
        assert "checklist" not in other.answer  # bob's own memory is empty; never W222's
        public = take_turn(rt, ask("W222", "how do deploy answers look?", 4, channel="C1"))
        assert "[me]" not in public.answer  # a channel thread: everyone reads the answer
    finally:
        rt.close()


def test_with_a_key_the_prompt_carries_them_after_the_cached_snapshot(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake, claude: FakeAnthropic
) -> None:
    rt = runtime(tmp_path, slack_fake, claude)
    try:
        claude.default = lambda body: claude.text("An answer.")
        take_turn(rt, ask("W222", "how should deploy answers look?", 3))
        [turn] = [b for b in claude.requests if b["model"] == rt.config.model]
        block = turn["system"][-1]["text"]
        assert "cache_control" not in turn["system"][-1]
        assert "[me] I prefer deploy answers as a checklist" in block
        assert "save a note to my memory" in block and "[me] I am on call on Tuesdays" in block
    finally:
        rt.close()


def test_the_agent_saves_the_askers_own_fact_to_their_memory_as_an_agent(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake, claude: FakeAnthropic
) -> None:
    """In a DM the agent may save a fact to the asker's own memory: tentative, by hippo for the
    asker, the thread as its source; never the team's. In a channel the tool is not offered."""
    rt = runtime(tmp_path, slack_fake, claude)
    try:
        fact = "W222 wants deploy answers as a numbered checklist"
        claude.script(claude.tool_use(SAVE, {"text": fact}), claude.text("Noted for you."))
        out = take_turn(rt, ask("W222", "from now on give me deploy answers as a checklist", 5))
        line = on_server(servers["W222"], "inbox.md").splitlines()[-1]
        assert fact in line and "status: tentative" in line and "by: hippo for W222" in line
        assert fact not in rt.store.read("inbox.md") and out.refused == []
        turns = [b for b in claude.requests if b["model"] == rt.config.model]
        assert SAVE in [t["name"] for t in turns[0]["tools"]]
        claude.default = lambda body: claude.text("An answer.")
        take_turn(rt, ask("W222", "and for releases?", 6, channel="C1"))
        turns = [b for b in claude.requests if b["model"] == rt.config.model]
        assert SAVE not in [t["name"] for t in turns[-1]["tools"]]
    finally:
        rt.close()
