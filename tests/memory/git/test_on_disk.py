"""A search answered from the index's file alone (memory/git/on_disk.py) gives the Store's hits
when the index holds the local remote's tip, and nothing (ask the Store) whenever it cannot be
sure: the remote moved, the index is absent or damaged, a `tag:` query, a remote elsewhere."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from memory.git import Author, Store, on_disk
from memory.git.transport import HEAD_REF
from memory.writes import (
    AddEntry,
    DeleteFile,
    MoveFile,
    Operation,
    RemoveEntry,
    WriteFile,
)

ALICE = Author("alice", "alice@example.com")


def _warm(tmp_path: Path) -> tuple[Store, Path]:
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    store.write([WriteFile("a/redis.md", "# Redis\n- timeout is 2s\n")], author=ALICE, message="m")
    store.search("redis")  # the index is brought to the tip
    return store, on_disk.cache_path(tmp_path / "data", "default")


def _hits(hits: list | None) -> list[tuple[str, int, str, float]] | None:
    return None if hits is None else [(h.path, h.line, h.text, h.score) for h in hits]


def test_the_index_at_the_tip_answers_as_the_store(tmp_path: Path) -> None:
    store, cache = _warm(tmp_path)
    assert cache == store.cache and on_disk.index_path(cache).is_file()
    remote = str(tmp_path / "remote.git")
    for query in ("redis", "timeout 2s", "zebra", '"is 2s"'):
        found = on_disk.search_at_tip(remote, cache, query, 20)
        assert _hits(found) == _hits(store.search(query))


QUERIES = ["redis", "timeout", "zebra queue", '"vendor sandbox"', "inbox", "night"]
BATCHES: list[list[Operation]] = [
    [AddEntry("inbox.md", "the zebra queue drains at night")],
    [WriteFile("b/c/deep.md", "# Deep\n- redis under the vendor sandbox\n")],
    [MoveFile("a/redis.md", "b/redis.md"), AddEntry("b/c/deep.md", "zebra timeout")],
    [DeleteFile("b/c/deep.md"), RemoveEntry("inbox.md", "the zebra queue drains at night")],
    [DeleteFile("b/redis.md")],
    [WriteFile("b", "- a file where a folder was\n"), AddEntry("inbox.md", "night redis")],
]


def test_a_remote_that_moved_is_followed_from_its_loose_objects(tmp_path: Path) -> None:
    """Someone else pushed (a note, a new folder, a move, deletions, a folder become a file):
    the index is brought to the remote's tip from the loose objects the pushes left, and
    answers as a Store that fetched (a fresh one, its index built from the whole tree)."""
    _, cache = _warm(tmp_path)
    remote = str(tmp_path / "remote.git")
    other = Store.open(remote, tmp_path / "other")
    for i, batch in enumerate(BATCHES):
        other.write(batch, author=ALICE, message=f"batch {i}")
        fresh = Store.open(remote, tmp_path / f"fresh{i}")
        fresh.sync()
        for query in QUERIES:
            assert _hits(on_disk.search_at_tip(remote, cache, query, 20)) == _hits(
                fresh.search(query)
            ), (i, query)


def test_packed_objects_are_asked_of_the_store(tmp_path: Path) -> None:
    store, cache = _warm(tmp_path)
    remote = str(tmp_path / "remote.git")
    other = Store.open(remote, tmp_path / "other")
    other.write([AddEntry("inbox.md", "the zebra queue")], author=ALICE, message="z")
    subprocess.run(["git", "-C", remote, "repack", "-adq"], check=True)
    subprocess.run(["git", "-C", remote, "prune-packed"], check=True)
    assert on_disk.search_at_tip(remote, cache, "zebra", 20) is None
    store.sync()
    assert [h.path for h in store.search("zebra")] == ["inbox.md"]
    assert [h.path for h in on_disk.search_at_tip(remote, cache, "zebra", 20) or []] == ["inbox.md"]


def test_what_it_cannot_be_sure_of_is_none(tmp_path: Path) -> None:
    _, cache = _warm(tmp_path)
    remote = str(tmp_path / "remote.git")
    assert on_disk.search_at_tip(remote, cache, "tag:deploy redis", 20) is None
    assert on_disk.search_at_tip("https://git.example.com/m.git", cache, "redis", 20) is None
    assert on_disk.search_at_tip(remote, tmp_path / "nowhere" / "cache.git", "redis", 20) is None
    index = on_disk.index_path(cache)
    damaged = index.with_name("damaged")
    damaged.write_bytes(b"not a database at all" * 100)
    damaged.replace(index)
    for suffix in ("-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    assert on_disk.search_at_tip(remote, cache, "redis", 20) is None
    again = Store.open(remote, tmp_path / "data")  # a new process: it makes the index again
    assert [h.path for h in again.search("redis")][:1] == ["a/redis.md"]
    assert _hits(on_disk.search_at_tip(remote, cache, "redis", 20)) == _hits(again.search("redis"))


def test_a_ref_is_read_loose_or_packed(tmp_path: Path) -> None:
    store, _ = _warm(tmp_path)
    remote = tmp_path / "remote.git"
    tip = store.tip()
    assert on_disk.ref(remote, HEAD_REF) == tip
    subprocess.run(["git", "-C", str(remote), "pack-refs", "--all"], check=True)
    assert not (remote / HEAD_REF).exists()
    assert on_disk.ref(remote, HEAD_REF) == tip
    assert on_disk.ref(remote, "refs/heads/other") is None
    (remote / "refs/heads/main").write_text("ref: refs/heads/elsewhere\n")  # symbolic: unsure
    assert on_disk.ref(remote, HEAD_REF) is None


def _git(*args: str, cwd: Path | None = None) -> str:
    who = ["-c", "user.name=Ann", "-c", "user.email=ann@example.com", "-c", "gc.auto=0"]
    done = subprocess.run(["git", *who, *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def _push_with_git(tmp_path: Path, remote: str, files: dict[str, str], name: str) -> None:
    """A person's commit, made and pushed with the git CLI from a clone of their own."""
    clone = tmp_path / name
    _git("clone", "-q", remote, str(clone))
    for path, text in files.items():
        (clone / path).parent.mkdir(parents=True, exist_ok=True)
        (clone / path).write_text(text)
    _git("add", "-A", cwd=clone)
    _git("commit", "-qm", name, cwd=clone)
    _git("push", "-q", "origin", "HEAD:main", cwd=clone)


