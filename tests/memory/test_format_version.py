"""The memory format version: recorded in .dream/state.json, a newer one refused with a clear
message, and `hippo migrate` for the day the format changes."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from bot.cli.main import main
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.errors import FormatTooNew
from memory.format import version
from memory.git import DREAMER, Author, Store
from memory.writes import AddEntry, WriteFile

ALICE = Author("alice", "alice@example.com")


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    return ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]


def open_store(tmp_path: Path) -> Store:
    return Store.open(str(tmp_path / "remote.git"), tmp_path / "data")


def test_a_dream_records_the_format_version(tmp_path: Path) -> None:
    """After a dream, .dream/state.json says which format hippo wrote."""
    store = open_store(tmp_path)
    store.init()
    dream(store, now=datetime(2026, 11, 30, 3), verifiers=Verifiers())
    state = json.loads(store.read(".dream/state.json"))
    assert state["formatVersion"] == version.FORMAT_VERSION


def test_a_newer_format_is_refused_for_every_write_and_the_dream(tmp_path: Path) -> None:
    """A memory written by a newer hippo: writes and dreams are refused, saying to upgrade;
    nothing is written."""
    store = open_store(tmp_path)
    store.init()
    newer = json.dumps({"formatVersion": version.FORMAT_VERSION + 1, "lastRun": ""})
    store.write([WriteFile(".dream/state.json", newer)], author=DREAMER, message="future")
    head = store.head()
    with pytest.raises(FormatTooNew, match="upgrade hippo"):
        store.write([AddEntry("inbox.md", "a note")], author=ALICE, message="n")
    with pytest.raises(FormatTooNew):
        dream(store, now=datetime(2026, 11, 30, 3), verifiers=Verifiers())
    assert store.head() == head


def test_hippo_migrate(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """migrate records the version on a memory that has none, then has nothing to do; on a
    newer memory it fails with one clear line."""
    assert main([*argv, "init"]) == 0
    assert main([*argv, "migrate"]) == 0
    assert "to 1" in capsys.readouterr().out
    store = open_store(tmp_path)
    assert json.loads(store.read(".dream/state.json"))["formatVersion"] == 1
    assert main([*argv, "migrate"]) == 0
    assert "nothing to migrate" in capsys.readouterr().out
    newer = json.dumps({"formatVersion": 99})
    store.write([WriteFile(".dream/state.json", newer)], author=DREAMER, message="future")
    assert main([*argv, "migrate"]) != 0
    assert "format version 99" in capsys.readouterr().err
