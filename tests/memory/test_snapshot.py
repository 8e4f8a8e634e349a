"""Prompt snapshots: MEMORY.md and the newest three daily notes at published refs."""

from __future__ import annotations

from pathlib import Path

from memory.git import Author, Store
from memory.prompts import snapshot
from memory.writes import AddEntry, WriteFile

ALICE = Author("alice", "alice@example.com")


def _daily(store: Store, *days: str) -> str:
    ops = [WriteFile(f"daily/{d}.md", f"# {d}\n\n- happened on {d}\n") for d in days]
    return store.write(ops, author=ALICE, message="daily notes").commit


def test_render_is_byte_identical_for_the_same_tree() -> None:
    """Rendering the same tree, version and commit twice gives the same bytes."""
    tree = {"MEMORY.md": b"# Memory\n- a fact\n", "daily/2026-11-01.md": b"# d\n"}
    first = snapshot.render(dict(tree), 1, "abc")
    second = snapshot.render(dict(reversed(list(tree.items()))), 1, "abc")
    assert first == second
    assert first[0].encode() == second[0].encode()


def test_snapshot_holds_memory_md_and_the_newest_three_daily_notes() -> None:
    """Only MEMORY.md and the newest three daily/*.md are in the snapshot, newest first."""
    tree = {f"daily/2026-11-0{d}.md": f"day {d}\n".encode() for d in range(1, 6)}
    tree |= {"MEMORY.md": b"# Memory\n", "services/x.md": b"# x\n", "daily/old/a.md": b"x"}
    text, paths = snapshot.render(tree, 2, "c0ffee")
    assert paths == [
        "MEMORY.md",
        "daily/2026-11-05.md",
        "daily/2026-11-04.md",
        "daily/2026-11-03.md",
    ]
    assert "day 2" not in text and "services/x.md" not in text
    assert text.startswith('<memory-snapshot version="2" commit="c0ffee">')
    assert "not verified fact" in text and "never instructions" in text


def test_publish_numbers_versions_and_refs_live_on_the_remote(store: Store, tmp_path: Path) -> None:
    """Each publish makes refs/hippo/snapshots/<n+1>; another clone sees them after sync."""
    first = snapshot.publish(store)
    _daily(store, "2026-11-28")
    second = snapshot.publish(store)
    assert (first.version, second.version) == (1, 2)
    assert "2026-11-28" in second.text and "2026-11-28" not in first.text
    other = Store.open(store.remote, tmp_path / "other")
    other.sync()
    assert snapshot.versions(other) == {1: first.commit, 2: second.commit}
    assert snapshot.latest(other) == second


def test_publish_twice_without_change_keeps_one_version(store: Store) -> None:
    """Publishing again when the snapshot files did not change returns the same version."""
    first = snapshot.publish(store)
    store.write([WriteFile("services/a.md", "# a\n")], author=ALICE, message="topic")
    assert snapshot.publish(store) == first
    assert list(snapshot.versions(store)) == [1]


def test_load_renders_the_published_commit_not_the_tip(store: Store) -> None:
    """A loaded version shows the files at its commit even after MEMORY.md changed."""
    v1 = snapshot.publish(store)
    store.write([AddEntry("MEMORY.md", "newer fact")], author=ALICE, message="edit")
    again = snapshot.load(store, 1)
    assert again == v1
    assert "newer fact" not in again.text
    assert snapshot.load(store, 7) is None


def test_current_publishes_version_one_when_nothing_was_published(store: Store) -> None:
    """The first thread of a fresh memory gets version 1 of the tip."""
    assert snapshot.latest(store) is None
    snap = snapshot.current(store)
    assert snap is not None and snap.version == 1 and snap.commit == store.head()


def test_an_edit_of_memory_md_publishes_and_other_writes_do_not(store: Store) -> None:
    """publish_if_index_changed publishes for MEMORY.md edits only (and not for no-op writes)."""
    snapshot.publish(store)
    topic = store.write([AddEntry("services/a.md", "a fact")], author=ALICE, message="t")
    assert snapshot.publish_if_index_changed(store, topic) is None
    edit = store.write([AddEntry("MEMORY.md", "index fact")], author=ALICE, message="i", key="k1")
    published = snapshot.publish_if_index_changed(store, edit)
    assert published is not None and published.version == 2 and "index fact" in published.text
    again = store.write([AddEntry("MEMORY.md", "index fact")], author=ALICE, message="i", key="k1")
    assert snapshot.publish_if_index_changed(store, again) is None


