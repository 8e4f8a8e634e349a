"""Read counts: how often each memory file is read by a person or an agent.

The console, MCP (readMemory, searchMemory), Slack recall and the agent's turns call `count_read`
for every file they hand out; dreaming calls `read_counts` (path → reads) and `last_reads`
(path → the day it was last read) to find files no session used. Two Redis hashes per workspace.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from redis.exceptions import RedisError

from jobs import keys, oplog

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReadBy:
    """Who read, through which door (the operational log's record of a recall)."""

    who: str = ""
    door: str = ""


class HashStore(Protocol):
    """The Redis commands used here (redis.Redis and fakeredis both fit)."""

    def pipeline(self, transaction: bool = True) -> Any: ...

    def hincrby(self, name: str, key: str, amount: int = 1) -> object: ...

    def hgetall(self, name: str) -> object: ...

    def hset(self, name: str, key: str, value: str) -> object: ...

    def hsetnx(self, name: str, key: str, value: str) -> object: ...

    def expire(self, name: str, time: int) -> object: ...


def counts_key(workspace: str) -> str:
    """The hash path → reads (its name predates "read counts"; kept so counts survive)."""
    return keys.recall_counts(workspace)


SINCE = ""  # the field of last_read_key holding the day reads began to be dated


def last_read_key(workspace: str) -> str:
    """The hash path → the day of its last read."""
    return keys.recall_times(workspace)


def count_read(
    redis: HashStore,
    workspace: str,
    path: str,
    today: str = "",
    *,
    by: ReadBy | None = None,
    entry: str = "",
) -> None:
    """Add one read of `path` and remember the day (UTC unless given); the day's recalls in
    the operational log (jobs/oplog.py) count it too, and record it: who read it through which
    door (`by`), and the `entry` handed out when it was one. One round trip to Redis. A Redis
    outage never fails the read itself: it is only logged."""
    day = today or datetime.now(UTC).date().isoformat()
    by = by or ReadBy()
    event = oplog.Event(oplog.RECORD[oplog.RECALLS], by.door, by.who, path, entry)
    try:
        pipe = redis.pipeline(transaction=False)
        pipe.hincrby(counts_key(workspace), path, 1)
        pipe.hset(last_read_key(workspace), path, day)
        pipe.hsetnx(last_read_key(workspace), SINCE, day)  # when reads began to be dated
        pipe.hincrby(keys.oplog_day(workspace, day), oplog.RECALLS, 1)
        pipe.expire(keys.oplog_day(workspace, day), oplog.OPLOG_DAYS * 24 * 3600)
        oplog.record(pipe, workspace, [event])
        pipe.execute()
    except RedisError as exc:
        log.warning("read count for %s not recorded: %s", path, exc)


def last_reads(redis: HashStore, workspace: str) -> dict[str, str]:
    """Every read path with the day it was last read (paths never read are absent), and under
    SINCE ("") the day the first read was dated: before that, "never read" means "not known"."""
    raw = redis.hgetall(last_read_key(workspace))
    out: dict[str, str] = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            name = k.decode() if isinstance(k, bytes) else str(k)
            out[name] = v.decode() if isinstance(v, bytes) else str(v)
    return out


def read_counts(redis: HashStore, workspace: str) -> dict[str, int]:
    """Every counted path with its number of reads (paths never read are absent)."""
    raw = redis.hgetall(counts_key(workspace))
    out: dict[str, int] = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            name = k.decode() if isinstance(k, bytes) else str(k)
            out[name] = int(v)
    return out
