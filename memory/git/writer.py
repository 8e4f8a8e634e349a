"""The write path: operations applied to the newest tip, one commit each, pushed in batches.

Operations are queued; one thread at a time (the leader) takes the workspace lock and lands
every queued write, with those other processes handed it (memory/git/handoff.py), as one batch
(memory/git/landing.py): each its own commit on the newest tip, the chain pushed once, fetched
and applied again if the remote moved. Each write's idempotency key lands as a
`Hippo-Key:` trailer (memory/git/batch.py).

The workspace lock (`WorkspaceLock`): Redis when configured, a file lock otherwise. It
serializes writers on one host (or all hosts sharing a Redis); writers elsewhere are covered by
the fetch-and-re-apply loop, so the lock is about throughput, not correctness.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import memory.trust.rules as trust
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.git.batch import (
    DREAMER,
    Author,
    KeyIndex,
    WriteRequest,
    WriteResult,
)
from memory.git.handoff import Handoff
from memory.git.landing import MAX_ATTEMPTS, Lander
from memory.git.locks import WorkspaceLock
from memory.git.mirror import Mirror
from memory.git.transport import Transport
from memory.writes.operations import Operation, check_write

log = logging.getLogger("hippo.memory")

MAX_BATCH = 256
HOLD_ROUNDS = 4  # batches a holder writes for others once its own writers are all done
HOLD_SECONDS = 20.0  # then it lets go and takes the lock again (a Redis lock's TTL is 120 s)
HANDOFF_POLL = 0.01  # seconds a waiting leader waits between looks for answers
LOCK_POLL = 0.05  # and between tries for the lock (a try cost ~0.3 ms of CPU under load)
# Between two batches the holder waits up to this share of the last batch's time (at most
# GATHER_MAX s) for as many writes as it answered: started at once, a batch held half of them
# (the writers split into two groups, each riding every other push).
GATHER, GATHER_MAX = 0.25, 0.1
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
        self,
        mirror: Mirror,
        transport: Transport,
        lock: WorkspaceLock,
        keys: KeyIndex,
        handoff: Handoff | None = None,
    ) -> None:
        self.mirror, self.transport, self.lock, self.keys = mirror, transport, lock, keys
        self.lander = Lander(mirror, transport, lock, keys, self._observe)
        self.handoff = handoff  # other processes' writers, when they share one
        self._offered: dict[str, WriteRequest] = {}  # by ticket; touched by the leader only
        self.observer: Observer | None = None
        self.context_trailers: ContextTrailers | None = None
        self._cond = threading.Condition()
        self._leading = False
        self._queue: list[WriteRequest] = []
        self._arrived = threading.Event()  # a request queued: a waiting leader offers it now
        self._holding = False  # the lock, kept while leading passes between our threads
        self._held_since, self._tried = 0.0, -1.0  # when taken; when last tried for
        self._last: tuple[int, float] = (0, 0.0)  # the last batch's size and seconds

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
        check_write(
            ops,
            message=message,
            key=key,
            trailers=extra,
            author_name=author.name,
            author_email=author.email,
            dreamer=author == DREAMER,
        )
        if author.agent is not None:
            for op in ops:
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
            self._arrived.set()
            while not request.done and self._leading:
                self._cond.wait()
            if request.done:
                return request.outcome()
            self._leading = True
        try:
            if self.handoff is None:
                self._lead_alone()
            else:
                self._lead_handing_off(request)
        finally:
            with self._cond:
                self._leading = False
                self._cond.notify_all()
        return request.outcome()

    def _take_queue(self, limit: int = MAX_BATCH) -> list[WriteRequest]:
        with self._cond:
            taken, self._queue = self._queue[:limit], self._queue[limit:]
        return taken

    def _lead_alone(self) -> None:
        with self.lock:
            # The batch is taken once the workspace lock is held: writers who arrived while
            # another process held it ride along in this push instead of waiting for the next.
            self.lander.run(self._take_queue())

    def _lead_handing_off(self, request: WriteRequest) -> None:
        """Lead this process's writers with a hand-off (memory/git/handoff.py): while another
        process holds the lock, offer them to it and collect their outcomes; on taking the
        lock, write what is left of them together with every process's offers. The leader
        leaves once its own write is done; the offers it leaves open (`_offered`) are the next
        leader's to collect, so a writer who queues meanwhile is offered at once instead of
        waiting for this leader to finish up (half-full batches, measured)."""
        assert self.handoff is not None
        offered = self._offered
        deadline = time.monotonic() + self.lock.wait
        while not request.done:
            self._arrived.clear()
            mine = self._take_queue()
            inherited = self._holding
            if self._try_lock():
                keep = False
                try:
                    keep = self._hold(request, mine, offered, inherited=inherited)
                finally:
                    if not keep:
                        self._holding = False
                        self.lock.release()
                deadline = time.monotonic() + self.lock.wait
            else:
                offered.update((self.handoff.offer(r), r) for r in mine)
            if self._collect(offered):
                deadline = time.monotonic() + self.lock.wait
            elif not request.done:
                self._arrived.wait(HANDOFF_POLL)  # a writer who queues meanwhile: offered now
            if not request.done and time.monotonic() > deadline:
                self._give_up(offered)
                return

    def _try_lock(self) -> bool:
        """Whether this process holds the lock now: kept from the last leader, or taken by a
        try that does not wait, one per LOCK_POLL (a blocking try polled every 2 ms: half the
        waiting processes' CPU)."""
        if self._holding:
            return True
        now = time.monotonic()
        if now - self._tried < LOCK_POLL:
            return False
        self._tried = now
        if not self.lock.acquire(0):
            return False
        self._holding, self._held_since = True, now
        return True

    def _hold(
        self,
        request: WriteRequest,
        mine: list[WriteRequest],
        offered: dict[str, WriteRequest],
        *,
        inherited: bool = False,
    ) -> bool:
        """With the lock held: our writers not yet claimed, plus every process's offers (and
        what a holder that died left claimed), in one batch; each offer's outcome recorded
        before its batch's holder goes on. Once this leader's own write is done, another
        thread of this process that waits leads on at once with the lock still held (True):
        the cache is at the tip it pushed, a holder in another process would fetch first. With
        none, it writes up to HOLD_ROUNDS batches while other processes offer, then lets go."""
        assert self.handoff is not None
        batch = list(mine)
        if inherited:  # passed on as soon as the last leader's write landed: gather here
            self._gather(len(batch))
            batch += self._take_queue()
        for ticket in [t for t in offered if self.handoff.withdraw(t)]:
            batch.append(offered.pop(ticket))
        rounds = 0
        while True:
            foreign = self._claim(MAX_BATCH - len(batch))
            if not batch and not foreign:
                return False
            self._round(batch, foreign)
            self._collect(offered)  # ours that a holder before us claimed and answered
            rounds += 1
            if request.done and (self.queued or offered):
                return not self._held_too_long()  # a writer of ours leads on
            self._gather()
            if request.done and (self.queued or offered):
                return not self._held_too_long()
            if rounds >= HOLD_ROUNDS and (request.done or rounds >= MAX_ATTEMPTS):
                return False
            batch = self._take_queue()  # this process's writers who came meanwhile

    def _round(self, batch: list[WriteRequest], foreign: list[tuple[str, WriteRequest]]) -> None:
        """Write one batch, answer each claimed offer, and wake this process's writers."""
        assert self.handoff is not None
        started = time.monotonic()
        self.lander.run([*batch, *(r for _, r in foreign)])
        self._last = (len(batch) + len(foreign), time.monotonic() - started)
        for ticket, r in foreign:
            self.handoff.answer(ticket, r.error or r.result or RemoteError("no outcome"))
        with self._cond:
            self._cond.notify_all()

    def _claim(self, limit: int) -> list[tuple[str, WriteRequest]]:
        """Other processes' offers; none when the hand-off's store fails (a Redis that went
        away): our writers taken for this round are written all the same, never dropped, and
        a leader whose write landed is not told it failed."""
        assert self.handoff is not None
        try:
            return self.handoff.claim(max(0, limit))
        except Exception as exc:
            log.warning("could not take other processes' writes (%s): writing ours alone", exc)
            return []

    def _gather(self, have: int = 0) -> None:
        """Wait (briefly: see GATHER) until as many writes wait as the last batch answered
        (`have` of them in hand). A batch of one write had nobody else to wait for: a lone
        `hippo note` is answered without delay."""
        assert self.handoff is not None
        size, seconds = self._last
        if size <= 1:
            return
        end = time.monotonic() + min(GATHER_MAX, GATHER * seconds)
        while time.monotonic() < end:
            try:
                if have + self.queued + self.handoff.waiting() >= size:
                    return
            except Exception as exc:  # a count to wait for, nothing more: write what is here
                log.warning("could not count the writes handed over: %s", exc)
                return
            time.sleep(0.002)

    def _held_too_long(self) -> bool:
        return time.monotonic() - self._held_since > HOLD_SECONDS

    def _collect(self, offered: dict[str, WriteRequest]) -> bool:
        """Finish our offers that were answered; True when any was."""
        assert self.handoff is not None
        answered = self.handoff.outcomes(list(offered))
        for ticket, outcome in answered.items():
            offered.pop(ticket).finish(outcome)
        if answered:
            with self._cond:
                self._cond.notify_all()
        return bool(answered)

    def _give_up(self, offered: dict[str, WriteRequest]) -> None:
        """No holder answered and the lock never came for `lock.wait` seconds."""
        assert self.handoff is not None
        for ticket, r in offered.items():
            gone = self.handoff.withdraw(ticket)
            r.finish(
                LockTimeout(
                    f"another writer held the workspace lock for {self.lock.wait:.0f}s; "
                    + ("try again" if gone else "the write may still land: try again with its key")
                )
            )
        offered.clear()
        with self._cond:
            self._cond.notify_all()
