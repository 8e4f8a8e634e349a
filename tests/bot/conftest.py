"""Fixtures the GitHub door's tests share: the loopback GitHub (Redis: tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.github import FakeGitHub


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake
