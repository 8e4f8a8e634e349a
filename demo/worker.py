"""A real Celery worker in a thread of this process: how the demo and the test suite start one
(the suite starts no other kind in-process)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from celery import Celery

# How long the worker's BRPOP asks Redis to hold an empty queue (kombu's default is 1 s). Stopping
# the worker waits for the BRPOP in flight to return: a second of sleep for every test that
# started a worker (~100 tests), and for each of the demo's two. Redis (6.0+) takes a fractional
# timeout; an idle worker asks ten times a second instead of once.
BRPOP_TIMEOUT = 0.1


@contextmanager
def worker_thread(app: Celery) -> Iterator[Any]:
    """`app`'s worker (solo pool) consuming its Redis queue in a thread until the block ends."""
    from celery.contrib.testing.worker import start_worker

    options = app.conf.broker_transport_options or {}
    app.conf.broker_transport_options = {**options, "polling_interval": BRPOP_TIMEOUT}
    with start_worker(app, pool="solo", perform_ping_check=False) as worker:
        yield worker
