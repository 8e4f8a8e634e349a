"""Lessons taught in a Slack thread, learned at each agent turn (docs/SLACK.md).

The thread's messages since hippo's last turn there, and the question itself, are read for
conventions and pitfalls people state as rules: by the fixed rules of
memory.lessons.thread_rules without an API key, by Claude with one (an API error: no lesson).
Only team members teach: a message by a bot, an app, a guest (single- or multi-channel), a
deactivated account or someone of another organisation (Slack Connect) is never read for a
lesson, nor shown to Claude; without a bot token nobody can be checked, so nothing is learned.
The lesson goes through the same gate as a pull request's (memory.lessons.thread_planner):
tentative, active once a second independent teacher confirms it. hippo's code writes it, never
the agent's tools (agents may not write `conventions/`: memory/trust/rules.py), one commit per
lesson keyed by the message, so a retried turn or a redelivery adds nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from redis.exceptions import LockError

from integrations.slack_thread import Said
from jobs import actors, keys, oplog
from jobs.briefing import guess_repo
from jobs.config import today
from jobs.runtime import Runtime
from memory import repo_prefs
from memory.errors import LockTimeout, MemoryStoreError, TombstoneConflict
from memory.git import Author
from memory.lessons import thread_planner, thread_rules
from memory.lessons.thread_planner import ThreadLesson
from memory.lessons.thread_rules import LessonKind
from memory.markup import slack
from memory.trust.actors import Action, may

log = logging.getLogger("hippo.agent")

SLACK_AUTHOR = Author("hippo slack", "slack@hippo.invalid")
LOCK_TTL, LOCK_WAIT = 120, 60


@dataclass(frozen=True)
class Learned:
    """What one message taught, as the thread is told."""

    text: str
    kind: LessonKind
    status: str
    path: str
    became_active: bool


@dataclass(frozen=True)
class _Found:
    said: Said
    kind: LessonKind
    text: str
    n: int  # the lesson's place among the message's lessons (its idempotency key)


class Members:
    """Who may teach (memory/trust/actors.py: a member of this workspace, resolved by
    jobs/actors.py), once per person per turn; a Slack error counts as "not a member"."""

    def __init__(self, rt: Runtime) -> None:
        self.rt, self.known = rt, dict[str, bool]()

    def __call__(self, user: str) -> bool:
        if user not in self.known:
            who = actors.resolve(self.rt, actors.SlackRequest(user))
            self.known[user] = may(who, Action.TEACH)
        return self.known[user]


def messages(said: Sequence[Said], user: str, text: str, ts: str) -> list[Said]:
    """What a turn reads for lessons: the thread since hippo's last turn, then the question."""
    asked = [Said(user, text, ts, text)] if user and ts else []
    return [s for s in said if s.ts and s.user] + asked


def found(rt: Runtime, msgs: Sequence[Said], member: Members) -> list[_Found]:
    """The lessons team members' messages teach (Claude with a key, else the fixed rules)."""
    if rt.llm is None:
        out = [
            _Found(m, t.kind, t.text, n)
            for m in msgs
            for n, t in enumerate(thread_rules.lessons(m.raw or m.text))
        ]
        return [f for f in out if member(f.said.user)]
    from integrations.thread_lessons_llm import extract  # anthropic: only with an API key

    cued = [m for m in msgs if thread_rules.has_cue(m.raw or m.text)]  # no call for chatter
    ours = [m for m in cued if member(m.user)]  # others' words are never shown to Claude
    if not ours:
        return []
    texts = [thread_rules.clean(m.raw or m.text) for m in ours]
    got = extract(rt.llm, rt.config.small_model, texts)
    if got is None:
        return []
    seen: dict[int, int] = {}
    result = []
    for x in got[0]:
        seen[x.message] = seen.get(x.message, -1) + 1
        kind: LessonKind = "pitfall" if x.kind == "pitfall" else "convention"
        result.append(_Found(ours[x.message], kind, x.lesson, seen[x.message]))
    return result


