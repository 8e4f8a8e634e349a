"""The Slack door's modules: `rt` is the Runtime wired to the Slack fake (tests/conftest.py)."""

from __future__ import annotations

import pytest

from jobs.runtime import Runtime


@pytest.fixture
def rt(slack_runtime: Runtime) -> Runtime:
    """The shared `client` serves this runtime; test_slack_install overrides it (many workspaces)."""
    return slack_runtime
