"""Dreaming's input "how often each file was read": search in Slack, MCP and the agent count the
files they hand out in the workspace's Redis hash (the console's count is in test_console)."""

from __future__ import annotations

from dataclasses import replace

from bot.mcp.tools import MemoryTools
from jobs.agent.turn import Question, take_turn
from jobs.celery_app import make_celery
from jobs.read_counts import read_counts
from jobs.runtime import Runtime
from jobs.slack.tasks import recall
from memory.git import Author
from memory.prompts import snapshot
from memory.writes import WriteFile
from tests.fakes.anthropic import FakeAnthropic

FILES = {
    "services/checkout-api.md": "# checkout-api\n\n- 504s after deploys come from cold caches\n",
    "teams/payments.md": "# Payments\n\n- payouts run at 06:00 UTC\n",
    "MEMORY.md": "# Memory\n\n- deploys at 10:00\n",
}


def seeded(rt: Runtime) -> Runtime:
    rt.store.write(
        [WriteFile(p, t) for p, t in FILES.items()], author=Author("a", "a@x"), message="seed"
    )
    return rt


def test_slack_recall_counts_the_files_it_answers_from(slack_runtime: Runtime) -> None:
    """ "What do you know about X?" counts each file of its hits once, and no other file."""
    rt = seeded(slack_runtime)
    make_celery(rt)  # the current app: `recall.apply` runs on this Runtime
    recall.apply(kwargs={"key": "k1", "channel": "C1", "query": "cold caches"})
    assert read_counts(rt.redis, rt.config.workspace) == {"services/checkout-api.md": 1}


def test_mcp_search_counts_the_files_it_returns(slack_runtime: Runtime) -> None:
    """searchMemory counts each file it returns once per search, and no other file."""
    rt = seeded(slack_runtime)
    tools = MemoryTools(rt.store, workspace="w", redis=rt.redis)
    assert [h["path"] for h in tools.search("payouts")] == ["teams/payments.md"]
    tools.search("payouts run")
    assert read_counts(rt.redis, "w") == {"teams/payments.md": 2}


def test_the_agent_counts_the_files_it_searched_and_read(slack_runtime: Runtime) -> None:
    """A turn counts each file its search found or it read once; files it never saw are not."""
    with FakeAnthropic() as claude:
        config = replace(
            slack_runtime.config, anthropic_api_key="test", anthropic_base_url=claude.url
        )
        rt = seeded(Runtime(config))
        snapshot.publish(rt.store, rt.store.head())
        claude.script(
            claude.tool_use("search", {"query": "cold caches"}),
            claude.tool_use("read_file", {"path": "services/checkout-api.md"}),
            claude.tool_use("read_file", {"path": "MEMORY.md"}),
            claude.text("Cold caches after deploys."),
        )
        claude.default = lambda body: claude.text("{}")
        question = Question("T1", "C1", "1700000000.000100", "1700000000.000100", "W1",
                            "why 504s after deploys?", "Ev1")  # fmt: skip
        out = take_turn(rt, question)
        assert out.files_read == ["services/checkout-api.md", "MEMORY.md"]
        assert read_counts(rt.redis, rt.config.workspace) == {
            "services/checkout-api.md": 1,
            "MEMORY.md": 1,
        }
        rt.redis.close()
