"""Landing one batch of writes on the remote branch: the newest tip (the one known, over the
network, when the push itself can check it), every request applied as its own commit
(memory/git/batch.py), one push; a push the remote rejected because it moved fetches and applies
again, with jittered backoff, up to MAX_ATTEMPTS. Each request learns its own outcome. The
group commit in front of it (memory/git/writer.py) decides which requests form a batch.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

import pygit2

from memory.errors import MemoryStoreError, RemoteError, RemoteUnreachable
from memory.git.batch import BatchOutcome, KeyIndex, WriteRequest, WriteResult, apply_batch
from memory.git.locks import WorkspaceLock
from memory.git.mirror import Mirror
from memory.git.transport import Transport

MAX_ATTEMPTS = 25


class Lander:
    """Lands batches through one mirror and transport; `observe` hears each lost push race."""

    def __init__(
        self,
        mirror: Mirror,
        transport: Transport,
        lock: WorkspaceLock,
        keys: KeyIndex,
        observe: Callable[[str, float], None],
    ) -> None:
        self.mirror, self.transport, self.lock, self.keys = mirror, transport, lock, keys
        self._observe = observe

    def run(self, batch: list[WriteRequest]) -> None:
        """Land `batch`; every request finishes with its result or its error."""
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
            hint = self.lock.tip_hint() if attempt == 0 else None
            optimistic = attempt == 0 and hint in (None, self.mirror.tracked())
            if attempt > 1:
                # Another host pushed first: back off with jitter so neither side starves.
                time.sleep(random.uniform(0, min(0.5, 0.01 * 2**attempt)))
            try:
                tip = self.mirror.branch_tip(optimistic=optimistic, hint=hint)
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
