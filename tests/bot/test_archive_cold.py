"""The cold archive through the doors: `hippo search --archive` and MCP searchMemory with
archive=true find episodes rolled out of the tree; no door writes the cold store."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from memory import writes
from memory.archive.rollup import roll_up
from memory.git import Author, Store
from memory.git.cold import COLD_REF, ColdStore
from tests.bot.test_mcp import run_call, text_of

ALICE = Author("alice", "alice@example.com")
OLD = "archive/2026-08-30.jsonl"
NEW = "archive/2026-11-30.jsonl"


@pytest.fixture
def store(store: Store) -> Store:
    """An old episode (rolled up into the cold ref) and a recent one (still in the tree)."""
    ops = [
        writes.AppendLine(OLD, json.dumps({"summary": "the redis failover drill took 40 s"})),
        writes.AppendLine(NEW, json.dumps({"summary": "the redis failover drill took 30 s"})),
        writes.AddEntry("ops/redis.md", "redis failover takes 30 s"),
    ]
    store.write(ops, author=ALICE, message="seed")
    assert [r.month for r in roll_up(store, date(2026, 12, 2))] == ["2026-08"]
    return store


def test_cli_search_archive_finds_the_cold_months(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "cli")]
    assert main([*argv, "search", "drill", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main([*argv, "search", "drill", "--archive", "--json"]) == 0
    found = [(h["path"], h["line"]) for h in json.loads(capsys.readouterr().out)]
    assert found == [(NEW, 1), ("refs/hippo-cold/archive:months/2026-08.jsonl.gz", 1)]


def test_mcp_searches_the_cold_months_and_cannot_write_them(store: Store) -> None:
    server = build_server(MemoryTools(store, workspace="t"), fixed("claude"))
    plain = run_call(server, "searchMemory", {"query": "failover 40"})
    assert "2026-08.jsonl.gz" not in text_of(plain)
    archived = run_call(server, "searchMemory", {"query": "failover 40", "archive": True})
    assert "refs/hippo-cold/archive:months/2026-08.jsonl.gz" in text_of(
        archived
    ) and "40 s" in text_of(archived)
    cold = ColdStore(store).fetch()
    # An agent's writes reach the branch only: a file named like a month lands in the tree
    # (archive/ takes new files), the cold ref does not move, and search tells the two apart.
    for path in ("archive/2026-08.jsonl.gz", "months/2026-08.jsonl.gz"):
        args = {"path": path, "message": "m", "content": '{"summary": "failover 40 forged"}\n'}
        run_call(server, "writeMemory", args)
    assert run_call(server, "deleteMemory", {"path": NEW, "message": "m"}).is_error
    assert ColdStore(store).fetch() == cold
    assert store.ref(COLD_REF) is None  # not one of hippo's refs/hippo/* either
    hits = store.search("failover 40", archive=True)
    cold_hits = [h for h in hits if h.path.startswith(COLD_REF + ":")]
    assert [h.text for h in cold_hits] == [
        json.dumps({"summary": "the redis failover drill took 40 s"})
    ]
