"""A lock file shared by the processes of one host: flock(2) on a file that stays in place.

What hippo used of the filelock package, whose version 4 costs every `hippo note` ~35 ms of CPU
to import (it loads secrets, decimal and inspect): `FileLock(path).acquire(timeout,
poll_interval)` raising `Timeout`, and `release()`. As filelock's with `thread_local=False`, the
lock belongs to the object, not to a thread: taken again while held, it counts, and it is let go
when released as many times.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time

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
