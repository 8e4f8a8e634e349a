"""The ranked search's SQLite FTS5 index on disk: it follows commits by their tree diff and
answers as a fresh build, forgets deleted and renamed files, rebuilds a missing, corrupt or
older-version file, and serves several processes reading one file while another writes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import memory
from memory import writes as ops
from memory.git import Author, Store
from memory.search import FtsIndex
from memory.search.folded import FoldedText

CHECKOUT = Path(memory.__file__).resolve().parent.parent  # where `memory` is imported from
QUERIES = ["redis", "redis timeout why", "kube config", "tiemout", '"vendor sandbox"', "+zebra"]
TREE = {
    "services/redis.md": b"# Redis\n- timeout is 2s [added: 2026-01-02]\n- the vendor sandbox\n",
    "infra/kubernetes.md": b"# Kubernetes\n- the configuration lives in helm\n",
    "inbox.md": b"# Inbox\n- zebra crossing near redis\n",
}


def where(fts: FtsIndex, query: str) -> list[tuple[str, int, float]]:
    return [(h.path, h.line, h.score) for h in fts.search(query, 50)]


def follow(fts: FtsIndex, commit: str, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    """Bring `fts` to `new` by the paths that differ from `old` (a tree diff)."""
    changed = sorted(p for p in old.keys() | new.keys() if old.get(p) != new.get(p))
    fts.sync(commit, lambda _: changed, lambda paths: {p: new[p] for p in paths or new if p in new})


def fresh(tree: dict[str, bytes]) -> FtsIndex:
    return FtsIndex().build(tree)


def test_a_commit_is_applied_file_by_file_and_answers_as_a_fresh_build(tmp_path: Path) -> None:
    fts = FtsIndex(tmp_path / "s.sqlite")
    fts.sync("c1", lambda _: None, lambda _: TREE)
    assert fts.commit == "c1"
    new = TREE | {"services/redis.md": b"# Redis\n- timeout is 5s now\n", "b.md": b"- postgres\n"}
    reads: list[list[str] | None] = []

    def read(paths: list[str] | None) -> dict[str, bytes]:
        reads.append(paths)
        return {p: new[p] for p in paths or new if p in new}

    fts.sync("c2", lambda old: ["b.md", "services/redis.md"] if old == "c1" else None, read)
    assert reads == [["b.md", "services/redis.md"]]  # only the changed files were read
    assert fts.commit == "c2"
    assert [h.text for h in fts.search("timeout")] == ["timeout is 5s now"]
    assert fts.search('"vendor sandbox"') == []  # the replaced line is gone
    for q in [*QUERIES, "postgres"]:
        assert where(fts, q) == where(fresh(new), q), q


def test_deleted_and_renamed_files_leave_the_results(tmp_path: Path) -> None:
    fts = FtsIndex(tmp_path / "s.sqlite")
    follow(fts, "c1", {}, TREE)
    moved = {k: v for k, v in TREE.items() if k != "inbox.md"} | {"old/zoo.md": TREE["inbox.md"]}
    follow(fts, "c2", TREE, moved)
    assert [h.path for h in fts.search("zebra")] == ["old/zoo.md"]
    gone = {k: v for k, v in moved.items() if k != "old/zoo.md"}
    follow(fts, "c3", moved, gone)
    assert fts.search("zebra") == [] and fts.search("+zebra redis") == []
    for q in QUERIES:
        assert where(fts, q) == where(fresh(gone), q), q


def test_a_missing_corrupt_or_older_index_is_built_again(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    FtsIndex(path).sync("c1", lambda _: None, lambda _: TREE)
    path.unlink()
    fts = FtsIndex(path)
    assert fts.commit is None  # missing: empty, filled by the next sync
    fts.sync("c1", lambda _: None, lambda _: TREE)
    assert where(fts, "redis") == where(fresh(TREE), "redis") != []
    fts.close()
    path.write_bytes(b"this is not a database" * 100)
    fts = FtsIndex(path)
    fts.sync("c1", lambda _: None, lambda _: TREE)
    assert where(fts, "redis") == where(fresh(TREE), "redis")
    fts.db.execute("UPDATE meta SET value = 'old' WHERE key = 'version'")
    fts.close()
    fts = FtsIndex(path)
    assert fts.commit is None
    fts.sync("c1", lambda _: None, lambda _: TREE)
    assert where(fts, "kube config") == where(fresh(TREE), "kube config") != []


def test_a_damaged_page_found_by_a_search_rebuilds_and_answers(tmp_path: Path) -> None:
    """The commit in the file reads fine but the lines' pages are garbage: the search finds it
    out, the index is made again from the tree, and the answer is right."""
    path = tmp_path / "s.sqlite"
    tree = {f"t/{i}.md": f"# T{i}\n- fact {i} about redis and more\n".encode() for i in range(300)}
    fts = FtsIndex(path)
    fts.sync("c1", lambda _: None, lambda _: tree)
    fts.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    fts.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + b"\x13" * (len(data) - len(data) // 2))
    fts = FtsIndex(path)
    assert fts.commit == "c1"
    found = fts.answer("c1", lambda _: [], lambda _: tree, "fact 7 redis", 3)
    assert next((h.path, h.line) for h in found) == ("t/7.md", 2)
    assert where(fts, "redis") == where(fresh(tree), "redis")


WORKER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from memory.search import FtsIndex
    trees = {f"c{i}": {f"t/{j}.md": f"- fact {j} about redis {i}\\n".encode() for j in range(60)}
             for i in range(12)}
    fts = FtsIndex(Path(sys.argv[2]))
    role = sys.argv[3]
    for i in range(12):
        commit = f"c{i}" if role == "writer" else "c0"
        if role == "writer":
            fts.sync(commit, lambda old: None if old is None else sorted(trees[commit]),
                     lambda paths: {p: trees[commit][p] for p in paths or trees[commit]})
        hits = fts.search("fact redis", 100)
        assert len(hits) == 60, len(hits)
        assert len({h.text.split()[-1] for h in hits}) == 1, "a search saw a half-applied commit"
    print("ok")
    """
)


