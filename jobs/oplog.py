"""The operational log: recalls, promotions, revocations, contradictions and briefings per day.

Counters in Redis beside the recall counts (jobs/read_counts.py): one hash per workspace and UTC
day (`hippo:oplog:<workspace>:<day>`, event → count, kept OPLOG_DAYS), and one hash per workspace
counting how often each lesson was handed out in a briefing (`hippo:oplog-lessons:<workspace>`,
"<path>\\t<lesson>" → count), so a team can see which lessons are used. The morning digest shows
yesterday's counts and the console's /console/activity page the last weeks. Anyone may call
`count(rt, CONTRADICTIONS)`: a Redis outage is logged and never fails the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol

from redis.exceptions import RedisError

from jobs import keys

log = logging.getLogger(__name__)

RECALLS, PROMOTIONS, REVOCATIONS, CONTRADICTIONS, BRIEFINGS = (
    "recalls",
    "promotions",
    "revocations",
    "contradictions",
    "briefings",
)
EVENTS = (RECALLS, PROMOTIONS, REVOCATIONS, CONTRADICTIONS, BRIEFINGS)
OPLOG_DAYS = 90
MAX_LESSON = 300  # characters of a lesson's text kept as its counter's name


class Counters(Protocol):
    """The Redis commands used here (redis.Redis fits)."""

    def pipeline(self, transaction: bool = True) -> Any: ...

    def hgetall(self, name: str) -> Any: ...


class HasRedis(Protocol):
    """A Runtime, as far as counting goes."""

    @property
    def redis(self) -> Any: ...

    @property
    def config(self) -> Any: ...


def today() -> str:
    return datetime.now(UTC).date().isoformat()


def count_in(
    redis: Counters,
    workspace: str,
    event: str,
    n: int = 1,
    *,
    day: str = "",
    lessons: Iterable[str] = (),
) -> None:
    """Add `n` to today's (or `day`'s) `event`; `lessons` ("<path>\\t<text>") each used once."""
    if event not in EVENTS:
        raise ValueError(f"unknown event {event!r}; one of {', '.join(EVENTS)}")
    used = list(lessons)
    if not n and not used:
        return
    key = keys.oplog_day(workspace, day or today())
    try:
        pipe = redis.pipeline(transaction=False)
        if n:
            pipe.hincrby(key, event, n)
            pipe.expire(key, OPLOG_DAYS * 24 * 3600)
        for lesson in used:
            pipe.hincrby(keys.oplog_lessons(workspace), lesson[:MAX_LESSON], 1)
        pipe.execute()
    except RedisError as exc:
        log.warning("operational log: %s not counted: %s", event, exc)


def count(rt: HasRedis, event: str, n: int = 1, *, lessons: Iterable[str] = ()) -> None:
    """`count_in` for a Runtime's Redis and workspace (what tasks and doors call)."""
    count_in(rt.redis, rt.config.workspace, event, n, lessons=lessons)


def lesson_name(path: str, text: str) -> str:
    return f"{path}\t{text}"


def _decode(raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict):
        return {}
    return {
        (k.decode() if isinstance(k, bytes) else str(k)): (
            v.decode() if isinstance(v, bytes) else str(v)
        )
        for k, v in raw.items()
    }


def day(redis: Counters, workspace: str, when: str) -> dict[str, int]:
    """Every event's count on `when` (YYYY-MM-DD), zero when none."""
    got = _decode(redis.hgetall(keys.oplog_day(workspace, when)))
    return {event: int(got.get(event, 0)) for event in EVENTS}


def days(
    redis: Counters, workspace: str, last: int, end: str = ""
) -> list[tuple[str, dict[str, int]]]:
    """The `last` days up to `end` (default today), newest first."""
    stop = date.fromisoformat(end or today())
    pipe = redis.pipeline(transaction=False)
    names = [(stop - timedelta(days=i)).isoformat() for i in range(last)]
    for name in names:
        pipe.hgetall(keys.oplog_day(workspace, name))
    out = []
    for name, raw in zip(names, pipe.execute(), strict=True):
        got = _decode(raw)
        out.append((name, {event: int(got.get(event, 0)) for event in EVENTS}))
    return out


def lesson_uses(redis: Counters, workspace: str, limit: int = 50) -> list[tuple[str, str, int]]:
    """(path, lesson, times briefed) most used first, then by path and text."""
    got = _decode(redis.hgetall(keys.oplog_lessons(workspace)))
    rows: list[tuple[str, str, int]] = []
    for name, n in got.items():
        path, tab, text = name.partition("\t")
        if tab:
            rows.append((path, text, int(n)))
    rows.sort(key=lambda r: (-r[2], r[0], r[1]))
    return rows[:limit]