def test_a_person_editing_memory_md_over_mcp_publishes_a_snapshot(store: Store) -> None:
    """The MCP write tool on MEMORY.md makes the next new thread see the edit."""
    from bot.mcp.tools import MemoryTools

    snapshot.publish(store)
    tools = MemoryTools(store)
    tools.write("alice", "services/a.md", "topic", entries=["a topic fact"])
    assert list(snapshot.versions(store)) == [1]
    tools.write("alice", "MEMORY.md", "index", entries=["an index fact"])
    newest = snapshot.latest(store)
    assert newest is not None and newest.version == 2 and "an index fact" in newest.text


def test_a_failed_publish_does_not_fail_the_persons_write(store: Store, tmp_path: Path) -> None:
    """When the remote refuses the ref, the edit stands and no snapshot is claimed."""
    edit = store.write([AddEntry("MEMORY.md", "x fact")], author=ALICE, message="i")
    Path(store.remote).rename(tmp_path / "moved.git")
    assert snapshot.publish_if_index_changed(store, edit) is None
    assert store.read("MEMORY.md").endswith("- x fact\n")


def test_two_publishers_take_different_numbers(tmp_path: Path) -> None:
    """A publisher whose version number was taken meanwhile publishes the next one."""
    remote = str(tmp_path / "race.git")
    a = Store.open(remote, tmp_path / "a")
    a.init()
    b = Store.open(remote, tmp_path / "b")
    b.write([AddEntry("MEMORY.md", "b's index entry")], author=Author("x", "x@x"), message="m")
    assert b.refs("snapshots/") == {}  # b's view of the refs is now stale
    first = snapshot.publish(a)
    second = snapshot.publish(b)
    assert (first.version, second.version) == (1, 2)
    a.sync()
    assert set(a.refs("snapshots/")) == {"snapshots/1", "snapshots/2"}


def _plain_push(remote: Path, path: str, text: str) -> str:
    """A person's commit straight into the bare remote, as `git push` leaves it (committed as
    the person, not through hippo's write path); its sha."""
    import pygit2

    repo = pygit2.Repository(str(remote))
    head = repo.head.peel(pygit2.Commit)
    index = pygit2.Index()
    index.read_tree(head.tree)
    index.add(pygit2.IndexEntry(path, repo.create_blob(text.encode()), pygit2.GIT_FILEMODE_BLOB))
    pat = pygit2.Signature("Pat", "pat@example.com")
    tree = index.write_tree(repo)
    return str(repo.create_commit("refs/heads/main", pat, pat, "by hand", tree, [head.id]))


def test_a_plain_push_to_memory_md_publishes_and_hippos_own_writes_do_not(
    store: Store, tmp_path: Path
) -> None:
    """publish_if_pushed: a commit hippo did not write that changed MEMORY.md publishes the tip;
    hippo's own (the dream's index, which publishes at the end of its night) and a plain push
    of a topic file do not; a second look publishes nothing twice."""
    from memory.git import DREAMER

    remote = tmp_path / "remote.git"
    first = snapshot.current(store)
    assert first is not None and first.version == 1
    store.write([WriteFile("MEMORY.md", "# Memory\n\n- the dream's index\n")],
                author=DREAMER, message="index")  # fmt: skip
    assert snapshot.publish_if_pushed(store) is None
    _plain_push(remote, "services/x.md", "# X\n\n- by hand\n")
    store.sync()
    assert snapshot.publish_if_pushed(store) is None and snapshot.current(store) == first
    sha = _plain_push(remote, "MEMORY.md", "# Memory\n\n- deploys moved to 11:00\n")
    store.sync()
    pushed = snapshot.publish_if_pushed(store)
    assert pushed is not None and (pushed.version, pushed.commit) == (2, sha)
    assert "deploys moved to 11:00" in pushed.text
    assert snapshot.publish_if_pushed(store) is None and snapshot.current(store) == pushed
    _plain_push(remote, "daily/2026-12-01.md", "# 2026-12-01\n\n- a day by hand\n")
    store.sync()
    again = snapshot.current(store)  # a new thread's first turn looks, and publishes
    assert again is not None and again.version == 3 and "a day by hand" in again.text
