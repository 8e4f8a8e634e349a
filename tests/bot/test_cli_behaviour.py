"""The CLI as a CLI: help for every option, --json that parses, completion, exit codes,
progress only on a terminal."""

from __future__ import annotations

import argparse
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli.main import build_parser, main
from jobs.config import Config
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.github import FakeGitHub
from tests.jobs.test_dream_tasks import seeded
from tests.jobs.test_github_backfill import REPO, serve


def _parsers(parser: argparse.ArgumentParser, name: str = "hippo") -> list[Any]:
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found += _parsers(sub, f"{name} {sub_name}")
    return found


def test_every_option_and_argument_has_help() -> None:
    """`--help` explains every option and positional argument of every command."""
    missing = []
    for name, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            if action.help == argparse.SUPPRESS:
                continue  # the global options repeated after the command
            if not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    return ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]


def _json(
    capsys: pytest.CaptureFixture[str], code: int, *args: str, config: Config | None = None
) -> Any:
    assert main(list(args), config) == code, capsys.readouterr()
    return json.loads(capsys.readouterr().out)


def test_memory_commands_print_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """init, note, search, show, log, lint and forget with --json print one JSON document."""
    assert _json(capsys, 0, *argv, "init", "--json")["head"]
    note = _json(capsys, 0, *argv, "note", "the queue drains at 02:00", "--key", "k1", "--json")
    assert note["saved"] is True and note["path"] == "inbox.md" and len(note["commit"]) == 40
    again = _json(capsys, 0, *argv, "note", "the queue drains at 02:00", "--key", "k1", "--json")
    assert again["saved"] is False and again["commit"] == note["commit"]
    [hit] = _json(capsys, 0, *argv, "search", "queue drains", "--json")
    assert hit["path"] == "inbox.md"
    shown = _json(capsys, 0, *argv, "show", "inbox.md", "--json")
    assert "the queue drains at 02:00" in shown["text"]
    log = _json(capsys, 0, *argv, "log", "--json")
    assert (
        log[0]["commit"] == note["commit"] and log[0]["trailers"]["Hippo-Key"] == "ext:cli:k1"
    )  # CLI keys are namespaced
    assert _json(capsys, 0, *argv, "lint", "--json") == []
    gone = _json(capsys, 0, *argv, "forget", "queue drains", "--json")
    assert gone["status"] == "removed" and gone["matches"][0]["path"] == "inbox.md"
    none = _json(capsys, 1, *argv, "forget", "queue drains", "--json")
    assert none == {"status": "none", "matches": []}


def test_dream_prints_json(slack_runtime: Runtime, capsys: pytest.CaptureFixture[str]) -> None:
    """`hippo dream --json`: the run id, each step with its commit, the counts."""
    seeded(slack_runtime)
    config = slack_runtime.config
    out = _json(capsys, 0, "dream", "--now", "2026-11-30T03:00", "--json", config=config)
    assert out["status"] == "done" and out["run_id"] == "2026-11-29"
    assert [s["step"] for s in out["steps"]][:2] == ["daily", "outcomes"]
    assert any(s["commit"] for s in out["steps"])


def test_github_commands_print_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`hippo github backfill --json` and `learn --json`: one object per pull request."""
    with FakeGitHub() as fake:
        serve(fake)
        cfg = Config(
            data_dir=tmp_path / "data",
            memory_remote=str(tmp_path / "remote.git"),
            github_token="t",
            github_api_url=fake.url,
        )
        assert main(["init"], cfg) == 0
        capsys.readouterr()
        assert main(["github", "backfill", REPO, "--json"], cfg) == 0
        items = json.loads(capsys.readouterr().out)
        assert [(i["number"], i["status"], i["committed"]) for i in items] == [
            (11, "tentative", True),
            (12, "active", True),
        ]
        assert main(["github", "learn", REPO, "12", "--json"], cfg) == 0
        [one] = json.loads(capsys.readouterr().out)
        assert one["number"] == 12 and one["committed"] is False


def test_exit_codes(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2 for usage and configuration, 1 for refused or not found, 3 for an unreachable remote."""
    with pytest.raises(SystemExit) as bad:
        main(["note"])  # the text is missing
    assert bad.value.code == 2
    assert main(["github", "learn", "no-slash", "1"]) == 2
    main([*argv, "init"])
    assert main([*argv, "note", "AKIA" + "ABCDEFGHIJKLMNOP"]) == 1
    missing = ["--remote", str(tmp_path / "nowhere.git"), "--data-dir", str(tmp_path / "d2")]
    capsys.readouterr()
    assert main([*missing, "search", "anything"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hippo: ") and "HIPPO_MEMORY_REMOTE" in err[0]


def test_bad_setting_exits_2(capsys: pytest.CaptureFixture[str], monkeypatch: Any) -> None:
    monkeypatch.setenv("HIPPO_LOG_FORMAT", "xml")
    assert main(["log"]) == 2
    assert "HIPPO_LOG_FORMAT must be one of auto, json, text, not 'xml'" in capsys.readouterr().err


def test_bash_completion_completes_commands_and_options(tmp_path: Path) -> None:
    """`hippo completion bash`, sourced in a real bash, completes commands and options."""
    script = subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "completion", "bash"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (tmp_path / "hippo.bash").write_text(script)

    def complete(*words: str) -> list[str]:
        probe = (
            f"source {tmp_path / 'hippo.bash'}\n"
            f"COMP_WORDS=(hippo {' '.join(words)}); COMP_CWORD={len(words)}\n"
            f'COMP_LINE="hippo {" ".join(words)}"; COMP_POINT=${{#COMP_LINE}}\n'
            "_shtab_hippo; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
        )
        done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert {"search", "serve"} <= set(complete("se"))
    assert "--json" in complete("search", "--j")
    assert set(complete("completion", "")) == {"bash", "zsh", "tcsh"}
    zsh = subprocess.run(
        [sys.executable, "-m", "bot.cli.main", "completion", "zsh"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert zsh.startswith("#compdef hippo")


def _lint(argv: list[str], *, tty: bool) -> bytes:
    """`hippo lint` in a subprocess, its stderr a terminal (a pty) or a pipe; stderr's bytes."""
    cmd = [sys.executable, "-m", "bot.cli.main", *argv, "lint"]
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm"}
    if not tty:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, timeout=60)
        return done.stderr
    leader, follower = pty.openpty()
    with subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=follower
    ) as proc:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks)


def test_progress_only_on_a_terminal(argv: list[str]) -> None:
    """lint draws a rich progress bar when stderr is a terminal, and prints nothing to a pipe."""
    main([*argv, "init"])
    for i in range(5):
        main([*argv, "note", f"fact number {i}", "--path", f"topics/t{i}.md"])
    assert _lint(argv, tty=False) == b""
    drawn = _lint(argv, tty=True)
    assert b"lint" in drawn and b"\x1b[" in drawn  # the bar, drawn with escape sequences
