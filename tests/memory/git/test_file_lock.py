"""memory/git/locks.py (FileLock): one holder at a time across open files (as across processes), a wait
that ends, and the count filelock kept (held by the object, let go when released as often)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from memory.git.locks import FileLock, Timeout


def test_one_holder_at_a_time(tmp_path: Path) -> None:
    path = str(tmp_path / "w.lock")
    first, second = FileLock(path), FileLock(path)
    first.acquire(timeout=1)
    started = time.monotonic()
    with pytest.raises(Timeout):
        second.acquire(timeout=0.1, poll_interval=0.01)
    assert time.monotonic() - started >= 0.1
    threading.Timer(0.1, first.release).start()
    second.acquire(timeout=5, poll_interval=0.01)  # taken once the holder lets go
    assert second.is_locked and not first.is_locked
    second.release()


def test_taken_again_it_counts(tmp_path: Path) -> None:
    path = str(tmp_path / "w.lock")
    lock, other = FileLock(path), FileLock(path)
    lock.acquire(timeout=0)
    lock.acquire(timeout=0)
    lock.release()
    with pytest.raises(Timeout):
        other.acquire(timeout=0)
    lock.release()
    other.acquire(timeout=0)
    other.release()
    other.release()  # one release too many is nothing
    assert not other.is_locked