def test_a_persons_git_push_is_followed_from_its_loose_objects(tmp_path: Path) -> None:
    """git's receive-pack unpacks a push of fewer than 100 objects into loose objects, as
    git wrote them (not libgit2): the index follows them and answers as a fresh Store."""
    _, cache = _warm(tmp_path)
    remote = str(tmp_path / "remote.git")
    files = {"a/redis.md": "# Redis\n- timeout is 5s now\n", "ops/zebra.md": "- zebra queue\n"}
    _push_with_git(tmp_path, remote, files, "person")
    fresh = Store.open(remote, tmp_path / "fresh")
    fresh.sync()
    for query in ("redis timeout", "zebra", "5s"):
        found = on_disk.search_at_tip(remote, cache, query, 20)
        assert found is not None and _hits(found) == _hits(fresh.search(query)), query


def test_after_git_gc_the_store_answers_once_then_the_index_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """`git gc` packs every object and every ref: an index behind cannot follow (None, the
    reason logged), the Store fetches and brings it to the tip, and the index, at the tip read
    from packed-refs, answers again."""
    _, cache = _warm(tmp_path)
    remote = str(tmp_path / "remote.git")
    Store.open(remote, tmp_path / "other").write(
        [AddEntry("inbox.md", "the zebra queue")], author=ALICE, message="z"
    )
    _git("--git-dir", remote, "gc", "-q", "--prune=now")
    assert not (Path(remote) / HEAD_REF).exists()  # packed-refs alone
    with caplog.at_level(logging.DEBUG, logger="hippo.search"):
        assert on_disk.search_at_tip(remote, cache, "zebra", 20) is None
    assert "is not loose (packed, or absent)" in caplog.text
    again = Store.open(remote, tmp_path / "data")  # the next `hippo search` process
    assert [h.path for h in again.search("zebra")] == ["inbox.md"]
    assert _hits(on_disk.search_at_tip(remote, cache, "zebra", 20)) == _hits(again.search("zebra"))


def test_a_pushed_pack_is_asked_of_the_store(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A push of 100 objects or more stays a pack on the remote (transfer.unpackLimit)."""
    _, cache = _warm(tmp_path)
    remote = str(tmp_path / "remote.git")
    files = {f"bulk/{i:03}.md": f"- bulk fact {i} about zebras\n" for i in range(120)}
    _push_with_git(tmp_path, remote, files, "bulk")
    assert list((Path(remote) / "objects" / "pack").glob("*.pack"))
    with caplog.at_level(logging.DEBUG, logger="hippo.search"):
        assert on_disk.search_at_tip(remote, cache, "zebras", 20) is None
    assert "searching through git" in caplog.text
    store = Store.open(remote, tmp_path / "data")
    assert len(store.search("zebras", limit=200)) == 120
    assert len(on_disk.search_at_tip(remote, cache, "zebras", 200) or []) == 120


def test_a_sha256_ref_is_the_stores(tmp_path: Path) -> None:
    remote = tmp_path / "r.git"
    (remote / "refs" / "heads").mkdir(parents=True)
    (remote / HEAD_REF).write_text("ab" * 32 + "\n")
    assert on_disk.ref(remote, HEAD_REF) is None
