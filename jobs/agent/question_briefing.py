"""A briefing for every question asked in a Slack thread, pinned for the thread.

The briefing (jobs/briefing.py, within its default budget) is built from the thread's first
question, over every memory open to everyone in the thread: the team's and the org's, each line
labelled with its memory when there are both (jobs/memories.py; the asker's own joins per turn
where only they read the answer, jobs/agent/own_memory.py). It holds the lessons, preferences
and facts that match the question, found by memory's search; for the repository the question
names, when it names one the memory knows (its conventions and preferences first). It is pinned
in Redis at that turn like the thread's snapshot, so a follow-up in the same thread gets the
same bytes; a thread that names a repository it did not name before gets that repository's
briefing, pinned from then on. A briefing with nothing in it is pinned too, and not shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date

from jobs import asker_time, keys, memories
from jobs.briefing import files, guess_repo
from jobs.read_counts import ReadBy
from jobs.runtime import Runtime
from memory.prompts.briefing import MEMORY, BadBrief
from memory.scopes import TEAM

TTL = 90 * 24 * 3600  # as long as the thread's snapshot pin (jobs/agent/turn.py THREAD_TTL)


@dataclass(frozen=True)
class ThreadBriefing:
    text: str  # '' when memory holds nothing for the question
    repo: str  # the repository it was built for, '' for the question alone
    task: str  # the question it was built from
    lessons: bool  # it holds more than memory lines (conventions, preferences)
    files: list[str] = field(default_factory=list)  # the files its lines come from
    fresh: bool = False  # built at this turn (its files count as read), not a pinned one
    own: bool = False  # it holds the asker's own lines (jobs/agent/own_memory.py; never pinned)


def named_repo(rt: Runtime, text: str, earlier: Sequence[tuple[str, str]]) -> str:
    """The repository the question names, else the newest earlier question that named one."""
    repo = guess_repo(rt.store, text)
    for asked, _ in reversed(earlier):
        repo = repo or guess_repo(rt.store, asked)
    return repo


def for_thread(
    rt: Runtime, thread: str, question: str, earlier: Sequence[tuple[str, str]], user: str = ""
) -> ThreadBriefing:
    """The thread's pinned briefing, made from `question` at its first turn, with the reminders
    due on the date of `user` (the asker: their time zone in Slack, jobs/asker_time.py)."""
    key = keys.agent_briefing(thread)
    repo = named_repo(rt, question, earlier)
    pinned = _load(rt.redis.get(key))
    if pinned is not None and (not repo or repo == pinned.repo):
        rt.redis.expire(key, TTL)
        return pinned
    made = _build(rt, question, repo, asker_time.asker_date(rt, user), user)
    if pinned is None and not rt.redis.set(key, _dump(made), nx=True, ex=TTL):
        # two first turns racing: both use the briefing the first one pinned
        return _load(rt.redis.get(key)) or made
    if pinned is not None:
        rt.redis.set(key, _dump(made), ex=TTL)
    return made


def _build(rt: Runtime, question: str, repo: str, today: date, user: str) -> ThreadBriefing:
    try:
        each = memories.briefings(
            rt, user, question, own=False, repo=repo, redis=rt.redis, count_team=False,
            today=today, by=ReadBy(user, "slack"),
        )  # fmt: skip
    except BadBrief:  # a question with no words: nothing to brief on, and no reason to fail
        return ThreadBriefing("", repo, question, False, fresh=True)
    done = memories.merged(each)
    text = done.text if done.lines else ""
    lessons = any(line.section != MEMORY for line in done.lines)
    team = files(dict(each)[TEAM])  # the turn counts these with its own reads; others are counted
    return ThreadBriefing(text, done.repo, done.task, lessons, team, fresh=True)


def _dump(b: ThreadBriefing) -> str:
    return json.dumps({**asdict(b), "fresh": False, "own": False}, ensure_ascii=False)


def _load(raw: object) -> ThreadBriefing | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode() if isinstance(raw, bytes) else str(raw))
        return ThreadBriefing(**data)
    except (ValueError, TypeError):
        return None  # unreadable (an older shape): built again
