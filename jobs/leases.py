"""Task leases: a live worker keeps renewing what it holds, so a dead worker's tasks come back fast.

Celery on Redis acks late through kombu's "unacked" sorted set: each message a worker takes is
scored with the time it was taken, and any worker's periodic sweep (`restore_visible`) puts back
on the queue every message older than the visibility timeout. With one fixed timeout there is no
good value: short, and a dream or an agent turn that runs longer is handed to a second worker
while the first still runs it; long (it was 6 hours), and a note reserved by a killed worker waits
that long. So the timeout here is a short *lease* (HIPPO_TASK_LEASE, 60 s) and every worker
renews the leases of the messages it still holds (running, prefetched, or waiting for a retry
countdown) every lease/6 seconds from a thread of its own. A worker that dies stops renewing; its
messages are back on the queue within lease + sweep interval of its last renewal, whatever kind of
task they are, and a task that is still running is never handed out a second time. The same
thread sweeps the intake journal every half lease (jobs/journal.py) for the one loss leases miss.

The thread reads kombu's per-channel table of delivered-but-unacked messages (`QoS._delivered`),
the same table kombu itself uses to restore them at a warm shutdown.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from celery import bootsteps

from jobs import journal

log = logging.getLogger("hippo.leases")


def renew(channel: Any, now: float | None = None) -> int:
    """Re-score every message this channel holds unacked to `now`; returns how many.

    `xx=True` only updates members still in the index: a message acked (removed) between the read
    and the write is not put back, so renewing never resurrects a finished task.
    """
    qos = getattr(channel, "qos", None)
    delivered = getattr(qos, "_delivered", None)
    if not delivered:
        return 0
    for _ in range(5):  # the event loop may add or ack a message while we copy
        try:
            tags = list(delivered)
            break
        except RuntimeError:
            time.sleep(0.01)
    else:
        return 0
    if not tags:
        return 0
    stamp = time.time() if now is None else now
    with channel.conn_or_acquire() as client:
        client.zadd(channel.unacked_index_key, dict.fromkeys(tags, stamp), xx=True)
    return len(tags)


class LeaseRenewal(bootsteps.StartStopStep):  # type: ignore[misc]
    """A consumer bootstep: one daemon thread renewing this worker's leases until it stops."""

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._suspects: set[str] = set()

    def start(self, parent: Any) -> None:
        # kombu puts a closing channel's held messages back on the queue ("restore at shutdown").
        # After a lost Redis connection that path crashes the worker (the transport's address is
        # already cleared: kombu#582's AttributeError), taking every running task down with it.
        # Leases and the journal bring those messages back anyway, so leave them to the lease.
        channel = getattr(getattr(parent, "task_consumer", None), "channel", None)
        if channel is not None:
            channel.do_restore = False
        options = parent.app.conf.broker_transport_options or {}
        every = max(0.5, float(options.get("visibility_timeout", 3600)) / 6)
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, args=(parent, every), name="hippo-lease-renewal", daemon=True
        )
        self._thread.start()

    def _run(self, consumer: Any, every: float) -> None:
        # After a broker reconnect the tasks taken on the old channel still run (and ack through
        # it): keep renewing every channel that still holds something, not only the current one.
        channels: list[Any] = []
        ticks = 0
        while not self._stop.wait(every):
            ticks += 1
            if ticks % 3 == 0:  # every half lease: look for tasks lost in flight
                self._sweep(consumer.app, grace=every * 3)
            task_consumer = getattr(consumer, "task_consumer", None)
            current = getattr(task_consumer, "channel", None)
            if current is not None and all(ch is not current for ch in channels):
                channels.append(current)
            for channel in list(channels):
                try:
                    held = renew(channel)
                except Exception as exc:  # Redis away: kombu reconnects; try again next tick
                    log.warning("could not renew task leases: %s", exc)
                    continue
                if not held and channel is not current:
                    channels.remove(channel)

    def _sweep(self, app: Any, grace: float) -> None:
        def publish(name: str, kwargs: dict[str, Any], task_id: str) -> None:
            app.send_task(name, kwargs=kwargs, task_id=task_id)

        try:
            _, self._suspects = journal.sweep(
                app.runtime.redis, publish, grace=grace, suspects=self._suspects
            )
        except Exception as exc:  # Redis away: the next sweep tries again
            log.warning("could not sweep the intake journal: %s", exc)

    def stop(self, parent: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def shutdown(self, parent: Any) -> None:
        self.stop(parent)
