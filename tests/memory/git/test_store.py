"""The memory repository and its write path, against a real bare remote in a temp dir."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest

from memory import writes
from memory.errors import (
    EntryConflict,
    InvalidPath,
    NotFound,
    ProtectedPath,
    SecretFound,
    TargetGone,
    TombstoneConflict,
)
from memory.git import DREAMER, Author, Store

ALICE = Author("alice", "alice@example.com")


@pytest.fixture
def remote(tmp_path: Path) -> str:
    return str(tmp_path / "remote.git")


@pytest.fixture
def store(tmp_path: Path, remote: str) -> Store:
    s = Store.open(remote, tmp_path / "data-a")
    s.init()
    return s


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def test_init_creates_bare_remote_with_layout_and_attributes(store: Store, remote: str) -> None:
    """init makes a bare remote, MEMORY.md, inbox.md, .gitattributes and info/attributes."""
    assert pygit2.Repository(remote).is_bare
    assert store.files() == [".gitattributes", "MEMORY.md", "inbox.md"]
    assert "## Index" in store.read("MEMORY.md")
    rules = "inbox.md merge=union\narchive/*.jsonl merge=union\n"
    assert store.read(".gitattributes") == rules
    assert (Path(remote) / "info" / "attributes").read_text() == rules


def test_init_twice_changes_nothing(store: Store) -> None:
    """A second init is a no-op: same head, no new commit."""
    head = store.head()
    assert store.init() == head
    assert len(store.log()) == 1


def test_write_is_one_commit_with_author_message_and_trailers(store: Store) -> None:
    """Operations land as one commit by the author, with Hippo-Key and Hippo-Source trailers."""
    r = store.write(
        [writes.AddEntry("a.md", "fact one"), writes.AddEntry("b.md", "fact two")],
        author=ALICE,
        message="two facts",
        key="k-1",
        source="https://slack.example/p1",
    )
    assert r.created and set(r.paths) == {"a.md", "b.md"}
    (c, *_) = store.log()
    assert (c.sha, c.author, c.summary) == (r.commit, "alice", "two facts")
    assert c.trailers == {"Hippo-Key": "k-1", "Hippo-Source": "https://slack.example/p1"}


def test_same_key_makes_no_second_commit(store: Store, tmp_path: Path, remote: str) -> None:
    """A key that already landed reports the earlier commit, even from another cache."""
    first = store.write([writes.AddEntry("a.md", "x")], author=ALICE, message="m", key="evt-1")
    again = store.write([writes.AddEntry("a.md", "y")], author=ALICE, message="m", key="evt-1")
    other = Store.open(remote, tmp_path / "data-b")
    third = other.write([writes.AddEntry("a.md", "z")], author=ALICE, message="m", key="evt-1")
    assert (again.commit, again.created) == (first.commit, False)
    assert (third.commit, third.created) == (first.commit, False)
    assert store.read("a.md") == "- x\n"


def test_replace_and_remove_change_only_their_line(store: Store) -> None:
    """Replace rewrites one line, remove deletes one line; the rest is byte-identical."""
    store.write(
        [writes.WriteFile("t.md", "# T\n\n- a [added: 2026-01-01]\n- b\nprose\n")],
        author=ALICE,
        message="m",
    )
    store.write(
        [writes.ReplaceEntry("t.md", "a", "a!", (("added", "2026-01-02"),))],
        author=ALICE,
        message="m",
    )
    assert store.read("t.md") == "# T\n\n- a! [added: 2026-01-02]\n- b\nprose\n"
    r = store.write([writes.RemoveEntry("t.md", "b")], author=ALICE, message="m")
    assert store.read("t.md") == "# T\n\n- a! [added: 2026-01-02]\nprose\n"
    assert [e.text for _, e in r.removed] == ["b"]


def test_move_and_delete_files(store: Store) -> None:
    """Move and delete are operations too; moving a missing file names the error."""
    store.write([writes.WriteFile("x.md", "- x\n")], author=ALICE, message="m")
    store.write([writes.MoveFile("x.md", "topics/x.md")], author=ALICE, message="m")
    assert store.read("topics/x.md") == "- x\n" and store.read_or_none("x.md") is None
    store.write([writes.DeleteFile("topics/x.md")], author=ALICE, message="m")
    with pytest.raises(TargetGone, match="does not exist"):
        store.write([writes.MoveFile("x.md", "y.md")], author=ALICE, message="m")
    with pytest.raises(NotFound):
        store.read("topics/x.md")


def test_target_gone_commits_nothing(store: Store) -> None:
    """An operation whose entry is not there raises EntryConflict and nothing is committed."""
    head = store.head()
    with pytest.raises(EntryConflict, match="another writer changed or removed it"):
        store.write(
            [writes.AddEntry("a.md", "ok"), writes.RemoveEntry("inbox.md", "never there")],
            author=ALICE,
            message="m",
        )
    assert store.sync() == head


@pytest.mark.parametrize("path", ["../x.md", "/etc/passwd", ".git/config", "a/../b.md", ""])
def test_paths_outside_the_repository_are_refused(store: Store, path: str) -> None:
    """'..', absolute paths, .git and empty paths are refused with InvalidPath."""
    with pytest.raises(InvalidPath):
        store.write([writes.WriteFile(path, "x")], author=ALICE, message="m")


def test_dream_folder_is_protected(store: Store) -> None:
    """Only the dreaming identity may write .dream/; others get ProtectedPath."""
    with pytest.raises(ProtectedPath, match="only the dreaming job"):
        store.write([writes.WriteFile(".dream/state.json", "{}")], author=ALICE, message="m")
    r = store.write([writes.WriteFile(".dream/state.json", "{}")], author=DREAMER, message="m")
    assert r.created


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("token xoxb-1234567890-abcdefghijklmnop", "Slack token"),
        ("ghp_" + "a" * 36, "GitHub token"),
        ("github_pat_" + "A1" * 30, "GitHub fine-grained token"),
        ("key AKIAIOSFODNN7EXAMPLE here", "AWS access key id"),
        ("-----BEGIN RSA PRIVATE KEY-----", "private key block"),
        ("sk-ant-api03-" + "x" * 40, "Anthropic API key"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk", "JWT"),
    ],
)
def test_secrets_are_refused_by_kind(store: Store, text: str, kind: str) -> None:
    """A write holding a secret is refused, the error names the kind, nothing is committed."""
    head = store.head()
    with pytest.raises(SecretFound) as err:
        store.write([writes.AddEntry("inbox.md", text)], author=ALICE, message="m")
    assert err.value.kind == kind and kind in str(err.value)
    assert text not in str(err.value)
    assert store.sync() == head


def test_tombstoned_fact_is_refused_unless_forced(store: Store) -> None:
    """A fact in forgotten.md cannot be added again (normalised match) unless forced."""
    store.write(
        [
            writes.AddTombstone(
                "forgotten.md",
                "The batch alert is expected",
                (("removed", "2026-11-01"), ("by", "U1")),
            )
        ],
        author=ALICE,
        message="m",
    )
    with pytest.raises(TombstoneConflict, match=r"forgotten\.md.*removed 2026-11-01.*by U1"):
        store.write(
            [writes.AddEntry("ops.md", "the batch alert is expected!")], author=ALICE, message="m"
        )
    with pytest.raises(TombstoneConflict):
        store.write(
            [writes.WriteFile("new.md", "# N\n- the batch alert is expected\n")],
            author=ALICE,
            message="m",
        )
    assert store.write(
        [writes.AddEntry("ops.md", "the batch alert is expected")],
        author=ALICE,
        message="m",
        force=True,
    ).created


def test_two_adds_of_one_fact_make_one_entry(store: Store) -> None:
    """Adding a fact already in the file changes nothing (and makes no empty commit)."""
    a = store.write([writes.AddEntry("a.md", "same fact")], author=ALICE, message="m")
    b = store.write([writes.AddEntry("a.md", "Same fact.")], author=ALICE, message="m")
    assert (b.created, b.commit) == (False, a.commit)


def test_append_line_for_jsonl_archives(store: Store) -> None:
    """AppendLine appends raw lines to an append-only file."""
    store.write(
        [writes.AppendLine("archive/2026-11-30.jsonl", '{"a": 1}')], author=ALICE, message="m"
    )
    store.write(
        [writes.AppendLine("archive/2026-11-30.jsonl", '{"a": 2}\n')], author=ALICE, message="m"
    )
    assert store.read("archive/2026-11-30.jsonl") == '{"a": 1}\n{"a": 2}\n'


def test_log_of_a_file_and_diff_of_a_commit(store: Store) -> None:
    """log(path) lists only commits touching the file; diff gives files and +/− counts."""
    r1 = store.write([writes.AddEntry("a.md", "one")], author=ALICE, message="first")
    store.write([writes.AddEntry("b.md", "two")], author=ALICE, message="second")
    r3 = store.write([writes.AddEntry("a.md", "three")], author=ALICE, message="third")
    assert [c.sha for c in store.log("a.md")] == [r3.commit, r1.commit]
    d = store.diff(r3.commit)
    assert [(f.path, f.status, f.additions, f.deletions) for f in d.files] == [
        ("a.md", "modified", 1, 0)
    ]
    assert "+- three" in d.files[0].patch


def test_revert_one_commit_keeps_later_ones(store: Store) -> None:
    """Reverting an older commit undoes only it, as a new commit by the person."""
    r1 = store.write([writes.AddEntry("a.md", "one")], author=ALICE, message="first")
    store.write([writes.AddEntry("b.md", "two")], author=ALICE, message="second")
    bob = Author("bob", "bob@example.com")
    r = store.revert(r1.commit, bob)
    assert store.read_or_none("a.md") is None and store.read("b.md") == "- two\n"
    assert store.log()[0].author == "bob" and store.log()[0].sha == r.commit


def test_publish_and_read_refs(store: Store, tmp_path: Path, remote: str) -> None:
    """publish points refs/hippo/<name> at a commit on the remote; another cache sees it."""
    store.publish("snapshots/1", store.head())
    other = Store.open(remote, tmp_path / "data-b")
    other.sync()
    assert other.ref("snapshots/1") == store.head()
    assert other.refs("snapshots/") == {"snapshots/1": store.head()}


def test_unreachable_remote_is_a_clear_error(tmp_path: Path) -> None:
    """A remote that does not exist (and is not local-creatable) gives RemoteError on sync."""
    from memory.errors import RemoteError

    s = Store.open("https://127.0.0.1:9/nothing.git", tmp_path / "d")
    with pytest.raises(
        RemoteError,
        match=r"cannot reach the memory remote https://127\.0\.0\.1:9/nothing\.git \(fetching\)",
    ):
        s.sync()


def test_many_entry_operations_in_one_write_are_fast_and_exact(store: Store) -> None:
    """1,750 entry operations on a 2,300-entry file apply in one commit, each exactly once."""
    text = "# T\n\n" + "".join(f"- entry number {i} about things\n" for i in range(2300))
    store.write([writes.WriteFile("t.md", text)], author=ALICE, message="m")
    batch: list[writes.Operation] = [
        writes.RemoveEntry("t.md", f"entry number {i} about things") for i in range(0, 2300, 2)
    ]
    batch += [
        writes.ReplaceEntry("t.md", f"entry number {i} about things", f"entry {i} changed")
        for i in range(1, 600, 2)
    ]
    batch += [writes.AddEntry("t.md", f"new {i}") for i in range(300)]
    r = store.write(batch, author=ALICE, message="big edit")
    lines = store.read("t.md").splitlines()
    assert len(r.removed) == 1150 and len(lines) == 2 + 1150 + 300
    assert lines[2:4] == ["- entry 1 changed", "- entry 3 changed"] and lines[-1] == "- new 299"


def test_publish_create_never_overwrites(store: Store, tmp_path: Path, remote: str) -> None:
    """publish(create=True) refuses a name another publisher took; the numbered snapshot stays."""
    first = store.head()
    assert store.publish("snapshots/7", first, create=True)
    r = store.write([writes.AddEntry("a.md", "later")], author=ALICE, message="m")
    other = Store.open(remote, tmp_path / "data-b")
    other.sync()
    assert not other.publish("snapshots/7", r.commit, create=True)
    other.sync()
    assert other.ref("snapshots/7") == first


def test_redis_lock_serializes_writers_and_times_out(tmp_path: Path, remote: str) -> None:
    """With Redis, writers share `hippo:lock:<workspace>`; a lock held elsewhere gives LockTimeout."""
    import threading

    import fakeredis

    from memory.errors import LockTimeout
    from memory.git.locks import RedisWorkspaceLock

    server = fakeredis.FakeServer()
    a = Store.open(remote, tmp_path / "ra", redis=fakeredis.FakeRedis(server=server))
    b = Store.open(remote, tmp_path / "rb", redis=fakeredis.FakeRedis(server=server))
    a.init()
    threads = [
        threading.Thread(
            target=lambda s=s, i=i: s.write(
                [writes.AddEntry("x.md", f"fact {i} of {id(s)}")], author=ALICE, message="m"
            )
        )
        for s in (a, b)
        for i in range(10)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    a.sync()
    assert len(a.read("x.md").splitlines()) == 20
    held = fakeredis.FakeRedis(server=server).lock("hippo:lock:default", timeout=30)
    assert held.acquire()
    slow = Store(
        remote,
        tmp_path / "rc",
        lock=RedisWorkspaceLock(fakeredis.FakeRedis(server=server), "hippo:lock:default", wait=0.2),
    )
    with pytest.raises(LockTimeout, match="try again"):
        slow.write([writes.AddEntry("x.md", "blocked")], author=ALICE, message="m")
    held.release()


def test_append_after_a_line_without_newline_and_a_twin_line(store: Store) -> None:
    """Appending to a file whose last line lacks a newline ends that line, not an equal one above."""
    store.write([writes.WriteFile("t.md", "- same\n- other\n- same")], author=ALICE, message="m")
    store.write(
        [writes.AddEntry("t.md", "new"), writes.AddEntry("t.md", "newer")],
        author=ALICE,
        message="m",
    )
    assert store.read("t.md") == "- same\n- other\n- same\n- new\n- newer\n"


def test_a_moved_remote_is_an_error_not_recreated(
    store: Store, remote: str, tmp_path: Path
) -> None:
    """When the local remote is moved away, writes fail with RemoteError and nothing reappears."""
    from memory.errors import RemoteError

    store.write([writes.AddEntry("a.md", "one")], author=ALICE, message="m")
    Path(remote).rename(tmp_path / "elsewhere.git")
    with pytest.raises(RemoteError):
        store.write([writes.AddEntry("a.md", "two")], author=ALICE, message="m")
    assert not Path(remote).exists()


def test_tree_derived_from_the_cache_equals_a_fresh_read(
    store: Store, tmp_path: Path, remote: str
) -> None:
    """After adds, edits, moves and deletes, the incrementally kept tree equals a full walk."""
    store.tree()
    store.write(
        [writes.WriteFile("a/x.md", "- x\n"), writes.WriteFile("b.md", "- b\n")],
        author=ALICE,
        message="m",
    )
    store.tree()
    store.write(
        [writes.MoveFile("a/x.md", "c/x.md"), writes.AddEntry("b.md", "b2")],
        author=ALICE,
        message="m",
    )
    store.tree()
    store.write(
        [writes.DeleteFile("b.md"), writes.AppendLine("archive/d.jsonl", "{}")],
        author=ALICE,
        message="m",
    )
    kept = store.tree()
    fresh = Store.open(remote, tmp_path / "fresh")
    fresh.sync()
    assert kept == fresh.tree()
    assert set(kept) == {".gitattributes", "MEMORY.md", "inbox.md", "c/x.md", "archive/d.jsonl"}


def test_revert_is_worked_out_on_the_newest_tip(store: Store, tmp_path: Path, remote: str) -> None:
    """A revert by a writer whose cache is stale keeps what others wrote since."""
    r1 = store.write([writes.AddEntry("a.md", "one")], author=ALICE, message="first")
    other = Store.open(remote, tmp_path / "data-b")
    other.write([writes.AddEntry("a.md", "two")], author=ALICE, message="second")
    store.revert(r1.commit, Author("bob", "bob@example.com"))
    assert store.read("a.md") == "- two\n"


def test_revert_of_an_entry_edited_since_is_a_named_conflict(store: Store) -> None:
    """Undoing an edit of an entry that was edited again later raises EntryConflict, commits nothing."""
    store.write([writes.WriteFile("a.md", "- x one\n- y\n")], author=ALICE, message="seed")
    r = store.write([writes.ReplaceEntry("a.md", "x one", "x two")], author=ALICE, message="edit")
    store.write([writes.ReplaceEntry("a.md", "x two", "x three")], author=ALICE, message="again")
    head = store.head()
    with pytest.raises(EntryConflict):
        store.revert(r.commit, ALICE)
    assert store.sync() == head
    # an entry added by a commit comes out even though notes were appended right after it
    added = store.write([writes.AddEntry("a.md", "z new")], author=ALICE, message="add z")
    store.write([writes.AddEntry("a.md", "w newer")], author=ALICE, message="add w")
    store.revert(added.commit, ALICE)
    assert store.read("a.md") == "- x three\n- y\n- w newer\n"


def test_a_long_lived_reader_sees_others_pushes(store: Store, tmp_path: Path, remote: str) -> None:
    """A reader fetches again once its view is older than max_age; within it, reads stay local."""
    web = Store(remote, tmp_path / "web", max_age=0.0)
    slow = Store(remote, tmp_path / "slow", max_age=3600.0)
    assert web.files() == slow.files() == [".gitattributes", "MEMORY.md", "inbox.md"]
    store.write([writes.AddEntry("new.md", "pushed by the worker")], author=ALICE, message="m")
    assert "new.md" in web.files() and web.read("new.md") == "- pushed by the worker\n"
    assert "new.md" not in slow.files()  # inside max_age: no fetch yet
    slow.sync()
    assert "new.md" in slow.files()
