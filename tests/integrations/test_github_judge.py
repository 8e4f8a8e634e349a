"""Claude writes and compares lessons through the real anthropic client; failures fall back."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from integrations.lessons_llm import ClaudeJudge
from integrations.llm import make_client
from memory.lessons import planner as lessons
from memory.lessons import pull_requests as po
from memory.writes import apply_ops
from tests.fakes.anthropic import FakeAnthropic

AGENT = "hippo-agent[bot]"
OLD = "import mock\n\ndef test_a():\n    client = mock.Mock()\n"
NEW = "from tests.fixtures import client\n\ndef test_a(client):\n    pass\n"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def judge(fake: FakeAnthropic) -> ClaudeJudge:
    return ClaudeJudge(make_client("test", fake.url, max_retries=0), "claude-haiku-5-5")


def edited(number: int) -> po.PullFacts:
    diff = po.diff_texts(f"tests/unit/test_{number}.py", OLD, NEW)
    return po.PullFacts(
        repo="octo/app",
        number=number,
        url=f"https://github.com/octo/app/pull/{number}",
        title="fix",
        opener=AGENT,
        merged=True,
        closed_by="alice",
        closed_by_bot=False,
        commits=(po.Commit("a", AGENT, AGENT), po.Commit("h", "alice", "alice")),
        files=(diff.path,),
        human_diff=(diff,),
        writers=frozenset({"alice"}),
    )


def test_claude_writes_the_lesson_line_from_the_human_diff(fake: FakeAnthropic) -> None:
    """With a key, the entry is Claude's one imperative line; the prompt holds the human diff."""
    fake.script(fake.text("Tests use the shared fixtures in tests/fixtures, not inline mocks\n"))
    plan = lessons.plan(
        edited(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30", judge=judge(fake)
    )
    assert plan.text == "Tests use the shared fixtures in tests/fixtures, not inline mocks"
    prompt = fake.requests[0]["messages"][0]["content"]
    assert "+from tests.fixtures import client" in prompt and "-import mock" in prompt


def test_claude_judges_sameness(fake: FakeAnthropic) -> None:
    """Claude's SAME / DIFFERENT answers become True / False; anything else is no opinion."""
    fake.script(fake.text("SAME"), fake.text("DIFFERENT"), fake.text("maybe"))
    j = judge(fake)
    assert j.same("a", "b") is True
    assert j.same("a", "c") is False
    assert j.same("a", "d") is None


def test_an_overloaded_api_falls_back_to_the_observation(fake: FakeAnthropic) -> None:
    """A 529 from the API leaves the deterministic observation in place: nothing is lost."""
    fake.script(fake.error(529))
    plan = lessons.plan(
        edited(2), po.MERGED_AFTER_CHANGES, None, today="2026-11-30", judge=judge(fake)
    )
    assert plan.text.startswith("Observed: people edit the agent's changes to tests/unit/*.py")
    assert apply_ops(plan.ops, {}.get).changes


def test_none_means_nothing_general_to_learn(fake: FakeAnthropic) -> None:
    """Claude answering NONE keeps the observation rather than an empty lesson."""
    fake.script(fake.text("NONE"))
    assert judge(fake).write("summary") is None
