"""The Store's bare cache of the remote: opened (or rebuilt) safely, fetched at most every
`max_age` seconds, and the remote branch's tip as last fetched or pushed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pygit2

from memory.errors import RemoteError
from memory.git.fetch import fetch
from memory.git.locks import FileLock, Timeout
from memory.git.transport import BRANCH, HEAD_REF, TRACK_REF, Transport

BEHIND_AT_MOST = 30.0  # seconds: fresh(wait=False) uses a tip fetched at most this long ago


class Mirror:
    """A bare repository at `path` whose `origin` is the transport's remote."""

    def __init__(self, path: Path, transport: Transport, *, max_age: float) -> None:
        self.path = path
        self.transport = transport
        self.max_age = max_age
        self.fetch_lock = threading.Lock()  # threads of one process fetch one at a time
        self.synced_at = -1e9  # monotonic time of the last fetch (or push)
        self._misses: dict[str, float] = {}  # unknown name → when it last caused a fetch
        self._misses_lock = threading.Lock()
        self._behind: threading.Thread | None = None  # fresh(wait=False)'s fetch, if running
        self._open_lock = threading.Lock()
        self._repo: pygit2.Repository | None = None

    @property
    def repo(self) -> pygit2.Repository:
        if self._repo is None:
            with self._open_lock:
                if self._repo is None:
                    self._repo = self._open()
        return self._repo

    def close(self) -> None:
        """Reopen on next use: packs replaced loose objects the open handle may have cached."""
        self._repo = None
        self.transport.close()

    def _open(self) -> pygit2.Repository:
        """Open the bare cache, creating it safely: several processes sharing a data folder
        may start at once, so it is built aside and renamed into place (the rename is atomic;
        the loser uses the winner's). A cache a killed process left broken is rebuilt: it holds
        nothing the remote does not."""
        if not (self.path / "HEAD").exists():
            self._build()
        remote = self.transport.remote
        try:
            repo = pygit2.Repository(str(self.path))
            origin = next((r for r in repo.remotes if r.name == "origin"), None)
            if origin is None:
                with contextlib.suppress(ValueError, pygit2.AlreadyExistsError):
                    repo.remotes.create("origin", remote)
            elif origin.url != remote:  # the remote changed, or an old cache kept a token
                repo.remotes.set_url("origin", remote)
            return repo
        except (pygit2.GitError, OSError):
            broken = self.path.with_name(f".{self.path.name}.broken-{uuid.uuid4().hex[:8]}")
            with contextlib.suppress(OSError):
                os.rename(self.path, broken)
                shutil.rmtree(broken, ignore_errors=True)
            self._build()
            return pygit2.Repository(str(self.path))

    def _build(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        aside = self.path.with_name(f".{self.path.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}")
        repo = pygit2.init_repository(str(aside), bare=True, initial_head=BRANCH)
        repo.remotes.create("origin", self.transport.remote)
        repo.config["gc.auto"] = 0  # no background gc racing our writes
        del repo
        try:
            os.rename(aside, self.path)
        except OSError:  # another process's cache is in place (or an old empty folder)
            if not (self.path / "HEAD").exists():
                shutil.rmtree(self.path, ignore_errors=True)
                with contextlib.suppress(OSError):
                    os.rename(aside, self.path)
            shutil.rmtree(aside, ignore_errors=True)

    def sync(self, *, max_age: float | None = None, until: str | None = None) -> str | None:
        """Fetch the remote's branch and hippo refs; return the newest tip (None when empty).
        With `max_age`, only when no fetch (or push) of ours is younger than that; with
        `until`, only when the fetch this one waited behind did not bring that tip."""
        down = self.transport.recent_failure()
        if down is not None:
            raise down  # it just failed: do not wait for the same timeout twice in a row
        repo = self.repo
        started = time.monotonic()
        with self.fetch_lock:
            # Threads that queued here behind a fetch use its result instead of fetching
            # again one after another.
            if max_age is not None and started - self.synced_at < max_age:
                return self.tracked()
            if until is not None and self.tracked() == until:
                return until
            with self._processes_in_turn():
                self._fetch(repo)
        self.synced_at = time.monotonic()
        return self.tracked()

    def _fetch(self, repo: pygit2.Repository) -> None:
        """Fetch, waiting out a ref lock another writer of this cache holds for milliseconds (a
        push recording the tip it left): CI saw a read fail on "failed to lock file
        .../refs/remotes/origin/main.lock" while a push of the same process updated that ref."""
        for attempt in range(4):
            try:
                fetch(repo, self.transport)
                return
            except RemoteError as exc:
                if "failed to lock" not in str(exc) or attempt == 3:
                    raise
                time.sleep(0.05 * (attempt + 1))

    @contextlib.contextmanager
    def _processes_in_turn(self) -> Iterator[None]:
        """Processes sharing this cache fetch one at a time: two libgit2 fetches updating the
        same refs at once fail with "failed to lock file" (six `hippo search` started together
        saw it). A fetch stuck elsewhere for 2 minutes does not hold ours back for longer, nor
        does a file system without flock."""
        lock = FileLock(f"{self.path}.fetch.lock")
        try:
            lock.acquire(timeout=120, poll_interval=0.01)
        except (Timeout, OSError):
            yield
            return
        try:
            yield
        finally:
            lock.release()

    def fresh(self, *, wait: bool = True) -> None:
        """Fetch when the last fetch is older than `max_age` seconds, so a long-lived process
        (web, worker) reads what other processes and people pushed. An unreachable remote
        leaves the last known tip: reading stale memory beats failing to read. While another
        thread of this process fetches, the tip we know is used rather than waited behind that
        fetch: a fetch over HTTP took 0.6 s on a loaded host, and every writer thread of a
        process (each note reads the tree to choose its topic) stood still for it.

        `wait=False`: the fetch runs on a thread of its own and the caller goes on with the
        tip it knows (about `max_age` plus one fetch old while writes keep coming). For the
        note path, whose topic choice reads only which files exist and whose write is applied
        on the true tip by the writer anyway: with 300 ms per request a process whose writes
        are handed off stood ~1.1 s in this fetch every 2 s. A tip older than `BEHIND_AT_MOST`
        (a process that never fetched: a CLI run; one idle for a while) is fetched first."""
        age = time.monotonic() - self.synced_at
        if age < self.max_age or self.fetch_lock.locked():
            return
        if wait or age > BEHIND_AT_MOST:
            with contextlib.suppress(RemoteError):
                self.sync(max_age=self.max_age)
            return
        with self._misses_lock:  # one fetch behind at a time
            if self._behind is not None and self._behind.is_alive():
                return
            # Not a daemon: a process exiting waits for the fetch rather than cutting libgit2
            # off while it holds a ref's lock file in the cache.
            self._behind = threading.Thread(target=self.fresh, name="hippo-fresh")
            self._behind.start()

    def refresh_for(self, name: str) -> bool:
        """Fetch because a read named something hippo does not know (a commit, a file at the
        tip, a ref): another process or a person may just have pushed it, and `fresh` alone
        would answer "not found" for up to `max_age` seconds (a commit, until any page
        fetched). True when a fetch ran, so the caller looks again. The same unknown name
        causes at most one fetch per `max_age` (a bad link reloaded is not load on the remote);
        an unreachable remote leaves the answer "not found"."""
        now = time.monotonic()
        with self._misses_lock:
            last = self._misses.get(name)
            if last is not None and now - last < self.max_age:
                return False
            if len(self._misses) > 1024:  # forget old misses; this is not a cache of names
                self._misses = {k: t for k, t in self._misses.items() if now - t < self.max_age}
            self._misses[name] = now
        try:
            # max_age=0: a fetch that finished while this one queued for the lock is used.
            self.sync(max_age=0)
        except RemoteError:
            return False
        return True

    def branch_tip(self, *, optimistic: bool = False, hint: str | None = None) -> str | None:
        """The remote branch's tip for the write path: the tip we know when the transport says
        it may be built on (see Transport.still_at), else a fetch (none when a read's fetch
        this waited behind brought `hint`, the tip the lock's last holder pushed)."""
        known = self.tracked()
        if known is not None and self.transport.still_at(known, optimistic=optimistic):
            return known
        return self.sync(until=hint)

    def tracked(self) -> str | None:
        """The remote branch's tip as last fetched or pushed (no network)."""
        ref = self.repo.references.get(TRACK_REF)
        return str(ref.target) if ref is not None else None

    def pushed(self, head: pygit2.Oid) -> None:
        """The remote's branch is now `head`, which we just pushed."""
        self.repo.references.create(HEAD_REF, head, force=True)
        self.repo.references.create(TRACK_REF, head, force=True)
        self.synced_at = time.monotonic()
