"""Claude words the dream's proposals (integrations/learn_llm.py) through the real anthropic
client against the loopback fake: lessons and titles are Claude's words, while what recurs, what
each cites and its standing stay the code's; a failure falls back to the template."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import anthropic
import pytest

from integrations.dream_llm import ClaudeDreamer
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Store
from memory.trust import proposals
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.memory.dream.test_dream_lessons import seed_month

LESSON = "Pin psycopg2-binary in requirements.txt: the api tests fail to import psycopg2 without it"
TITLE = "Checkout vendor sandbox"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as f:
        yield f


def dreamer(fake: FakeAnthropic) -> ClaudeDreamer:
    client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
    return ClaudeDreamer(client, Verifiers(), model="claude-test")


def answer(fake: FakeAnthropic) -> Any:
    def reply(body: dict[str, Any]) -> Reply:
        asked = str(body["messages"][0]["content"])
        if "same error in several sessions" in asked:
            return fake.text(LESSON)
        if "Write a title for the file" in asked:
            return fake.text(f"“{TITLE}”")
        return fake.text("")  # nothing usable: the template words it

    return reply


def pending(store: Store) -> list[proposals.Proposal]:
    return proposals.pending({p: b.decode() for p, b in store.tree().items()})


def test_claude_words_the_lesson_the_code_cites_its_episodes(
    fake: FakeAnthropic, store: Store
) -> None:
    """With a key the error's lesson is Claude's line, citing the same episodes with the same
    standing as without; Claude read the episodes' errors and commands as data; a question
    Claude answered nothing usable for keeps the template's words. A title is Claude's too."""
    notes = "# Notes\n\n- the checkout vendor sandbox answers 504\n- checkout retries the vendor\n- the vendor sandbox resets on Sundays\n"  # fmt: skip
    seed_month(store, {"notes.md": notes})
    fake.default = answer(fake)
    claude = dreamer(fake)
    dream(store, now=datetime(2026, 11, 30, 3), learner=claude, titler=claude)
    found = {p.kind + (p.text[:6] if p.kind == "lesson" else ""): p for p in pending(store)}
    error = next(p for p in pending(store) if p.text == LESSON)
    assert dict(error.meta)["episodes"] == "2026-11-03#L1, 2026-11-12#L1, 2026-11-20#L1"
    assert dict(error.meta)["status"] == "tentative"
    assert any(p.text.startswith("Asked in 3 threads") for p in pending(store))
    assert found["title"].text == TITLE
    asked = [str(r["messages"][0]["content"]) for r in fake.requests]
    assert any("ModuleNotFoundError" in a and "pytest" in a for a in asked)
    assert claude.usage()["calls"] >= 3


def test_a_claude_failure_keeps_the_templates_words(fake: FakeAnthropic, tmp_path: Path) -> None:
    """Claude unavailable: every proposal is still made, in the template's words."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    seed_month(store)
    fake.default = lambda _body: fake.error(529)
    claude = dreamer(fake)
    dream(store, now=datetime(2026, 11, 30, 3), learner=claude, titler=claude)
    texts = [p.text for p in pending(store)]
    assert any(t.startswith("`pytest` fails with “ModuleNotFoundError") for t in texts)
    assert any(t.startswith("Asked in 3 threads") for t in texts)
    assert len(fake.requests) == 2  # one question per lesson, each answered 529
