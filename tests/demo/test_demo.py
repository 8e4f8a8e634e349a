"""`make demo` end to end: every step runs on one fresh memory and the program ends by itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from demo.main import STEPS, main
from jobs.config import Config
from jobs.runtime import Runtime


def test_the_whole_demo_runs_and_shows_each_part(
    tmp_path: Path,
    embedded_redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """memory, GitHub replay, a Slack day and a dream all run; exit 0; each part's result shows."""
    Runtime(Config(redis_url=embedded_redis_url)).redis.flushall()
    monkeypatch.setenv("REDIS_URL", embedded_redis_url)
    assert main([str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert [step.__module__ for step in STEPS] == [
        "demo.memory",
        "demo.github",
        "demo.slack",
        "demo.dream",
    ]
    assert "re-adding it is refused" in out  # memory: tombstones hold
    assert "status: active]" in out  # github: the lesson became active
    assert "Forgot “the payments-sync job" in out  # slack: forget through the front door
    assert "dream(tidy): 1 duplicates merged" in out  # dream: the two staging notes became one
    assert "a second dream the same night: skipped" in out
    assert (tmp_path / "demo" / "remote.git" / "HEAD").exists()
