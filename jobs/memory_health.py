"""The memory's health per night, for the console's charts (bot/console/activity.py).

After each dream, `record` keeps the night's figures (memory/dream/health.py: entries by
standing, what waits for people, what was fixed, the files nobody reads) as one field of a
Redis hash per workspace (`hippo:health:<workspace>`, night → JSON), at most MAX_NIGHTS nights
(the oldest dropped). A page reads the hash once: no walk of the memory or of its history.
A Redis outage loses a night's figures, never the dream.
"""

from __future__ import annotations

import json
import logging
from datetime import date
from typing import Any

from redis.exceptions import RedisError

from jobs import keys
from memory.dream import health
from memory.dream.report import Report
from memory.git import Store

log = logging.getLogger(__name__)

MAX_NIGHTS = 90


def record(redis: Any, workspace: str, store: Store, report: Report, today: date) -> None:
    """The night's figures from the tree the dream left and its report."""
    tree = {p: b.decode("utf-8", "replace") for p, b in store.tree().items()}
    figures = health.night(tree, report, today)
    key = keys.memory_health(workspace)
    try:
        redis.hset(key, report.run_id, json.dumps(figures))
        old = sorted(_text(k) for k in redis.hkeys(key))[:-MAX_NIGHTS]
        if old:
            redis.hdel(key, *old)
    except RedisError as exc:
        log.warning("the health of the night %s not recorded: %s", report.run_id, exc)


def nights(redis: Any, workspace: str) -> list[dict[str, Any]]:
    """Every night recorded, oldest first (an unreadable one left out)."""
    found = []
    for night, raw in (redis.hgetall(keys.memory_health(workspace)) or {}).items():
        try:
            figures = json.loads(raw)
        except ValueError:
            continue
        if isinstance(figures, dict):
            found.append({**figures, "night": _text(night)})
    return sorted(found, key=lambda f: str(f["night"]))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
