"""Claude as the contradiction check's judge (integrations/gate_llm.py), on the loopback Anthropic."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from integrations.gate_llm import ClaudeGate, judge_for
from integrations.llm import make_client
from memory import format as fmt
from memory.facts import contradictions as cx
from tests.fakes.anthropic import FakeAnthropic

OLD = "checkout-api talks to the payments API over gRPC"
NEW = "checkout-api calls the payments API through REST"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def test_claudes_word_is_the_verdict(fake: FakeAnthropic) -> None:
    """One word back; anything else, or an API error, is no opinion (the words decide)."""
    gate = ClaudeGate(make_client("test", fake.url, max_retries=0), "claude-haiku-5-5")
    fake.script(fake.text("Contradict."), fake.text("maybe"), fake.error(500))
    assert gate.verdict(OLD, NEW) == "contradict"
    assert gate.verdict(OLD, NEW) is None and gate.verdict(OLD, NEW) is None
    body = fake.requests[0]
    assert body["model"] == "claude-haiku-5-5" and body["max_tokens"] == 5
    assert f"<existing>{OLD}</existing>" in body["messages"][0]["content"]
    assert judge_for(None, "claude-haiku-5-5") is None


def test_the_check_asks_claude_only_about_close_entries(fake: FakeAnthropic) -> None:
    """The words say new; Claude (asked because two content words are shared) says contradict;
    an unrelated entry is never sent."""
    gate = ClaudeGate(make_client("test", fake.url, max_retries=0), "claude-haiku-5-5")
    fake.default = lambda body: fake.text("CONTRADICT")
    known = fmt.parse(f"- {OLD}\n- Redis failover takes 30 seconds\n").entries
    assert cx.check(NEW, known).verdict == "new"
    found = cx.check(NEW, known, judge=gate)
    assert (found.verdict, found.entry, found.why) == ("contradict", known[0], "Claude")
    assert len(fake.requests) == 1
