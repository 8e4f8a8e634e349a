"""The memory's health and the operational log.

Charts drawn on the server (bot/console/charts.py) from what each night recorded
(jobs/memory_health.py: entries by standing, what was fixed, what waits for people, the files
nobody reads) and the operational log's counts per day (jobs/oplog.py: recalls); then the
counts per day, the lessons briefings hand out, and each recall, promotion, revocation and
contradiction as a record (who, which entry, which door, when), on the page and as the
plain-text log. A page reads a handful of Redis keys, never the memory or its history."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from flask import Blueprint, Response, abort, render_template, request

from bot.console.charts import chart
from jobs import memory_health, oplog
from jobs.runtime import Runtime
from memory.dream.health import STANDINGS

ACTIVITY_DAYS = 14
RECALL_DAYS = 30
WAITING = ("proposals", "contradictions", "reminders")
SHOWN = 100  # records on the page; the text log holds them all
CHUNK = 1000  # records read from Redis at a time for the text log


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.get("/activity")
    def activity() -> Any:
        """Recalls, briefings, promotions, revocations and contradictions per day, the lessons
        briefings handed out most, and the newest records (`?event=recall` for one kind)."""
        ws = rt.config.workspace
        kind = _kind()
        return render_template(
            "console/activity.html",
            charts=_charts(rt),
            last=(memory_health.nights(rt.redis, ws) or [{}])[-1],
            events=oplog.EVENTS,
            days=oplog.days(rt.redis, ws, ACTIVITY_DAYS),
            lessons=oplog.lesson_uses(rt.redis, ws, limit=50),
            records=list(islice(_every(rt, kind), SHOWN)),
            kinds=sorted(oplog.RECORD.values()),
            kind=kind,
        )

    @bp.get("/activity/log.txt")
    def log_text() -> Any:
        """The whole log (at most oplog.MAX_EVENTS records, 90 days), newest first, one line
        each: when, event, door, who, file, "entry"."""
        lines = (e.line() + "\n" for e in _every(rt, _kind()))
        return Response(lines, mimetype="text/plain; charset=utf-8")


def _charts(rt: Runtime) -> dict[str, Any]:
    """The health charts: standing, fixed and deleted, waiting per night; recalls per day."""
    nights = memory_health.nights(rt.redis, rt.config.workspace)
    labels = [str(n["night"]) for n in nights]

    def of(*names: str) -> list[tuple[str, list[float]]]:
        return [(name, [float(n.get(name) or 0) for n in nights]) for name in names]

    days = oplog.days(rt.redis, rt.config.workspace, RECALL_DAYS)[::-1]  # oldest first
    recalls = [("recalls", [float(c[oplog.RECALLS]) for _, c in days])]
    return {
        "standing": chart("Entries by standing", labels, of(*STANDINGS), "area"),
        "fixed": chart(
            "Stale facts fixed and deleted per night", labels, of("fixed", "deleted"), "bars"
        ),
        "waiting": chart("Waiting for people", labels, of(*WAITING), "lines"),
        "recalls": chart("Recalls per day", [d for d, _ in days], recalls, "bars"),
    }


def _kind() -> str:
    kind = request.args.get("event", "")
    if kind and kind not in oplog.RECORD.values():
        abort(400, f"no event {kind!r}: choose one of {', '.join(sorted(oplog.RECORD.values()))}")
    return kind


def _every(rt: Runtime, kind: str) -> Iterator[oplog.Event]:
    """Every record of `kind` (every kind when ""), newest first, read CHUNK at a time."""
    before = ""
    while True:
        got = oplog.page(rt.redis, rt.config.workspace, CHUNK, before)
        yield from (e for _, e in got if not kind or e.event == kind)
        if len(got) < CHUNK:
            return
        before = got[-1][0]
