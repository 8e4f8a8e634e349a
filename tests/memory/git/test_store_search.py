"""The store's warm search index follows commits through the tree diff, as a fresh build would."""

from __future__ import annotations

from pathlib import Path

from memory import writes
from memory.git import Author, Store

ALICE = Author("alice", "alice@example.com")
QUERIES = ["redis", "timeout", "redis timeout", '"vendor sandbox"', "inbox", "zebra"]


def answers(store: Store, commit: str | None = None) -> dict[str, list[tuple[str, int, float]]]:
    return {
        q: [(h.path, h.line, h.score) for h in store.search(q, limit=50, commit=commit)]
        for q in QUERIES
    }


def test_search_after_each_commit_equals_a_cold_index(tmp_path: Path) -> None:
    """A process that searched before each write (so its index is updated from the diff of
    added, edited, moved and deleted files) answers as a process that searches only at the end,
    and searching an older commit answers for that commit."""
    remote = str(tmp_path / "remote.git")
    warm = Store.open(remote, tmp_path / "warm")
    warm.init()
    batches: list[list[writes.Operation]] = [
        [
            writes.WriteFile("a/redis.md", "# Redis\n- timeout is 2s\n"),
            writes.AddEntry("inbox.md", "zebra crossing"),
        ],
        [writes.AddEntry("a/redis.md", "redis timeout under the vendor sandbox")],
        [writes.MoveFile("a/redis.md", "b/cache.md"), writes.WriteFile("c.md", "- redis\n")],
        [writes.DeleteFile("c.md"), writes.RemoveEntry("inbox.md", "zebra crossing")],
    ]
    seen = []
    for batch in batches:
        seen.append((warm.head(), answers(warm)))
        warm.write(batch, author=ALICE, message="m")
    final = answers(warm)
    cold = Store.open(remote, tmp_path / "cold")
    cold.sync()
    assert final == answers(cold)
    assert final["redis timeout"][0][:2] == ("b/cache.md", 3)
    assert final["zebra"] == [] and seen[1][1]["zebra"]
    for commit, then in seen:
        assert answers(warm, commit) == then
