"""The Slack demo step: a sample day through the real web front door and worker, then it ends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from demo import slack as demo_slack
from demo.context import Demo
from jobs.config import Config
from jobs.runtime import Runtime


def test_demo_day_replies_once_each_and_commits(
    tmp_path: Path, embedded_redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every sample request is acked 200; each expected reply is in the outbox once; log printed."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "r.git"),
        redis_url=embedded_redis_url,
    )
    rt = Runtime(config)
    rt.redis.flushall()
    rt.store.init()
    demo_slack.run(Demo(rt, tmp_path))
    out = capsys.readouterr().out
    day = json.loads(demo_slack.DAY.read_text())
    assert out.count("  200 in ") == len(day["requests"])
    assert len(rt.outbox.messages()) == sum(i["expect"] for i in day["requests"])
    assert out.count("Saved to") == 3 and "Forgot" in out and "forgotten on purpose" in out
    assert "2. link the runbook whenever an alert is mentioned" in out
    assert "instructions #shop-dev: reply in threads only" in out
    notes = [c for c in rt.store.log(limit=50) if c.summary.startswith("note:")]
    assert len(notes) == 3
