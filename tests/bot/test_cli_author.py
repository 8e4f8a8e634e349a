"""Who the CLI writes as (issue 39, item 6): the person git would name where the command runs
(`git var GIT_AUTHOR_IDENT`: GIT_AUTHOR_NAME/EMAIL, then user.name/user.email of the
repository's, the global and the system configuration), HIPPO_USER before it, `--by` above
both; "hippo cli" only when git knows nobody. Real git and a real memory repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.cli.main import main
from memory.git import Store


@pytest.fixture
def argv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A working folder that is a git repository with its own user.name and user.email, the
    command run there; no author in the environment (tests/conftest.py sets one)."""
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    for key, value in (("user.name", "Alice Doe"), ("user.email", "alice@example.com")):
        subprocess.run(["git", "-C", str(work), "config", key, value], check=True)
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.chdir(work)
    remote = str(tmp_path / "remote.git")
    assert main(["--remote", remote, "--data-dir", str(tmp_path / "data"), "init"]) == 0
    return ["--remote", remote, "--data-dir", str(tmp_path / "data")]


def newest(tmp_path: Path) -> tuple[str, str]:
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "look")
    store.sync()
    c = store.log(limit=1)[0]
    return c.author, c.email


def test_a_note_is_by_the_person_git_names(argv: list[str], tmp_path: Path) -> None:
    """Without --by or HIPPO_USER the note is by git's user.name and user.email, not by an
    anonymous "hippo cli"; so is a reminder and its closing."""
    assert main([*argv, "note", "the batch alert is expected"]) == 0
    assert newest(tmp_path) == ("Alice Doe", "alice@example.com")
    assert main([*argv, "remind", "rotate the TLS certificate on 30 December"]) == 0
    assert newest(tmp_path) == ("Alice Doe", "alice@example.com")


def test_as_git_does_the_environment_wins_then_hippo_user_then_by(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Bo Env")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "bo@example.com")
    assert main([*argv, "note", "the cache warms at six"]) == 0
    assert newest(tmp_path) == ("Bo Env", "bo@example.com")
    monkeypatch.setenv("HIPPO_USER", "W111")  # hippo's name for the person (`me` too)
    assert main([*argv, "note", "the queue drains first"]) == 0
    assert newest(tmp_path) == ("W111", "bo@example.com")
    assert main([*argv, "note", "the flag is off", "--by", "U0CAROL"]) == 0
    assert newest(tmp_path) == ("U0CAROL", "U0CAROL@cli.hippo.invalid")


def test_hippo_cli_only_when_git_knows_nobody(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no repository here, no global or system configuration
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-such-gitconfig"))
    monkeypatch.setenv("EMAIL", "")
    subprocess.run(["git", "config", "--file", str(tmp_path / "g"), "user.useConfigOnly", "true"])
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "g"))
    assert main([*argv, "note", "the deploy window is at ten"]) == 0
    assert newest(tmp_path) == ("hippo cli", "hippo.cli@cli.hippo.invalid")
