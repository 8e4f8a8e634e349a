"""The operational log (jobs/oplog.py): counts per day, the lessons briefings hand out, and
each recall, promotion, revocation and contradiction as a record (who, which entry, which
door, when), on the page and as the plain-text log."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from flask import Blueprint, Response, abort, render_template, request

from jobs import oplog
from jobs.runtime import Runtime

ACTIVITY_DAYS = 14
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
