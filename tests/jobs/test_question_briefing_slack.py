"""A briefing for every question (jobs/agent/question_briefing.py): built from the thread's first
question, pinned for the thread, through the Slack door (signed requests → /slack/events → a
real Celery worker → git → the loopback Slack), and in the agent's prompt (the Anthropic fake)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs import keys
from jobs.agent.turn import Question, take_turn
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory.git import Author
from memory.prompts.briefing import DEFAULT_BUDGET, estimate_tokens
from memory.writes import AddEntry, WriteFile
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import SECRET, SlackFake
from tests.slack_helpers import mention, post

ANN = Author("ann", "ann@example.com")
DRAIN = "We always drain the queue before a deploy"
PRIMARY = "Never restart the primary during backups"
TEAM = f"""# Conventions: the team

- {DRAIN} [source: https://test.slack.com/archives/C111/p1; by: slack; status: active; kind: pattern]
- {PRIMARY} [source: https://test.slack.com/archives/C111/p2; by: slack; status: tentative; kind: pitfall]
"""
CHECKOUT = "# checkout\n\n- checkout deploys take 20 minutes [source: https://x.test/1]\n"


def _seed(rt: Runtime) -> None:
    rt.store.write(
        [
            WriteFile("conventions/team.md", TEAM),
            WriteFile("services/checkout.md", CHECKOUT),
            WriteFile("MEMORY.md", "# Memory\n\n- deploys at 10:00\n"),
        ],
        author=ANN,
        message="seed",
    )


def _answers(fake: SlackFake, n: int) -> list[str]:
    return [str(c.form["text"]) for c in fake.wait_for("chat.postMessage", n)]


@pytest.mark.integration
def test_every_question_gets_a_briefing_pinned_for_its_thread(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """No repository named, no key: the answer carries the briefing of the question (the team's
    matching lesson, not the other); a follow-up in the thread keeps the first question's
    briefing; a new thread gets its own."""
    rt = celery_worker_for
    _seed(rt)
    client: FlaskClient = create_app(rt.config, rt).test_client()
    thread = "1700000000.000100"
    post(client, mention("how do we deploy checkout safely?", event_id="EvB1", ts=thread))
    first = _answers(slack_fake, 1)[0]
    assert "Briefing for: how do we deploy checkout safely?" in first
    assert f"[active pattern] {DRAIN}" in first and PRIMARY not in first
    follow = mention("and the primary during backups?", event_id="EvB2", ts="1700000000.000200")
    follow["event"]["thread_ts"] = thread
    post(client, follow)
    second = _answers(slack_fake, 2)[1]
    assert "Briefing for: how do we deploy checkout safely?" in second  # pinned
    assert "Briefing for: and the primary" not in second
    post(client, mention("can I restart the primary during backups?", event_id="EvB3", ts="9.1"))
    third = _answers(slack_fake, 3)[2]
    assert "Briefing for: can I restart the primary during backups?" in third
    assert f"[tentative pitfall] {PRIMARY}" in third
    pins = rt.redis.keys(keys.agent_briefing("*"))
    assert len(pins) == 2 and all(str(p).endswith(("100'", "9.1'")) for p in pins)


def _runtime(tmp_path: Path, slack: SlackFake, claude: FakeAnthropic, redis_url: str) -> Runtime:
    config = Config(
        redis_url=redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack.url,
        anthropic_api_key="test",
        anthropic_base_url=claude.url,
        model="claude-sonnet-5-5",
        small_model="claude-haiku-5-5",
    )
    rt = Runtime(config)
    rt.store.init()
    _seed(rt)
    make_celery(rt)
    return rt


def _briefing(body: dict[str, Any]) -> str:
    (block,) = [b["text"] for b in body["system"] if b["text"].startswith("<briefing>")]
    return str(block)


def test_the_prompt_carries_the_pinned_briefing_within_the_budget(
    tmp_path: Path, slack_fake: SlackFake, redis_url: str
) -> None:
    """With a key: a `<briefing>` block after the cached snapshot; the thread's follow-up sends
    the same bytes even after memory changed; a new thread sees the change."""
    with FakeAnthropic() as claude:
        rt = _runtime(tmp_path, slack_fake, claude, redis_url)
        try:
            claude.default = lambda body: claude.text("An answer.")
            thread = "1700000000.000100"
            ask = "what should I check before a deploy of checkout?"
            take_turn(rt, Question("T111", "C111", thread, "1700000001.1", "W2", ask, "EvP1"))
            rt.store.write(
                [AddEntry("conventions/team.md", "Always announce a deploy in #ops first")],
                author=ANN,
                message="a new lesson",
            )
            take_turn(rt, Question("T111", "C111", thread, "1700000002.1", "W2", "ok?", "EvP2"))
            take_turn(rt, Question("T111", "C111", "9.1", "9.1", "W2", ask, "EvP3"))
            turns = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"]
            first, second, other = (_briefing(t) for t in turns)
            assert f"Briefing for: {ask}" in first and DRAIN in first and "20 minutes" in first
            assert "cache_control" not in turns[0]["system"][-1]
            assert second == first and "announce a deploy" not in second
            assert "announce a deploy" in other
            assert estimate_tokens(first) <= DEFAULT_BUDGET + 100  # the block's frame adds ~60
        finally:
            rt.close()
