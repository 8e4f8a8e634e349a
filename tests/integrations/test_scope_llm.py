"""With an API key, Claude settles whose note the rules find unclear (the real anthropic client
against the loopback fake); an error or a non-answer leaves the question to the person."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jobs.config import Config
from jobs.runtime import Runtime
from jobs.slack.tasks import pick_memory
from tests.fakes.anthropic import FakeAnthropic

UNCLEAR = "I prefer we deploy on Fridays"


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[tuple[Runtime, FakeAnthropic]]:
    with FakeAnthropic() as claude:
        config = Config(
            data_dir=tmp_path / "data",
            memory_remote=str(tmp_path / "team.git"),
            personal_remote_template=str(tmp_path / "people" / "memory-{user}.git"),
            anthropic_api_key="test",
            anthropic_base_url=claude.url,
        )
        runtime = Runtime(config)
        yield runtime, claude
        runtime.close()


def test_claude_settles_only_what_the_rules_cannot(rt: tuple[Runtime, FakeAnthropic]) -> None:
    runtime, claude = rt
    claude.script(claude.text("me"))
    picked = pick_memory(runtime, "W222", "", UNCLEAR)
    assert isinstance(picked, tuple) and picked[0] == "me"
    assert picked[1].config.memory_remote.endswith("memory-W222.git")
    [asked] = claude.requests
    assert asked["model"] == runtime.config.small_model and UNCLEAR in str(asked["messages"])
    picked = pick_memory(runtime, "W222", "", "the deploy drains the queue")
    assert isinstance(picked, tuple) and picked[0] == "team" and len(claude.requests) == 1


def test_an_unsure_or_failing_claude_leaves_the_question_to_the_person(
    rt: tuple[Runtime, FakeAnthropic],
) -> None:
    runtime, claude = rt
    claude.script(claude.text("unclear"), *[claude.error(400)] * 1)
    for _ in range(2):
        asked = pick_memory(runtime, "W222", "", UNCLEAR)
        assert isinstance(asked, str) and asked.startswith("Not saved yet: which memory")
