"""`hippo log -S` and `hippo search --history`: who added, changed or removed an entry, why and
on what evidence, through the CLI's entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    args = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]
    assert main([*args, "init"]) == 0
    note = ["note", "the queue drains before a deploy", "--path", "deploy.md"]
    assert main([*args, *note, "--by", "ann", "--source", "https://s/1"]) == 0
    assert main([*args, "note", "the db lives in eu-west", "--by", "bob"]) == 0
    forget = [
        "forget",
        "the queue drains before a deploy",
        "--by",
        "cy",
        "--reason",
        "not since v2",
    ]
    assert main([*args, *forget]) == 0
    return args


def test_log_s_lists_who_added_and_who_removed(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main([*argv, "log", "-S", "QUEUE drains"]) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = [line for line in lines if not line.startswith("  ")]
    assert len(heads) == 2
    assert heads[0].endswith("cy: forget: the queue drains before a deploy")
    assert heads[1].endswith("ann: note: the queue drains before a deploy")
    assert "  removed deploy.md: the queue drains before a deploy" in lines
    assert "  why: not since v2" in lines
    assert "  evidence: https://s/1" in lines


def test_search_history_json_and_bounds(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main([*argv, "search", "--history", "queue deploy", "--limit", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["complete"] is True and len(got["changes"]) == 1
    [change] = got["changes"]
    assert change["author"] == "cy" and change["reason"] == "not since v2"
    assert {"path": "deploy.md", "action": "removed"}.items() <= change["entries"][0].items()
    assert main([*argv, "search", "--history", "queue", "--since", "2999-01-01"]) == 0
    assert "no commit changed an entry matching 'queue'" in capsys.readouterr().out


def test_log_since_is_recent_activity(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main([*argv, "log", "--since", "2000-01-01", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [c["author"] for c in got["changes"]] == ["cy", "bob", "ann", "hippo"]


def test_bad_input_is_a_clear_refusal(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main([*argv, "log", "-S", "queue", "--since", "last week"]) == 1
    assert "is not a date: give YYYY-MM-DD" in capsys.readouterr().err
    assert main([*argv, "search", "--history", "  "]) == 1
    assert "give words" in capsys.readouterr().err
