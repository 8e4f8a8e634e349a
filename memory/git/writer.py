"""The write path: operations applied to the newest tip, one commit each, pushed in batches.

Operations are queued; one thread at a time (the leader) takes the workspace lock, fetches the
newest tip, applies every queued write as its own commit (memory/git/batch.py), and pushes the
chain once through the transport. If the push is rejected because the remote moved, it fetches
and re-applies the operations on the new tip. Each write's idempotency key lands as a
`Hippo-Key:` trailer (memory/git/batch.py).

The workspace lock (`WorkspaceLock`): Redis when configured, a file lock otherwise. It
serializes writers on one host (or all hosts sharing a Redis); writers elsewhere are covered by
the fetch-and-re-apply loop, so the lock is about throughput, not correctness.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

import pygit2
from filelock import FileLock
from filelock import Timeout as FileLockTimeout

import memory.trust.rules as trust
import memory.writes.validate as validate
from memory.errors import LockTimeout, MemoryStoreError, RemoteError, RemoteUnreachable
from memory.git.batch import (
    DREAMER,
    Author,
    BatchOutcome,
    KeyIndex,
    WriteRequest,
    WriteResult,
    apply_batch,
)
from memory.git.credentials import RemoteAuth, split_url
from memory.git.mirror import Mirror
from memory.git.transport import Transport, is_local
from memory.writes.operations import Operation, check_op

MAX_ATTEMPTS = 25
MAX_BATCH = 256
# The trailers of the request or task a write is made for (its request id), asked for at each
# write: jobs/ owns the request context and hands the Store this reader (memory imports nothing
# of ours). Values come from hippo's own code, never from the user.
ContextTrailers = Callable[[], Mapping[str, str]]
# An observer (event, seconds) for metrics, set by jobs/: "write" or "refused:<Error>" after
# each write with its latency, "push_retry" when a push lost a race. memory stays metrics-free.
Observer = Callable[[str, float], None]


class Writer:
    """The Store's write half: a group-commit queue in front of one mirror and transport."""

    def __init__(
        self, mirror: Mirror, transport: Transport, lock: WorkspaceLock, keys: KeyIndex
    ) -> None:
        self.mirror, self.transport, self.lock, self.keys = mirror, transport, lock, keys
        self.observer: Observer | None = None
        self.context_trailers: ContextTrailers | None = None
        self._cond = threading.Condition()
        self._leading = False
        self._queue: list[WriteRequest] = []

    @property
    def leading(self) -> bool:
        """Whether a thread is writing a batch now."""
        return self._leading

    @property
    def queued(self) -> int:
        """Requests waiting for the next batch."""
        return len(self._queue)

    def write(
        self,
        ops: Sequence[Operation],
        *,
        author: Author,
        message: str,
        key: str | None = None,
        source: str | None = None,
        force: bool = False,
        trailers: Mapping[str, str] | None = None,
    ) -> WriteResult:
        """Apply `ops` to the newest tip as one commit and push it. Raises a MemoryStoreError."""
        extra = dict(trailers or {})
        if source:
            extra.setdefault("Hippo-Source", " ".join(source.split()))
        # Checked before the request joins a group commit: its bad text is its own error.
        message = message.strip()
        validate.commit(
            message=message,
            key=key,
            trailers=extra,
            author_name=author.name,
            author_email=author.email,
        )
        for op in ops:
            check_op(op, dreamer=author == DREAMER)
            if author.agent is not None:
                trust.check_paths(op)  # before the batch: an agent's write there is its own error
        return self.submit(WriteRequest(list(ops), author, message, key, extra, force))

    def submit(self, request: WriteRequest) -> WriteResult:
        """Queue `request` (already checked) and wait for its commit."""
        if self.context_trailers is not None:
            request.trailers = {**self.context_trailers(), **request.trailers}
        started = time.monotonic()
        try:
            result = self._submit_queued(request)
        except MemoryStoreError as exc:
            self._observe(f"refused:{type(exc).__name__}", time.monotonic() - started)
            raise
        self._observe("write", time.monotonic() - started)
        return result

    def _observe(self, event: str, seconds: float) -> None:
        if self.observer is not None:
            with contextlib.suppress(Exception):  # metrics never fail a write
                self.observer(event, seconds)

    def _submit_queued(self, request: WriteRequest) -> WriteResult:
        # Group commit: one thread at a time leads and writes every queued request, so threads
        # share one fetch and one push while each write keeps its own commit. Finished writers
        # return without queueing for the leader role, so the next batch collects everyone
        # who arrived while the previous one was being pushed.
        with self._cond:
            self._queue.append(request)
            while not request.done and self._leading:
                self._cond.wait()
            if request.done:
                return request.outcome()
            self._leading = True
        try:
            with self.lock:
                # The batch is taken once the workspace lock is held: writers who arrived while
                # another process held it ride along in this push instead of waiting for the next.
                with self._cond:
                    batch = [request, *(p for p in self._queue if p is not request)][:MAX_BATCH]
                    taken = {id(p) for p in batch}
                    self._queue = [p for p in self._queue if id(p) not in taken]
                self._run(batch)
        finally:
            with self._cond:
                self._leading = False
                self._cond.notify_all()
        return request.outcome()

    def _run(self, batch: list[WriteRequest]) -> None:
        try:
            error = self._attempts(batch)
            if error is not None:
                _finish(batch, {id(p): error for p in batch})
        except BaseException as exc:
            wrapped = exc if isinstance(exc, MemoryStoreError) else RemoteError(str(exc))
            _finish(batch, {id(p): wrapped for p in batch if not p.done})
            if not isinstance(exc, Exception):
                raise

    def _attempts(self, batch: list[WriteRequest]) -> RemoteError | None:
        """Try until the batch lands (None) or the remote kept moving (the error to report)."""
        last_error: RemoteError | None = None
        for attempt in range(MAX_ATTEMPTS):
            # Over the network the first try builds on the tip we know, without a fetch: the
            # push itself checks that the remote still holds it. A rejected try fetches.
            optimistic = attempt == 0 and self.lock.tip_hint() in (None, self.mirror.tracked())
            if attempt > 1:
                # Another host pushed first: back off with jitter so neither side starves.
                time.sleep(random.uniform(0, min(0.5, 0.01 * 2**attempt)))
            try:
                tip = self.mirror.branch_tip(optimistic=optimistic)
            except RemoteUnreachable:
                raise  # the caller says so at once; queued tasks retry with backoff
            except RemoteError as exc:
                if self.transport.gone():
                    raise  # moved or deleted: no point in trying again
                # A fetch that lost a ref lock to another process sharing the cache, or a
                # remote that blinked: try again, and give up with the last error.
                last_error = exc
                continue
            if self._land(tip, batch, optimistic=optimistic):
                return None
        return last_error or RemoteError(
            f"{self.transport.remote} kept moving; gave up after {MAX_ATTEMPTS} tries"
        )

    def _land(self, tip: str | None, batch: list[WriteRequest], *, optimistic: bool) -> bool:
        """Apply the batch on `tip` and push it; False when it must be tried again."""
        if tip is not None:
            self.keys.learn(self.mirror.repo, tip)
        outcome: BatchOutcome = apply_batch(self.mirror.repo, tip, self.keys.copy(), batch)
        if outcome.head == tip and optimistic and self.transport.optimistic:
            return False  # "nothing to change" is only true of the newest tip: fetch it
        if outcome.head == tip or self._push(outcome.head, tip):
            _finish(batch, outcome.results)
            return True
        self._observe("push_retry", 0.0)
        return False

    def _push(self, head: str | None, parent: str | None) -> bool:
        """Push `head` (built on `parent`) to the remote branch; False when the remote moved."""
        assert head is not None
        oid = pygit2.Oid(hex=head)
        if not self.transport.push_branch(self.mirror.repo, oid, parent, refetch=self.mirror.sync):
            return False
        self.mirror.pushed(oid)
        self.lock.set_tip_hint(head)
        return True


