"""A fetch into the cache waits out a ref lock held for a moment, and names one held for good."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memory.errors import RemoteError
from memory.git import Author, Store
from memory.writes import WriteFile


def _store_with_a_new_commit(tmp_path: Path) -> tuple[Store, Path]:
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    other = Store.open(str(tmp_path / "remote.git"), tmp_path / "other")
    other.write([WriteFile("a.md", "- a\n")], author=Author("a", "a@example.com"), message="a")
    lock = tmp_path / "data/workspaces/default/cache.git/refs/remotes/origin/main.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    return store, lock


def test_a_ref_lock_held_for_a_moment_is_waited_out(tmp_path: Path) -> None:
    store, lock = _store_with_a_new_commit(tmp_path)
    lock.write_text("")  # as a push of this cache holds it while it records the tip
    threading.Timer(0.08, lock.unlink).start()
    assert store.mirror.sync() is not None
    assert store.read("a.md") == "- a\n"


def test_a_ref_lock_never_released_is_a_named_error(tmp_path: Path) -> None:
    store, lock = _store_with_a_new_commit(tmp_path)
    lock.write_text("")
    with pytest.raises(RemoteError, match="failed to lock"):
        store.mirror.sync()
