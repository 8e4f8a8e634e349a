"""Settings for installs into many workspaces, read from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from integrations.slack_installs import database_url
from jobs.config import Config, ConfigError


def test_oauth_needs_the_client_and_no_bot_token() -> None:
    """Client id and secret without SLACK_BOT_TOKEN: many workspaces; with the token, the one
    workspace (the client then only serves the console's Sign in with Slack)."""
    client = {"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s"}
    assert Config.from_env(client).slack_oauth
    assert not Config.from_env({**client, "SLACK_BOT_TOKEN": "xoxb-1"}).slack_oauth
    assert not Config.from_env({"SLACK_CLIENT_ID": "1.2"}).slack_oauth


def test_remote_template_must_name_the_team_once() -> None:
    """HIPPO_MEMORY_REMOTE_TEMPLATE without `{team}` (or with other braces) is refused, naming
    the variable and an example."""
    good = "https://github.com/acme/memory-{team}.git"
    assert Config.from_env({"HIPPO_MEMORY_REMOTE_TEMPLATE": good}).memory_remote_template == good
    for bad in ("https://github.com/acme/memory.git", "/x/{team}/{name}.git", "{team}{team}"):
        with pytest.raises(ConfigError, match=r"HIPPO_MEMORY_REMOTE_TEMPLATE.*memory-\{team\}"):
            Config.from_env({"HIPPO_MEMORY_REMOTE_TEMPLATE": bad})


def test_database_url_defaults_to_sqlite_and_postgres_uses_psycopg(tmp_path: Path) -> None:
    """Unset: a SQLite file in the data folder; postgres:// and postgresql:// drive psycopg 3."""
    assert database_url("", tmp_path) == f"sqlite:///{tmp_path.resolve()}/slack-installs.db"
    assert database_url("postgres://u@h/db", tmp_path) == "postgresql+psycopg://u@h/db"
    assert database_url("postgresql://u@h/db", tmp_path) == "postgresql+psycopg://u@h/db"
    assert database_url("sqlite:////var/x.db", tmp_path) == "sqlite:////var/x.db"
