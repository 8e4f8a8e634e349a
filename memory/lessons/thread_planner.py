"""Lessons taught in Slack threads, through the same gate as the pull-request lessons.

A team member states a convention or a pitfall in a thread (memory.lessons.thread_rules, or
Claude with a key): the first time it is a `tentative` entry in a conventions file
(`conventions/<owner>/<repo>.md` when the thread names a repository the memory knows, else
`conventions/team.md`), citing the message's permalink as `source`. A second independent
teacher makes it `active`, both sources listed: another thread, or another person in the same
thread. One person repeating it in one thread counts once, and a replayed message (a redelivery,
a retried turn) changes nothing. Who taught is recorded as `taught-by: <user> in <thread>`, the
pair independence is judged by. The dream's outcomes step (memory/dream/consolidate_lessons.py)
treats these lines as it treats every lesson: merged with one saying the same, active on two
sources.

Pure: the lesson and the file's text in, operations out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import memory.facts.contradictions as cx
from memory import format as fmt
from memory import secrets
from memory.lessons.planner import ACTIVE, REVOKED, TENTATIVE, LessonPlan
from memory.lessons.thread_rules import PITFALL, LessonKind
from memory.writes.operations import AddEntry, ReplaceEntry

TEAM_CONVENTIONS = "conventions/team.md"
TEAM_TITLE = "Conventions: the team"
BY = "slack"
TAUGHT_BY = "taught-by"
MAX_TEXT = 300
# How a rule is said, not what it says: "we always drain the queue before a deploy" and "make
# sure you drain the queue before deploying" are one lesson.
_SAID = frozenset(
    re.findall(
        r"\S+",
        "we you u everyone folks always ever every each any a an the make sure be remember to "
        "please pls first",
    )
)


@dataclass(frozen=True)
class ThreadLesson:
    """A lesson one message taught: what, and who taught it where."""

    kind: LessonKind
    text: str
    source: str  # the message's permalink
    person: str  # the Slack user who wrote it
    thread: str  # the thread it was said in (memory.trust.rules.origin_of of the permalink)

    @property
    def teacher(self) -> str:
        return f"{self.person} in {self.thread}"

    @property
    def line(self) -> str:
        """One line, secrets redacted, no brackets (they would read as metadata)."""
        flat = " ".join(secrets.redact(self.text).split()).replace("[", "(").replace("]", ")")
        return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1].rstrip() + "…"


def rule(text: str) -> str:
    """What a lesson asks, for comparing lessons: its words without how people phrase a rule
    (subjects, "always", "make sure", articles), "-ing" forms cut to their stem."""
    words = [w for w in re.findall(r"[\w'-]+", text.lower()) if w not in _SAID]
    return " ".join(w[:-3] if w.endswith("ing") and len(w) > 6 else w for w in words)


def entry_kind(kind: LessonKind) -> str:
    """The gate's kind word for a lesson (memory.format.KINDS)."""
    return "pitfall" if kind == PITFALL else "pattern"


def plan(
    lesson: ThreadLesson, path: str, current: str | None, *, today: str, title: str
) -> LessonPlan:
    """The operations on the conventions file at `path` for one taught lesson."""
    out = LessonPlan()
    entries = fmt.parse(current).entries if current else []
    for e in entries:
        if lesson.source in e.get_all("source"):  # a replay: this message already counted
            out.text, out.status = e.text, e.get("status") or ACTIVE
            return out
    live = [e for e in entries if e.get("status") != REVOKED and e.parent is None]
    text = lesson.line
    verdicts = [(e, cx.compare(rule(e.text), rule(text))[0]) for e in live]
    match = next((e for e, v in verdicts if v == cx.CONFIRM or fmt.same_fact(e.text, text)), None)
    if match is not None:
        return _confirm(out, path, match, lesson)
    meta: list[tuple[str, str]] = [
        ("source", lesson.source),
        ("added", today),
        ("by", BY),
        ("status", TENTATIVE),
        ("kind", entry_kind(lesson.kind)),
        (TAUGHT_BY, lesson.teacher),
    ]
    disputed = next((e for e, v in verdicts if v == cx.CONTRADICT), None)
    if disputed is not None:  # a person settles it; the older lesson is never overwritten
        meta.append(("contradicts", disputed.text))
    out.ops.append(AddEntry(path, text, tuple(meta), title=title))
    out.text, out.status, out.sources = text, TENTATIVE, [lesson.source]
    return out


def _confirm(out: LessonPlan, path: str, match: fmt.Entry, lesson: ThreadLesson) -> LessonPlan:
    """The lesson is known: a new teacher confirms it (active), the same one changes nothing."""
    status = (match.get("status") or "").lower()
    out.text, out.status = match.text, status or ACTIVE
    if not status or lesson.teacher in match.get_all(TAUGHT_BY):
        return out  # a person's own line, or this teacher already counted
    if match.get("contradicts"):
        return out  # disputed: a person settles it, a second voice does not
    out.sources = [*match.get_all("source"), lesson.source]
    teachers = [*match.get_all(TAUGHT_BY), lesson.teacher]
    kept = [(k, v) for k, v in match.meta if k.lower() not in ("source", "status", TAUGHT_BY)]
    meta = (
        *[("source", s) for s in out.sources],
        *kept,
        *[(TAUGHT_BY, t) for t in teachers],
        ("status", ACTIVE),
    )
    out.ops.append(ReplaceEntry(path, match.text, match.text, meta))
    out.status, out.became_active = ACTIVE, status != ACTIVE
    return out
