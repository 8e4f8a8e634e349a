"""`hippo workspaces`: list the installed workspaces, set one's remote and digest channel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from jobs.runtime import Runtime
from tests.workspaces_helpers import installed, many_config


def test_list_and_configure_a_workspace(
    tmp_path: Path, embedded_redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workspace's own remote and digest channel are set from the CLI and used by its Runtime;
    the other keeps the template's remote."""
    config = many_config(tmp_path, "http://127.0.0.1:9/", embedded_redis_url)
    rt = Runtime(config)
    installed(rt, "TAAA", "xoxb-aaa")
    installed(rt, "TBBB", "xoxb-bbb")
    own = str(tmp_path / "elsewhere.git")
    assert (
        main(["workspaces", "TAAA", "--memory-remote", own, "--digest-channel", "CDIG"], config)
        == 0
    )
    capsys.readouterr()
    assert main(["workspaces", "--json"], config) == 0
    rows = {r["team_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["TAAA"]["remote"] == own and rows["TAAA"]["digest_channel"] == "CDIG"
    assert rows["TBBB"]["remote"] == str(tmp_path / "remotes" / "memory-TBBB.git")
    assert all(r["installed"] for r in rows.values())
    a = rt.for_team("TAAA").config
    assert (a.memory_remote, a.digest_channel, a.workspace) == (own, "CDIG", "TAAA")


def test_a_password_in_a_remote_is_never_printed(
    tmp_path: Path, embedded_redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workspace remote with user:password in its URL is used as given, printed without it."""
    config = many_config(tmp_path, "http://127.0.0.1:9/", embedded_redis_url)
    url = "https://hippo:s3cret-pass@git.example.com/acme/memory.git"
    assert main(["workspaces", "TAAA", "--memory-remote", url], config) == 0
    assert main(["workspaces", "--json"], config) == 0
    printed = capsys.readouterr().out
    assert "s3cret-pass" not in printed and "git.example.com/acme/memory.git" in printed
    assert Runtime(config).for_team("TAAA").config.memory_remote == url


def test_a_team_id_that_is_not_slacks_is_refused(
    tmp_path: Path, embedded_redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A team id that could be a path (../x) is refused with exit 2 and the reason."""
    config = many_config(tmp_path, "http://127.0.0.1:9/", embedded_redis_url)
    assert main(["workspaces", "../x", "--memory-remote", "/tmp/x.git"], config) == 2
    assert "is not a Slack team id" in capsys.readouterr().err


def test_one_workspace_mode_says_how_to_turn_installs_on(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without OAuth settings the command explains what to set (exit 2)."""
    assert main(["workspaces"]) == 2
    assert "SLACK_CLIENT_ID" in capsys.readouterr().err
