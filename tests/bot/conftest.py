"""Fixtures the GitHub door's tests share: the loopback GitHub, and a Runtime wired to it
(Redis: tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jobs.config import Config
from jobs.runtime import Runtime
from tests.fakes.github import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture
def rt(
    request: pytest.FixtureRequest, tmp_path: Path, fake_github: FakeGitHub, redis_url: str
) -> Iterator[Runtime]:
    """A Runtime on a flushed Redis and a fresh memory, talking to the GitHub fake, plus the
    Config fields in the module's RT_SETTINGS (its webhook secret, channels, public URL)."""
    config = Config(
        redis_url=redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        github_token="t",
        github_api_url=fake_github.url,
        **getattr(request.module, "RT_SETTINGS", {}),
    )
    runtime = Runtime(config)
    runtime.redis.flushdb()
    runtime.store.init()
    yield runtime
    runtime.close()
