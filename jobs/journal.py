"""The intake journal: every task a front door queues is written down until it has run.

Leases (jobs/leases.py) bring back what a dead worker held, but kombu's Redis transport has one
gap they cannot see: BRPOP takes the message off the queue, and only then does the worker write it
to the "unacked" set. A worker killed in between (a millisecond, but 20 kills under load hit it)
loses the message for good, after Slack was told "ok". So `enqueue` first writes the task (name,
arguments, Celery task id) to the hash `hippo:journal`, a finished task removes its entry
(`task_postrun`; a task waiting to retry keeps it), and every worker's lease thread sweeps: an
entry older than the grace period whose task id is neither on the queue nor held unacked by any
worker, twice in a row, is published again under the same id. Every task is idempotent by its key,
so a rare second run (a sweep racing a message in flight) changes nothing.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, NamedTuple

import redis

from jobs import keys
from jobs.keys import Claim

log = logging.getLogger("hippo.journal")
QUEUE = "celery"  # kombu's default queue list, and its hash of unacked messages
UNACKED = "unacked"
GIVE_UP = 24 * 3600  # an entry this old that is nowhere is dropped (logged), not run again

Publish = Callable[[str, dict[str, Any], str], None]


class Swept(NamedTuple):
    """One sweep's result: task ids published again, and ids missing this time (to check next
    time: `suspects` of the next sweep)."""

    again: list[str]
    suspects: set[str]


def record(client: redis.Redis, name: str, kwargs: dict[str, Any]) -> str:
    """Write a task down before it is published; returns the task id to publish it under."""
    task_id = new_id()
    write(client, task_id, name, kwargs)
    return task_id


def new_id() -> str:
    return str(uuid.uuid4())


def write(client: Any, task_id: str, name: str, kwargs: dict[str, Any]) -> None:
    """`record` under a given id, on a client or a pipeline (the Slack ack writes it in the
    round trip of its claims)."""
    entry = {"task": name, "kwargs": kwargs, "at": time.time()}
    client.hset(keys.JOURNAL, task_id, json.dumps(entry))


def finished(client: redis.Redis, task_id: str) -> None:
    client.hdel(keys.JOURNAL, task_id)


def _ids(raw_messages: list[bytes], *, unacked: bool) -> set[str]:
    ids: set[str] = set()
    for raw in raw_messages:
        try:
            message = json.loads(raw)
            if unacked:  # kombu stores [message, exchange, routing key]
                message = message[0]
            ids.add(str(message["headers"]["id"]))
        except (ValueError, KeyError, IndexError, TypeError):
            continue
    return ids


def sweep(client: redis.Redis, publish: Publish, *, grace: float, suspects: set[str]) -> Swept:
    """One sweep: the task ids published again, and the ids missing this time.

    `suspects` are the ids found missing by the previous sweep; an id is published again only
    when it is missing twice, so a message between BRPOP and the unacked write is not mistaken
    for a lost one."""
    if not Claim(client, keys.JOURNAL_SWEEP, pending=max(1, int(grace))).take("1"):
        return Swept([], suspects)  # another worker swept moments ago
    now = time.time()
    old: dict[str, dict[str, Any]] = {}
    for task_id, raw in client.hgetall(keys.JOURNAL).items():
        entry = json.loads(raw)
        if now - float(entry.get("at", now)) > grace:
            old[task_id.decode() if isinstance(task_id, bytes) else str(task_id)] = entry
    if not old:
        return Swept([], set())
    pipe = client.pipeline(transaction=True)  # one snapshot of the queue and the held messages
    pipe.lrange(QUEUE, 0, -1)
    pipe.hvals(UNACKED)
    queued, held = pipe.execute()
    present = _ids(queued, unacked=False) | _ids(held, unacked=True)
    missing = set(old) - present
    again: list[str] = []
    for task_id in sorted(missing & suspects):
        entry = old[task_id]
        if now - float(entry["at"]) > GIVE_UP:
            log.error("dropping journal entry %s (%s): lost a day ago", task_id, entry["task"])
            finished(client, task_id)
            continue
        log.warning("task %s (%s) was lost in flight; publishing it again", task_id, entry["task"])
        client.hset(keys.JOURNAL, task_id, json.dumps({**entry, "at": now}))
        publish(str(entry["task"]), dict(entry["kwargs"]), task_id)
        again.append(task_id)
    return Swept(again, missing - set(again))
