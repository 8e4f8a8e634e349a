"""Shared fixtures: a clean environment, the conformance data, bare remotes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

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