def place(rt: Runtime, texts: Sequence[str]) -> tuple[str, str]:
    """The conventions file and its title: the repository the thread names, else the team's."""
    for text in texts:
        repo = guess_repo(rt.store, text)
        if repo:
            return repo_prefs.conventions_for(repo), f"Conventions: {repo}"
    return thread_planner.TEAM_CONVENTIONS, thread_planner.TEAM_TITLE


def source_of(rt: Runtime, channel: str, thread_ts: str, ts: str) -> str:
    """The message's permalink, naming its thread as Slack does for a reply."""
    link = rt.poster.permalink(channel, ts)
    if ts != thread_ts and "thread_ts=" not in link:
        link += f"{'&' if '?' in link else '?'}thread_ts={thread_ts}&cid={channel}"
    return link


def learn(
    rt: Runtime, *, team: str, channel: str, thread_ts: str, msgs: Sequence[Said]
) -> list[Learned]:
    """Learn what `msgs` teach; a lesson that cannot be written is logged and skipped."""
    if not rt.config.slack_bot_token or not msgs:
        return []
    lessons = found(rt, msgs, Members(rt))
    if not lessons:
        return []
    path, title = place(rt, [m.text for m in msgs])
    out = []
    for f in lessons:
        source = source_of(rt, channel, thread_ts, f.said.ts)
        lesson = ThreadLesson(f.kind, f.text, source, f.said.user, f"slack {channel} {thread_ts}")
        key = f"slack-lesson:{team}:{channel}:{f.said.ts}:{f.n}"
        try:
            done = _write(rt, lesson, path, title, key)
        except (MemoryStoreError, LockError) as exc:
            log.warning("lesson from %s not written: %s", source, exc)
            continue
        if done is not None:
            out.append(done)
    return out


def _write(rt: Runtime, lesson: ThreadLesson, path: str, title: str, key: str) -> Learned | None:
    lock = rt.redis.lock(keys.thread_lessons_lock(path), timeout=LOCK_TTL)
    if not lock.acquire(blocking_timeout=LOCK_WAIT):
        raise LockTimeout(f"the lessons of {path} are busy; try again")
    try:
        rt.store.sync()
        if rt.store.find_key(key):
            return None  # this message's lesson landed already (a retried turn)
        current = rt.store.read_or_none(path)
        plan = thread_planner.plan(lesson, path, current, today=today(rt.config), title=title)
        if not plan.ops:
            return None  # known from this teacher, or a person's own line already says it
        subject = f"lesson from a Slack thread: {plan.status}"
        try:
            rt.store.write(
                plan.ops, author=SLACK_AUTHOR, message=subject, key=key, source=lesson.source
            )
        except TombstoneConflict:
            log.info("lesson %r was forgotten on purpose: not learned again", plan.text)
            return None
    finally:
        try:
            lock.release()
        except LockError:
            log.warning("the lessons lock of %s expired while writing", path)
    if plan.became_active:
        said = oplog.Event(oplog.RECORD[oplog.PROMOTIONS], "slack", lesson.person, path, plan.text)
        oplog.count(rt, oplog.PROMOTIONS, 1, records=[said])
    return Learned(plan.text, lesson.kind, plan.status, path, plan.became_active)


def note(learned: Sequence[Learned]) -> str:
    """What the thread is told under the answer (memory text: Slack-escaped)."""
    lines = []
    for x in learned[:3]:
        what = f"{x.status} {x.kind}"
        how = "confirmed by a second teacher" if x.status == "active" else "tentative until a "
        how += "" if x.status == "active" else "second person or thread confirms it"
        said = f"“{slack(x.text)}” ({what} in `{slack(x.path)}`; {how})"
        lines.append(f"_Learned from this thread: {said}_")
    return ("\n" + "\n".join(lines)) if lines else ""
