"""Shared fixtures: a clean environment, the conformance data, bare remotes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobs.config import Config
from jobs.runtime import Runtime
from tests.fakes.slack import SECRET as SLACK_SECRET
from tests.fakes.slack import SlackFake

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT.parent / "shared" / "conformance"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test may reach a real service: strip Slack, GitHub, Anthropic and hippo settings."""
    for name in list(os.environ):
        if name.startswith(("SLACK_", "GITHUB_", "ANTHROPIC_", "HIPPO_", "REDIS_URL")):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "test person")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "person@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "test person")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "person@example.com")
    yield


# -- Slack: the loopback Web API fake, a Runtime wired to it, a real Celery worker ------------


@pytest.fixture
def slack_fake() -> Iterator[SlackFake]:
    """Slack's Web API on a loopback port; see tests/fakes/slack.py."""
    with SlackFake() as fake:
        yield fake


@pytest.fixture
def slack_runtime(tmp_path: Path, slack_fake: SlackFake) -> Iterator[Runtime]:
    """A Runtime on its own embedded Redis and a fresh bare remote, talking to the Slack fake."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SLACK_SECRET,
        slack_api_url=slack_fake.url,
        public_url="http://hippo.test",
    )
    rt = Runtime(config)
    rt.store.init()
    yield rt
    rt.close()


@pytest.fixture
def celery_worker_for(slack_runtime: Runtime) -> Iterator[Runtime]:
    """A real Celery worker thread (solo pool) consuming slack_runtime's Redis queue."""
    from celery.contrib.testing.worker import start_worker

    with start_worker(slack_runtime.celery, pool="solo", perform_ping_check=False):
        yield slack_runtime
