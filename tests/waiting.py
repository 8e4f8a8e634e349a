"""Waiting in tests: poll a condition until it holds, never sleep a guessed time and hope.

The one polling helper of the suite (it had four copies). A timeout is a failure that says what
was awaited and, when given, the tail of the logs of the processes that should have made it so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def until(
    cond: Callable[[], T],
    timeout: float = 30.0,
    what: str = "the condition",
    logs: Iterable[Path] = (),
    *,
    tolerate: tuple[type[BaseException], ...] = (),
    interval: float = 0.02,
) -> T:
    """`cond()`'s first truthy value within `timeout` seconds. An exception in `tolerate` (say
    OSError while a server is not listening yet) counts as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found: Any = cond()
        except tolerate:
            found = None
        if found:
            return found  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            break
        time.sleep(interval)
    said = "".join(
        f"\n--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in logs if p.exists()
    )
    raise AssertionError(f"{what} not seen in {timeout:.0f}s{said}")


class TaskLedger:
    """Celery tasks published and finished in this process (a worker from `start_worker` runs
    here too), counted from Celery's own signals. `settled()` is true once every task sent since
    the ledger opened, and every task those sent, has run: the event a test waits on before it
    asserts that a redelivery or a second click changed nothing, instead of sleeping."""

    def __init__(self) -> None:
        self.published = 0
        self.finished = 0
        self._lock = threading.Lock()  # the test thread and the worker thread both count

    def _sent(self, **_: Any) -> None:
        with self._lock:
            self.published += 1

    def _ran(self, **_: Any) -> None:
        with self._lock:
            self.finished += 1

    def __enter__(self) -> TaskLedger:
        from celery import signals

        signals.before_task_publish.connect(self._sent, weak=False)
        signals.task_postrun.connect(self._ran, weak=False)
        return self

    def __exit__(self, *_: object) -> None:
        from celery import signals

        signals.before_task_publish.disconnect(self._sent)
        signals.task_postrun.disconnect(self._ran)

    def settled(self) -> bool:
        with self._lock:
            return self.published > 0 and self.finished >= self.published


def no_task_can_run_again(redis: Any) -> bool:
    """Nothing queued, held unacked by any worker (kombu's `unacked` hash, which the lease sweep
    puts back on the queue) or journaled (jobs/journal.py): no task can run again, so what a
    test counts is final. For workers in other processes, where a TaskLedger sees nothing."""
    held = redis.llen("celery") + redis.hlen("unacked") + redis.hlen("hippo:journal")
    return bool(held == 0)
