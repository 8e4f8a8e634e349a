"""The locks of one host and of every host: the per-workspace writer lock (Redis when
configured, a file lock otherwise), and the file lock itself (also the cache's fetch lock).

The writer lock serializes writers on one host (or all hosts sharing a Redis); writers elsewhere
are covered by the store's fetch-and-re-apply loop, so it is about throughput, not correctness.

`FileLock` is flock(2) on a file that stays in place: what hippo used of the filelock package,
whose version 4 costs every `hippo note` ~35 ms of CPU to import (it loads secrets, decimal and
inspect): `FileLock(path).acquire(timeout, poll_interval)` raising `Timeout`, and `release()`.
As filelock's with `thread_local=False`, the lock belongs to the object, not to a thread: taken
again while held, it counts, and it is let go when released as many times.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import logging
import os
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from memory.errors import LockTimeout
from memory.git.transport import is_local

log = logging.getLogger("hippo.memory")

_BUSY = (errno.EAGAIN, errno.EACCES)  # another process holds it (EACCES on some file systems)


class Timeout(TimeoutError):
    """The lock was still held elsewhere when the wait ran out."""


class FileLock:
    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None
        self._count = 0
        self._guard = threading.Lock()  # the count and the descriptor, between threads

    @property
    def is_locked(self) -> bool:
        return self._count > 0

    def acquire(self, timeout: float = -1, poll_interval: float = 0.05) -> None:
        """Take the lock, waiting up to `timeout` seconds (negative: for ever)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._guard:
                if self._count or self._take():
                    self._count += 1
                    return
            if timeout >= 0 and time.monotonic() >= deadline:
                raise Timeout(f"{self.path} is held by another process")
            time.sleep(poll_interval)

    def _take(self) -> bool:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except PermissionError:  # another user's lock file: flock needs no write access
            fd = os.open(self.path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in _BUSY:
                return False
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        with self._guard:
            if not self._count:
                return
            self._count -= 1
            if self._count == 0 and self._fd is not None:
                fd, self._fd = self._fd, None
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)


def host_lock_path(remote: str) -> Path:
    """The lock file every hippo process on this host writing to `remote` (a path, or a URL
    without user-info) shares, whatever its data dir (web and worker may keep separate caches)."""
    if is_local(remote):
        return Path(remote).resolve().parent / f".{Path(remote).name}.lock"
    # The same for a git server: processes on this host take turns instead of racing (each
    # lost race costs a push). Hosts without a shared Redis still race, safely.
    name = hashlib.sha256(remote.encode()).hexdigest()[:24]
    return Path(tempfile.gettempdir()) / f"hippo-locks-{os.getuid()}" / f"{name}.lock"


class WorkspaceLock(Protocol):
    """Also carries a hint: the tip the last holder pushed. A writer whose view matches it can
    push without fetching first (the push still checks); one that does not, fetches."""

    wait: float  # seconds a writer waits for the lock before LockTimeout

    def __enter__(self) -> object: ...

    def acquire(self, timeout: float) -> bool:
        """Take the lock within `timeout` seconds (True) or not (False); `release` frees it."""

    def release(self) -> None: ...

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
        self._lock: FileLock | None = None  # made when first taken (see acquire)
        self.wait = wait
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

    def acquire(self, timeout: float) -> bool:
        if self._lock is None:
            self._lock = FileLock(str(self._path))
        try:
            self._lock.acquire(timeout=timeout, poll_interval=0.002)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> object:
        if not self.acquire(self.wait):
            raise LockTimeout(
                f"another writer held the workspace lock for {self.wait:.0f}s; try again"
            )
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


class RedisWorkspaceLock:
    """redis-py's Lock (a token with a TTL, so a dead holder frees it after `ttl` seconds)."""

    def __init__(self, client: Any, name: str, ttl: float = 120.0, wait: float = 60.0) -> None:
        self._client = client
        self._name = name
        self._ttl = ttl
        self.wait = wait
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

    def acquire(self, timeout: float) -> bool:
        # thread_local=False: the writer passes a held lock from one of its threads to the next
        # (memory/git/writer.py), and redis-py keeps the token per thread by default, so the
        # next thread's release failed and the lock stayed taken until its TTL.
        lock = self._client.lock(
            self._name, timeout=self._ttl, blocking_timeout=timeout, thread_local=False
        )
        if not lock.acquire():
            return False
        self._held = lock
        return True

    def __enter__(self) -> object:
        if not self.acquire(self.wait):
            raise LockTimeout(f"another writer held {self._name} for {self.wait:.0f}s; try again")
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def release(self) -> None:
        lock, self._held = self._held, None
        if lock is not None:
            try:
                lock.release()
            except Exception as exc:  # expired under us (the TTL freed it), or Redis away
                log.warning("could not release %s: %s", self._name, exc)
