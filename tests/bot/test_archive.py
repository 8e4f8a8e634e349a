"""The archive is append-only and never in context: only appends reach archive/ through every
door, and search skips it unless asked (`hippo search --archive`, MCP searchMemory archive)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from memory import writes
from memory.errors import AppendOnly
from memory.git import Author, Store
from tests.bot.test_mcp import run_call, text_of

ALICE = Author("alice", "alice@example.com")
DAY = "archive/2026-11-30.jsonl"
EPISODE = json.dumps({"type": "thread_summary", "summary": "the redis failover drill went fine"})


@pytest.fixture
def store(store: Store) -> Store:
    """Seeded with an episode and a note."""
    s = store
    s.write([writes.AppendLine(DAY, EPISODE)], author=ALICE, message="episode")
    s.write(
        [writes.AddEntry("ops/redis.md", "redis failover takes 30 s")], author=ALICE, message="n"
    )
    return s


@pytest.mark.parametrize(
    "op",
    [
        writes.WriteFile(DAY, "{}\n"),
        writes.DeleteFile(DAY),
        writes.MoveFile(DAY, "archive/old.jsonl"),
        writes.MoveFile("ops/redis.md", "archive/redis.md"),
        writes.AddEntry(DAY, "a bullet"),
        writes.RemoveEntry(DAY, "anything"),
    ],
)
def test_only_appends_reach_the_archive(store: Store, op: writes.Operation) -> None:
    """Rewriting, deleting, moving in or out, and entry edits of archive/ are refused, named."""
    with pytest.raises(AppendOnly, match="append-only"):
        store.write([op], author=ALICE, message="try")
    assert store.read(DAY) == EPISODE + "\n"


def test_appending_through_a_whole_file_write_is_an_append(store: Store) -> None:
    """A whole-file write that keeps every byte and adds lines (what an editor saves) is fine."""
    more = EPISODE + "\n" + json.dumps({"summary": "second"}) + "\n"
    store.write([writes.WriteFile(DAY, more)], author=ALICE, message="append")
    assert store.read(DAY) == more


def test_search_skips_the_archive_unless_asked(store: Store) -> None:
    """search hits the topic, never the raw episode; archive=True hits only the episode."""
    assert [h.path for h in store.search("failover")] == ["ops/redis.md"]
    assert [h.path for h in store.search("failover", archive=True)] == [DAY]


def test_mcp_search_and_writes_respect_the_archive(store: Store) -> None:
    """searchMemory skips archive/ unless archive=true; writeMemory and deleteMemory cannot
    rewrite or delete an archive file (the error says what to do)."""
    server = build_server(MemoryTools(store, workspace="t"), fixed("claude"))
    plain = run_call(server, "searchMemory", {"query": "failover"})
    assert "ops/redis.md" in text_of(plain) and DAY not in text_of(plain)
    archived = run_call(server, "searchMemory", {"query": "failover", "archive": True})
    assert DAY in text_of(archived) and "ops/redis.md" not in text_of(archived)
    args = {"path": DAY, "message": "m", "content": "{}\n"}
    rewrite = run_call(server, "writeMemory", args)
    assert rewrite.is_error and "append-only" in text_of(rewrite)
    gone = run_call(server, "deleteMemory", {"path": DAY, "message": "m"})
    assert gone.is_error and "append-only" in text_of(gone)
    assert store.read(DAY) == EPISODE + "\n"


def test_cli_search_archive_flag(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hippo search` leaves episodes out; `hippo search --archive` finds them."""
    argv = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "search", "drill", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main([*argv, "search", "drill", "--archive", "--json"]) == 0
    assert [h["path"] for h in json.loads(capsys.readouterr().out)] == [DAY]
