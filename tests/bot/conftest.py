"""Fixtures the GitHub door's tests share: the loopback GitHub and one embedded Redis per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from jobs.config import Config
from jobs.runtime import Runtime
from tests.fakes.github import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One embedded Redis for the module (its shutdown takes seconds); each test flushes it."""
    server = Runtime(Config(data_dir=tmp_path_factory.mktemp("redis")))
    yield server.redis_url
    server.close()
