"""The per-workspace writer lock: Redis when configured, a file lock otherwise.

It serializes writers on one host (or all hosts sharing a Redis); writers elsewhere are covered by
the store's fetch-and-re-apply loop, so the lock is about throughput, not correctness.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from memory.errors import LockTimeout


class WorkspaceLock(Protocol):
    """Also carries a hint: the tip the last holder pushed. A writer whose view matches it can
    push without fetching first (the push still checks); one that does not, fetches."""

    def __enter__(self) -> object: ...

    def tip_hint(self) -> str | None: ...

    def set_tip_hint(self, tip: str) -> None: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class FileWorkspaceLock:
    """An flock on a file beside the cache; released by the OS if the process dies."""

    def __init__(self, path: Path, wait: float = 60.0) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._lock: Any = None  # filelock.FileLock, made when first taken (see __enter__)
        self._wait = wait
        self._hint = path.with_name(path.name + ".tip")

    def tip_hint(self) -> str | None:
        try:
            return self._hint.read_text().strip() or None
        except OSError:
            return None

    def set_tip_hint(self, tip: str) -> None:
        tmp = self._hint.with_name(f"{self._hint.name}.{os.getpid()}")
        with contextlib.suppress(OSError):
            tmp.write_text(tip)
            os.replace(tmp, self._hint)

    def __enter__(self) -> object:
        # filelock is imported by the first writer, not by opening a store: a search or a read
        # never takes this lock, and importing filelock costs a CLI command ~10 ms.
        from filelock import FileLock, Timeout

        if self._lock is None:
            self._lock = FileLock(str(self._path), thread_local=False)
        try:
            self._lock.acquire(timeout=self._wait, poll_interval=0.002)
        except Timeout as exc:
            raise LockTimeout(
                f"another writer held the workspace lock for {self._wait:.0f}s; try again"
            ) from exc
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()


class RedisWorkspaceLock:
    """redis-py's Lock (a token with a TTL, so a dead holder frees it after `ttl` seconds)."""

    def __init__(self, client: Any, name: str, ttl: float = 120.0, wait: float = 60.0) -> None:
        self._client = client
        self._name = name
        self._ttl = ttl
        self._wait = wait
        self._held: Any = None

    def tip_hint(self) -> str | None:
        try:
            raw = self._client.get(f"{self._name}:tip")
        except Exception:  # a hint only: without it the writer fetches first
            return None
        return raw.decode() if isinstance(raw, bytes) else raw

    def set_tip_hint(self, tip: str) -> None:
        with contextlib.suppress(Exception):
            self._client.set(f"{self._name}:tip", tip, ex=24 * 3600)

    def __enter__(self) -> object:
        lock = self._client.lock(self._name, timeout=self._ttl, blocking_timeout=self._wait)
        if not lock.acquire():
            raise LockTimeout(f"another writer held {self._name} for {self._wait:.0f}s; try again")
        self._held = lock
        return self

    def __exit__(self, *exc: object) -> None:
        lock, self._held = self._held, None
        if lock is not None:
            # If it expired under us, the TTL already freed it: nothing to release.
            with contextlib.suppress(Exception):
                lock.release()
