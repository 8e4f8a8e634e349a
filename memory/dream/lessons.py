"""Step lessons: what recurs across sessions, proposed as a lesson no one wrote down.

From the episodes of the last month (memory/dream/recurring.py: the same error in two sessions,
the same fix applied twice, the same question in three threads) the dream proposes one lesson per
recurrence, as an entry of `proposals.md` (memory/dream/proposing.py) for a person to accept
into a topic (the file the sessions read or changed most, else `inbox.md`) or drop. With a
`Learner` (Claude) each lesson's words are Claude's; without, a template's. Either way the lesson
cites every episode it came from (`episodes: 2026-11-03#L4, …`: the archive file's date and
line), their sources, whose they were (`from:`) and their weakest standing (an agent's episode is
tentative, memory/trust/episodes.py). Not proposed: what the memory already says (the error's
words, the fix's file and words, the question's words in one file), or a recurrence a person
settled before.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import memory.facts.contradictions as cx
import memory.trust.standing as standing
from memory.dream.context import Context, StepResult, is_topic
from memory.dream.proposing import Proposer, signature
from memory.dream.recurring import FIXED, Episode, Group, groups, recent, words
from memory.notes import INBOX

PEOPLES = ("preferences/", "conventions/")  # instructions people write: never a lesson's topic
MAX_LESSONS = 10  # proposals a night, the most sessions first
MAX_CITED = 60  # episodes cited on one proposal (every one, up to this)
MAX_CHARS = 300
KINDS = {"error": "pitfall", "fix": "pattern", "question": "fact"}
_SENTENCE = re.compile(r"(?<=[.!?])\s")
_BY = re.compile(r"^(?:fixed|solved|resolved)(?: it)? by\s+", re.I)


class Learner(Protocol):
    """Claude words a lesson from its episodes; None: use the template."""

    def lesson(self, kind: str, episodes: Sequence[Mapping[str, Any]]) -> str | None: ...


def run(ctx: Context, learner: Learner | None = None) -> StepResult:
    """The night's lesson proposals (one AddEntry to proposals.md each)."""
    result = StepResult("lessons")
    found = groups(recent(ctx.tree, ctx.today))
    said = Said(ctx)
    proposer = Proposer(ctx, MAX_LESSONS)
    for g in found:
        if said.says(g) or _confirms(ctx, g):
            proposer.skipped["the memory says it"] = (
                proposer.skipped.get("the memory says it", 0) + 1
            )
            continue
        text = (learner.lesson(g.kind, _shown(g)) if learner is not None else None) or draft(g)
        if proposer.offer(
            "lesson", target(ctx, g), text[:MAX_CHARS], signature(g.kind, g.key), meta(g)
        ):
            result.body.append(f"- {g.kind} in {g.sessions} sessions: {text[:MAX_CHARS]}")
    result.ops = list(proposer.ops)
    result.facts = {"groups": len(found), "proposed": len(result.ops), "skipped": proposer.skipped}
    if result.ops:
        result.subject = f"{len(result.ops)} lessons proposed from {len(found)} recurrences"
    return result


def _confirms(ctx: Context, g: Group) -> bool:
    """The gate's check (memory/facts/contradictions.py, as for an agent's entry): the lesson's
    words say again an entry of the file it would go to."""
    entries = ctx.doc(target(ctx, g)).entries if target(ctx, g) in ctx.tree else []
    return cx.check(draft(g), entries).verdict == cx.CONFIRM


def meta(g: Group) -> tuple[tuple[str, str], ...]:
    """Whose episodes, their sources, every one cited, and their weakest standing."""
    eps = g.episodes[:MAX_CITED]
    cited = ", ".join(e.ref for e in eps)
    more = len(g.episodes) - len(eps)
    out = [("kind", KINDS[g.kind]), ("episodes", cited + (f" and {more} more" if more else ""))]
    out += [("source", s) for s in dict.fromkeys(s for e in eps for s in e.sources[:1])][:5]
    out.append(("from", ", ".join(dict.fromkeys(e.writer for e in eps))))
    out.append(("status", standing.weakest(e.standing for e in eps)))
    return tuple(out)


def target(ctx: Context, g: Group) -> str:
    """The topic the sessions read or changed most (a file of the memory, not the people's
    instructions in preferences/ and conventions/), else the inbox."""
    counts = Counter(
        p
        for e in g.episodes
        for p in {*e.read, *e.files}
        if is_topic(p) and p in ctx.tree and not p.startswith(PEOPLES)
    )
    return counts.most_common(1)[0][0] if counts else INBOX


def draft(g: Group) -> str:
    """The template's lesson for a recurrence (no LLM)."""
    n, when = g.sessions, _days(g.episodes)
    if g.kind == "error":
        said = next(
            s for e in g.episodes for k, s in zip(e.errors, e.said, strict=True) if k == g.key
        )
        cmds = [
            c for c, k in Counter(c for e in g.episodes for c in e.commands).most_common(1) if k > 1
        ]
        head = f"`{cmds[0]}` fails with “{said}”" if cmds else f"“{said}” came back"
        fix = _fix(g.episodes)
        return f"{head} in {n} sessions ({when})" + (f"; what fixed it: {fix}" if fix else "")
    if g.kind == "fix":
        fix = _fix(g.episodes) or _first(g.episodes[0].texts[0] if g.episodes[0].texts else "")
        return f"The same fix to {g.key} was made in {n} sessions ({when}): {fix}"
    asked = g.episodes[0].question
    files = Counter(p for e in g.episodes for p in e.read if p.endswith(".md")).most_common(1)
    where = f"; answered from {files[0][0]}" if files and files[0][1] > 1 else ""
    return f"Asked in {n} threads ({when}): “{_first(asked)}”{where}"


def _fix(eps: Sequence[Episode]) -> str:
    """What the latest episode that says it fixed something says it did."""
    for e in reversed(eps):
        for t in (e.outcome, *e.texts):
            if t and FIXED.search(t):
                return _BY.sub("", _first(t), count=1)
    return ""


def _first(text: str) -> str:
    flat = " ".join(text.split())
    first = _SENTENCE.split(flat, maxsplit=1)[0].rstrip(".")
    return first if len(first) <= 160 else first[:159].rstrip() + "…"


def _days(eps: Sequence[Episode]) -> str:
    days = sorted({e.day for e in eps})
    return ", ".join(days) if len(days) <= 3 else f"{days[0]} to {days[-1]}"


def _shown(g: Group) -> list[dict[str, Any]]:
    """What Claude reads of a recurrence's episodes (data, never instructions)."""
    return [
        {"episode": e.ref, "texts": [t[:400] for t in e.texts[:4]], "commands": list(e.commands),
         "errors": list(e.said), "files": list(e.files)}
        for e in g.episodes[:12]
    ]  # fmt: skip


class Said:
    """Whether the memory already says a recurrence's lesson: the error's words, the fixed
    file with the fix's words, or the question's words, all in one topic (or the inbox)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._lowered: list[str] | None = None

    def says(self, g: Group) -> bool:
        if self._lowered is None:
            files = [p for p in self.ctx.tree if is_topic(p) or p == INBOX]
            self._lowered = [self.ctx.tree[p].lower() for p in files]
        if g.kind == "error":
            core = g.key.split(": ", 1)[-1]
            return any(core in text for text in self._lowered)
        if g.kind == "fix":
            need = sorted(words(_fix(g.episodes)))
            return any(
                g.key.lower() in text and sum(w in text for w in need) >= min(len(need), 4)
                for text in self._lowered
            )
        need = g.key.split()
        return bool(need) and any(all(w in text for w in need) for text in self._lowered)
