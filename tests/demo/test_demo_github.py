"""The GitHub demo step replays two edited agent PRs and shows the lesson becoming active."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from demo import github as demo_github
from demo.context import Demo
from jobs.config import Config
from jobs.runtime import Runtime


def test_demo_replays_and_activates_the_lesson(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The replay is announced, the lesson goes tentative then active, the note is in the outbox."""
    config = replace(Config(), data_dir=tmp_path / "data", memory_remote=str(tmp_path / "r.git"))
    rt = Runtime(config)
    try:
        demo_github.run(Demo(rt, tmp_path))
    finally:
        rt.close()
    out = capsys.readouterr().out
    assert "REPLAY" in out and "no network" in out
    assert "a forged delivery → 401" in out
    assert out.index("status: tentative") < out.index("status: active")
    assert "outbox → #shop-dev: New convention for *acme/shop*" in out
    assert "redelivered → 200 {'duplicate': True}" in out
    assert out.count("merged_after_changes") == 2
    # feedback on GitHub: one comment per pull request learned from, then the check run that
    # flags the agent repeating the mistake in a later pull request, line by line
    assert "comment on #41: **hippo learned from this pull request** (lesson tentative)" in out
    assert "comment on #57: **hippo learned from this pull request** (lesson active)" in out
    assert "check run 'hippo conventions': neutral, 2 known pitfall(s)" in out
    assert "tests/unit/test_refunds.py:1 Known pitfall: `mock`" in out
    assert "tests/unit/test_refunds.py:7 Known pitfall: `mock`: payments = mock.Mock()" in out
