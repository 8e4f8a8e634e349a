"""Prepared writes (memory/git/prepared.py): operations applied once, before the write, are
committed as applied while the tip is still the commit they were applied to, and applied anew
on any other tip, so a write that came in between is never undone."""

from __future__ import annotations

from pathlib import Path

import pytest

import memory.git.prepared as prepared
from memory.errors import EntryConflict, PathConflict
from memory.git import DREAMER, Author, Store
from memory.writes import AddEntry, RemoveEntry, WriteFile

ALICE = Author("alice", "alice@example.com")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(str(tmp_path / "remote.git"), tmp_path / "cache.git")
    s.init()
    s.write([WriteFile("a.md", "# A\n\n- one fact\n- two fact\n")], author=ALICE, message="a")
    return s


def _ready(store: Store, ops: list) -> prepared.Ready:  # type: ignore[type-arg]
    base = store.head()
    tree = {p: b.decode() for p, b in store.tree(base).items()}
    return prepared.prepare(ops, base, tree.get, author=DREAMER)


def test_a_prepared_write_on_its_base_commits_what_was_applied(store: Store) -> None:
    base = store.head()
    ready = _ready(store, [RemoveEntry("a.md", "one fact")])
    assert ready.applied.changes == {"a.md": "# A\n\n- two fact\n"}
    written = prepared.write(store, ready, message="dream(tidy): x", key="k1")
    assert written.created and prepared.landed_on(store, written.commit) == base
    assert store.read("a.md") == "# A\n\n- two fact\n"
    again = prepared.write(store, ready, message="dream(tidy): x", key="k1")
    assert not again.created and again.commit == written.commit  # the key: written once


def test_a_prepared_write_after_another_write_is_applied_anew(store: Store) -> None:
    base = store.head()
    ready = _ready(store, [RemoveEntry("a.md", "one fact")])
    store.write([AddEntry("a.md", "three fact")], author=ALICE, message="meanwhile")
    written = prepared.write(store, ready, message="dream(tidy): x", key="k2")
    assert prepared.landed_on(store, written.commit) != base
    assert store.read("a.md") == "# A\n\n- two fact\n- three fact\n"  # nothing undone


def test_a_prepared_write_whose_entry_went_meanwhile_is_refused(store: Store) -> None:
    ready = _ready(store, [RemoveEntry("a.md", "one fact")])
    store.write([RemoveEntry("a.md", "one fact")], author=ALICE, message="meanwhile")
    with pytest.raises(EntryConflict):
        prepared.write(store, ready, message="dream(tidy): x", key="k3")


def test_prepare_runs_the_write_paths_checks(store: Store) -> None:
    store.write([WriteFile("d/x.md", "# X\n")], author=ALICE, message="d")
    base = store.head()
    tree = {p: b.decode() for p, b in store.tree(base).items()}
    with pytest.raises(PathConflict):  # a file where a folder is, as the store refuses it
        prepared.prepare(
            [WriteFile("d", "# D\n")],
            base,
            tree.get,
            author=DREAMER,
            folder=lambda p: any(k.startswith(p + "/") for k in tree),
        )
