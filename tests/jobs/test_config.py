"""Configuration from the environment: defaults, parsing, and clear errors for bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import main
from jobs.config import Config, ConfigError


def test_defaults_need_nothing() -> None:
    """An empty environment gives a working laptop config (embedded Redis, local remote)."""
    c = Config.from_env({})
    assert (c.redis_url, c.port, c.dream_at, c.timezone) == ("", 3000, "03:00", "UTC")
    assert c.remote == str(Path(".hippo") / "remote.git")
    assert not c.slack_enabled and not c.anthropic_api_key


def test_lists_and_maps_are_parsed() -> None:
    """Comma lists and name=value maps are split and trimmed."""
    c = Config.from_env(
        {
            "HIPPO_MCP_TOKENS": "claude=tok1, ci = tok2,broken",
            "HIPPO_MCP_PEOPLE": "ann, bob",
            "HIPPO_REPO_CHANNELS": "acme/shop=#shop-dev",
            "HIPPO_AGENT_LOGINS": "a[bot], b",
            "HIPPO_DREAM_AT": "4:5",
        }
    )
    assert c.mcp_tokens == {"tok1": "claude", "tok2": "ci"}
    assert c.mcp_people == frozenset({"ann", "bob"})
    assert c.repo_channels == {"acme/shop": "#shop-dev"}
    assert c.agent_logins == ("a[bot]", "b")
    assert c.dream_at == "04:05"


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("HIPPO_DREAM_AT", "3am", "write HH:MM"),
        ("HIPPO_DREAM_AT", "25:00", "write HH:MM"),
        ("HIPPO_TIMEZONE", "Mars/Olympus", "IANA name"),
        ("PORT", "http", "whole number"),
        ("HIPPO_LLM_TIMEOUT", "soon", "seconds"),
    ],
)
def test_bad_values_name_the_variable(name: str, value: str, says: str) -> None:
    """A value that cannot work is refused at start-up, naming the variable and the fix."""
    with pytest.raises(ConfigError, match=f"{name}=.*{says}"):
        Config.from_env({name: value})


def test_cli_reports_a_bad_setting_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI prints the configuration error on one line and exits 2."""
    monkeypatch.setenv("HIPPO_DREAM_AT", "noon")
    assert main(["log"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "HIPPO_DREAM_AT='noon'" in err[0]


def test_links_follow_port_when_public_url_is_unset() -> None:
    """Without HIPPO_PUBLIC_URL, links (replies, digest, App Home) point at PORT, not 3000."""
    from jobs.slack.messages import file_link

    assert Config.from_env({"PORT": "4100"}).public_url == "http://localhost:4100"
    assert Config.from_env({}).public_url == "http://localhost:3000"
    given = {"PORT": "4100", "HIPPO_PUBLIC_URL": "https://hippo.acme.dev"}
    assert Config.from_env(given).public_url == "https://hippo.acme.dev"
    config = Config.from_env({"PORT": "4100"})
    assert (
        file_link(config.public_url, "inbox.md")
        == "<http://localhost:4100/console/file/inbox.md|inbox.md>"
    )


def test_check_credentials_only_under_an_opted_in_prefix() -> None:
    """Declared checks may send the variables under HIPPO_CHECK_ENV_PREFIX, read once; none
    without it; a prefix that would reach hippo's own settings is refused; the values never
    show in the config's repr."""
    env = {"HIPPO_CHECK_GRAFANA": "Bearer s3cret-value", "SLACK_BOT_TOKEN": "xoxb-1"}
    assert Config.from_env(env).check_env == {}
    c = Config.from_env(env | {"HIPPO_CHECK_ENV_PREFIX": "HIPPO_CHECK_"})
    assert c.check_env == {"HIPPO_CHECK_GRAFANA": "Bearer s3cret-value"}
    assert "s3cret" not in repr(c)
    assert Config.from_env(env | {"HIPPO_CHECK_ENV_PREFIX": "MONITORING_"}).check_env == {}
    for broad in ("SLACK_", "HIPPO_", "S", "GITHUB_APP_", "H_", "hippo_check_"):
        with pytest.raises(ConfigError, match="HIPPO_CHECK_ENV_PREFIX"):
            Config.from_env({"HIPPO_CHECK_ENV_PREFIX": broad})
