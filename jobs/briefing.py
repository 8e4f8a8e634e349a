"""Briefings wired to a store and Redis: the one function the three doors call.

`memory.prompts.briefing.build` decides what a briefing says; this adds what the doors share: the
repository guessed from the task when none is given, the operational log (a briefing, and each
lesson handed out), and recall counts for every file the briefing drew from.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from jobs import oplog
from jobs.read_counts import ReadBy, count_read
from memory import repo_prefs
from memory.format import REMINDERS
from memory.prompts import briefing
from memory.prompts.briefing import Briefing, Reader
from memory.reminders import show


def guess_repo(reader: Reader, text: str) -> str:
    """The first `owner/name` in `text` that the memory holds conventions or preferences for."""
    found = repo_prefs.known(text, lambda path: reader.read_or_none(path) is not None)
    return found[0] if found else ""


def brief(
    reader: Reader,
    task: str,
    *,
    repo: str = "",
    paths: Sequence[str] = (),
    channel: tuple[str, str | None] | None = None,
    budget: int = briefing.DEFAULT_BUDGET,
    redis: Any = None,
    workspace: str = "default",
    count_reads: bool = True,
    today: date | None = None,
    by: ReadBy | None = None,
) -> Briefing:
    """The briefing for `task`, counted in the operational log when `redis` (a redis.Redis)
    is given, and its files as read unless the caller counts them with its own reads
    (`count_reads=False`: the Slack agent's turn, which counts each file once); led by the
    reminders due on `today` (the team's date; default the machine's). `by`: who asked through
    which door, for the records of the files read."""
    repo = repo or guess_repo(reader, task)
    due = show.briefing_lines(reader.read_or_none(REMINDERS), task, today or date.today())
    done = briefing.build(
        reader, task, repo=repo, paths=paths, channel=channel, budget=budget, reminders=due
    )
    if redis is not None:
        conventions = [x for x in done.lines if x.section == briefing.CONVENTIONS]
        used = [oplog.lesson_name(x.where.rpartition(":")[0], x.text) for x in conventions]
        oplog.count_in(redis, workspace, oplog.BRIEFINGS, lessons=used)
        firsts = {x.where.rpartition(":")[0]: x.text for x in reversed(done.lines)}
        for path in files(done) if count_reads else []:
            count_read(redis, workspace, path, by=by, entry=firsts.get(path, ""))
    return done


def files(done: Briefing) -> list[str]:
    """The files a briefing drew its lines from, once each, in order."""
    return list(dict.fromkeys(line.where.rpartition(":")[0] for line in done.lines))
