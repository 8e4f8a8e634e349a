"""The operational log: recalls, promotions, revocations, contradictions and briefings per day,
and each recall, promotion, revocation and contradiction as a record.

Counters in Redis beside the recall counts (jobs/read_counts.py): one hash per workspace and UTC
day (`hippo:oplog:<workspace>:<day>`, event → count, kept OPLOG_DAYS), and one hash per workspace
counting how often each lesson was handed out in a briefing (`hippo:oplog-lessons:<workspace>`,
"<path>\\t<lesson>" → count), so a team can see which lessons are used. The morning digest shows
yesterday's counts and the console's /console/activity page the last weeks. Anyone may call
`count(rt, CONTRADICTIONS)`: a Redis outage is logged and never fails the caller.

The records (`Event`: when, what, which door, who, which file and entry) go to a Redis stream
per workspace (`hippo:oplog-events:<workspace>`), in the same round trip as the counters they
go with; it keeps at most MAX_EVENTS records (the oldest leave first) and none older than
OPLOG_DAYS, each field cut to MAX_FIELD characters. The console lists them and serves them as
the plain-text log, one line each (`Event.line`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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
MAX_EVENTS = 50_000  # records kept per workspace (about 10 MB in Redis at the longest fields)
MAX_FIELD = 200  # characters of a record's who, file and entry
# a record's event, by the counter it goes with
RECORD = {
    RECALLS: "recall",
    PROMOTIONS: "promotion",
    REVOCATIONS: "revocation",
    CONTRADICTIONS: "contradiction",
}


@dataclass(frozen=True)
class Event:
    """One thing that happened: `event` (recall, promotion, revocation, contradiction) through
    `door` (slack, mcp, console, cli, github, dream) by `who`, to `path` and its `entry` (its
    text; "" for a whole file). `when` (ISO, UTC) is the stream's, filled in when read."""

    event: str
    door: str
    who: str = ""
    path: str = ""
    entry: str = ""
    when: str = ""

    def fields(self) -> dict[str, str]:
        cut = {k: " ".join(v.split())[:MAX_FIELD] for k, v in self._named().items()}
        return {k: v for k, v in cut.items() if v}

    def _named(self) -> dict[str, str]:
        return {"e": self.event, "d": self.door, "w": self.who, "p": self.path, "t": self.entry}

    def line(self) -> str:
        """The plain-text log's line: when, what, door, who, file, "entry"."""
        entry = f' "{self.entry}"' if self.entry else ""
        return f"{self.when} {self.event} {self.door} {self.who or '-'} {self.path or '-'}{entry}"


def record(pipe: Any, workspace: str, events: Sequence[Event]) -> None:
    """Queue `events` on `pipe` (a pipeline the caller executes with its counters): appended
    to the workspace's stream, which keeps MAX_EVENTS and nothing older than OPLOG_DAYS."""
    if not events:
        return
    key = keys.oplog_events(workspace)
    for e in events:
        pipe.xadd(key, e.fields(), maxlen=MAX_EVENTS, approximate=True)
    oldest = datetime.now(UTC) - timedelta(days=OPLOG_DAYS)
    pipe.xtrim(key, minid=f"{int(oldest.timestamp() * 1000)}-0", approximate=False)


def events(redis: Any, workspace: str, limit: int = 200, before: str = "") -> list[Event]:
    """The newest `limit` records, newest first (before the stream id `before` when given)."""
    return [e for _, e in page(redis, workspace, limit, before)]


def page(redis: Any, workspace: str, limit: int, before: str = "") -> list[tuple[str, Event]]:
    """(stream id, record) of the newest `limit` records before `before` ("" : the newest)."""
    top = f"({before}" if before else "+"
    raw = redis.xrevrange(keys.oplog_events(workspace), max=top, min="-", count=limit)
    out = []
    for stream_id, fields in raw:
        sid = stream_id.decode() if isinstance(stream_id, bytes) else str(stream_id)
        out.append((sid, _event(sid, fields)))
    return out


def _event(sid: str, raw: Any) -> Event:
    got = _decode(raw)
    ms = int(sid.split("-", 1)[0])
    when = datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="seconds")
    return Event(
        got.get("e", ""),
        got.get("d", ""),
        got.get("w", ""),
        got.get("p", ""),
        got.get("t", ""),
        when.replace("+00:00", "Z"),
    )


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
    records: Sequence[Event] = (),
) -> None:
    """Add `n` to today's (or `day`'s) `event`; `lessons` ("<path>\\t<text>") each used once;
    `records` the events themselves, in the same round trip."""
    if event not in EVENTS:
        raise ValueError(f"unknown event {event!r}; one of {', '.join(EVENTS)}")
    used = list(lessons)
    if not n and not used and not records:
        return
    key = keys.oplog_day(workspace, day or today())
    try:
        pipe = redis.pipeline(transaction=False)
        if n:
            pipe.hincrby(key, event, n)
            pipe.expire(key, OPLOG_DAYS * 24 * 3600)
        for lesson in used:
            pipe.hincrby(keys.oplog_lessons(workspace), lesson[:MAX_LESSON], 1)
        record(pipe, workspace, records)
        pipe.execute()
    except RedisError as exc:
        log.warning("operational log: %s not counted: %s", event, exc)


def count(
    rt: HasRedis,
    event: str,
    n: int = 1,
    *,
    lessons: Iterable[str] = (),
    records: Sequence[Event] = (),
) -> None:
    """`count_in` for a Runtime's Redis and workspace (what tasks and doors call)."""
    count_in(rt.redis, rt.config.workspace, event, n, lessons=lessons, records=records)


def count_night(redis: Counters, workspace: str, outcomes: Mapping[str, Any] | None) -> None:
    """What a night's outcomes step promoted and revoked (memory/dream/run.py's
    `report.extra["outcomes"]`; None or empty when the dream was skipped), counted and recorded
    as the dream's."""
    done = outcomes or {}
    up = [
        Event(RECORD[PROMOTIONS], "dream", "hippo", "", text) for text in done.get("activated", [])
    ]
    down = [
        Event(RECORD[REVOCATIONS], "dream", "hippo", path, text)
        for path, text in done.get("revoked", [])
    ]
    count_in(redis, workspace, PROMOTIONS, done.get("promotions", 0), records=up)
    count_in(redis, workspace, REVOCATIONS, done.get("revocations", 0), records=down)


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