def test_processes_share_one_index_file_while_one_writes(tmp_path: Path) -> None:
    """A writer applies 11 commits while two readers search the same file: every search sees
    one whole commit (transactions), none fails on a lock."""
    path = tmp_path / "s.sqlite"
    first = {f"t/{j}.md": f"- fact {j} about redis 0\n".encode() for j in range(60)}
    FtsIndex(path).sync("c0", lambda _: None, lambda _: first)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(CHECKOUT), str(path), role],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for role in ("writer", "reader", "reader")
    ]
    results = [p.communicate(timeout=120) for p in procs]
    assert [(p.returncode, out.strip()) for p, (out, _) in zip(procs, results, strict=True)] == [
        (0, "ok")
    ] * 3, [err for _, err in results]
    assert FtsIndex(path).commit == "c11"


def test_a_new_store_process_searches_from_the_index_on_disk(tmp_path: Path) -> None:
    """The store keeps the index beside its cache at the tip's commit; a second store on the
    same data dir (a restarted process) finds it current and answers without a rebuild."""
    remote = str(tmp_path / "remote.git")
    store = Store.open(remote, tmp_path / "data")
    store.init()
    store.write(
        [ops.WriteFile("a/redis.md", "# Redis\n- timeout is 2s\n")],
        author=Author("alice", "alice@example.com"),
        message="m",
    )
    assert next(h.text for h in store.search("why redis timeouts")) == "timeout is 2s"
    path = store.cache.with_suffix(".search.sqlite")
    assert path.exists() and FtsIndex(path).commit == store.head()
    again = Store.open(remote, tmp_path / "data")
    assert next(h.text for h in again.search("redis timeout")) == "timeout is 2s"
    assert FtsIndex(path).commit == again.head()


def test_a_build_in_batches_holds_the_rows_of_one_fold(tmp_path: Path) -> None:
    """A tree of more text than a batch is folded and inserted a batch at a time; its rows,
    words and counts are those of one fold of the whole tree (the in-memory index's build)."""
    tree = {
        f"topics/t{i:04}.md": (
            f"# Topic {i}\n\n- redis timeout {i} in checkout [added: 2026-01-02]\n"
            + f"- prose line about gateway latency and replica {i % 97}\n" * (i % 5)
        ).encode()
        for i in range(300)
    }
    tree["forgotten.md"] = b"# Forgotten\n- redis timeout 7 in checkout\n"
    assert sum(map(len, tree.values())) > 20 * 1000
    batched = FtsIndex(tmp_path / "index.sqlite", batch_bytes=1000)
    batched.sync("c1", lambda _: None, lambda _: tree)
    whole = FtsIndex().build(FoldedText.build(tree))
    for sql in (
        "SELECT rowid, * FROM lines ORDER BY rowid",
        "SELECT * FROM files ORDER BY path",
        "SELECT * FROM words ORDER BY word",
        "SELECT * FROM meta WHERE key IN ('docs', 'total', 'next') ORDER BY key",
    ):
        assert batched.db.execute(sql).fetchall() == whole.db.execute(sql).fetchall(), sql
    assert where(batched, "redis timeout") == where(whole, "redis timeout")
