"""The worker yields the CPU to the web process: a worker bootstep lowers its priority.

Slack's 3 s deadline (and the ack's latency) binds the web process, not the worker: a commit
can wait a few milliseconds, an ack that waits on the run queue behind a commit, a secret scan
or a `git push` is what makes the slow acks slow when both share a host's cores. So the worker
runs at niceness HIPPO_WORKER_NICE (10; 0 leaves it alone) and its children (git) inherit it.
On an idle core nice changes nothing; under contention Linux gives a nice-0 thread about nine
times the CPU share of a nice-10 one and lets it preempt on wake-up.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import bootsteps

log = logging.getLogger("hippo.worker")
MAX_NICE = 19


def lower_priority(by: int) -> int:
    """Raise this process's niceness by `by` (at most to 19) and return the new value. Linux
    keeps a niceness per thread, and a new thread starts with its creator's: every thread that
    exists now is lowered, and those started later (the pool's, git's) inherit it."""
    if by <= 0:
        return os.getpriority(os.PRIO_PROCESS, 0)
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:  # no /proc (macOS): the whole process at once
        threads = [0]
    for tid in threads:
        now = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(MAX_NICE, now + by))
    return os.getpriority(os.PRIO_PROCESS, 0)


class Niceness(bootsteps.Step):  # type: ignore[misc]  # celery ships no types
    """A worker bootstep: built with the worker, before its pool starts a thread."""

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        by = worker.app.runtime.config.worker_nice  # the HippoCelery's (jobs/task_base.py)
        try:
            now = lower_priority(by)
        except OSError as exc:  # a sandbox may refuse it: run at the priority given
            log.warning("could not lower the worker's priority by %d: %s", by, exc)
            return
        if by > 0:
            log.info("worker niceness %d (HIPPO_WORKER_NICE=%d)", now, by)
