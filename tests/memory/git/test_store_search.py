"""The store's warm search index follows commits through the tree diff, as a fresh build would."""

from __future__ import annotations

from pathlib import Path

from memory import writes
from memory.git import Author, Store
from memory.search import FtsIndex

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


def test_a_commit_of_many_files_is_applied_not_rebuilt(tmp_path: Path) -> None:
    """A commit changing 520 of 4,200 files (more than a tree diff once reported: it said
    "far apart" past 500, and the index on disk was rebuilt; under an eighth of the files) is
    applied to the index file (its row numbers go on from the last) and answers as a cold
    index of the same commit."""
    remote = str(tmp_path / "remote.git")
    warm = Store.open(remote, tmp_path / "warm")
    warm.init()
    files = [writes.WriteFile(f"t/{i}.md", f"# T{i}\n- redis item {i}\n") for i in range(4200)]
    warm.write(files, author=ALICE, message="many")
    assert warm.search("redis item 7", 5)
    index = FtsIndex(tmp_path / "warm" / "workspaces" / "default" / "cache.search.sqlite")
    before = index.db.execute("SELECT value FROM meta WHERE key = 'next'").fetchone()
    edits = [writes.WriteFile(f"t/{i}.md", f"# T{i}\n- zebra item {i}\n") for i in range(520)]
    warm.write(edits, author=ALICE, message="edits")
    got = [(h.path, h.line, h.score) for h in warm.search("zebra item 7", 20)]
    after = index.db.execute("SELECT value FROM meta WHERE key = 'next'").fetchone()
    assert int(after[0]) == int(before[0]) + 520 * 2  # 520 files' title and entry appended
    cold = Store.open(remote, tmp_path / "cold")
    assert got == [(h.path, h.line, h.score) for h in cold.search("zebra item 7", 20)]
    assert got[0][0] == "t/7.md"