def _finish(batch: list[WriteRequest], results: Mapping[int, object]) -> None:
    for request in batch:
        outcome = results.get(id(request))
        request.finish(outcome if isinstance(outcome, WriteResult | MemoryStoreError) else None)


# -- the workspace lock ----------------------------------------------------------------------------


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
        self._lock = FileLock(str(path), thread_local=False)
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
        try:
            self._lock.acquire(timeout=self._wait, poll_interval=0.002)
        except FileLockTimeout as exc:
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


def workspace_lock(remote: str, workspace: str, redis: Any, auth: RemoteAuth) -> WorkspaceLock:
    """The lock a workspace's writers take: Redis when there is one, else a file on this host."""
    if redis is not None:
        return RedisWorkspaceLock(redis, f"hippo:lock:{workspace}")
    if is_local(remote):
        # Every hippo process on this host writing to this remote shares one lock file,
        # whatever its data dir (the web and the worker may keep separate caches).
        return FileWorkspaceLock(Path(remote).resolve().parent / f".{Path(remote).name}.lock")
    # The same for a git server: processes on this host take turns instead of racing
    # (each lost race costs a push). Hosts without a shared Redis still race, safely.
    url = split_url(remote, auth)[0]
    name = hashlib.sha256(url.encode()).hexdigest()[:24]
    folder = Path(tempfile.gettempdir()) / f"hippo-locks-{os.getuid()}"
    return FileWorkspaceLock(folder / f"{name}.lock")
