"""The settings of several memories: a bad template stops the process naming the variable; a
person's name never becomes a path or a query in a remote."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobs.config import Config, ConfigError, open_scopes, scoped_config
from memory.scopes import UnknownMemory


@pytest.mark.parametrize(
    "value", ["https://h/memory.git", "https://h/{user}/{user}.git", "https://h/{who}-{user}.git"]
)
def test_a_template_needs_user_once_and_no_other_braces(value: str) -> None:
    with pytest.raises(ConfigError, match="HIPPO_PERSONAL_REMOTE_TEMPLATE"):
        Config.from_env({"HIPPO_PERSONAL_REMOTE_TEMPLATE": value})


def test_the_settings_are_read() -> None:
    config = Config.from_env(
        {
            "HIPPO_PERSONAL_REMOTE_TEMPLATE": "https://h/{team}/memory-{user}.git",
            "HIPPO_PERSONAL_MEMORY_TOKEN": "p",
            "HIPPO_ORG_MEMORY_REMOTE": "https://h/org.git",
            "HIPPO_ORG_MEMORY_TOKEN": "o",
            "HIPPO_USER": "ann",
            "HIPPO_WORKSPACE": "T1",
        }
    )
    mine = scoped_config(config, "me", config.user)
    assert mine.remote == "https://h/T1/memory-ann.git" and mine.workspace == "T1.me.ann"
    assert (mine.memory_token, mine.memory_auth) == ("p", "token")
    org = scoped_config(config, "org")
    assert (org.remote, org.memory_token, org.workspace) == ("https://h/org.git", "o", "T1.org")
    assert open_scopes(config, "ann") == ("me", "team", "org")
    assert open_scopes(config, "") == ("team", "org")


def test_the_other_memories_settings_are_read() -> None:
    """The people dreamt by hand, the org digest's channel, MCP tokens bound to Slack users."""
    config = Config.from_env(
        {
            "HIPPO_PERSONAL_MEMORIES": "ann, U0BOB",
            "HIPPO_ORG_DIGEST_CHANNEL": "CORG",
            "HIPPO_MCP_USERS": "ann-laptop=U0ANN, ci=",
        }
    )
    assert config.personal_memories == ("ann", "U0BOB")
    assert config.org_digest_channel == "CORG"
    assert dict(config.mcp_users) == {"ann-laptop": "U0ANN"}  # a name bound to nobody is not


@pytest.mark.parametrize("user", ["../bob", "ann?x=1", "a b", "", "-x"])
def test_a_persons_name_is_letters_digits_and_dots(user: str, tmp_path: Path) -> None:
    config = Config(data_dir=tmp_path, personal_remote_template="https://h/memory-{user}.git")
    with pytest.raises(UnknownMemory):
        scoped_config(config, "me", user)
