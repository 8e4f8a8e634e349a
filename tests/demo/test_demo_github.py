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
