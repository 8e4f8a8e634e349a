"""Step 1, daily: `daily/YYYY-MM-DD.md` from the episodes archived since the last dream.

Only what someone would still find useful a week later, each line with its sources. Without an
LLM the choice is deterministic: pull-request outcomes and thread summaries with enough words,
minus the ones marked short-lived, duplicates merged (sources kept). With a `DailyWriter`
(Claude), the model picks and phrases the lines; its lines keep the sources it names.

Each line carries the weakest standing of the episodes it came from and names whose they were
(`from:`): a line from an agent's episode (a thread the Slack agent summarised, a line an MCP
client appended) is `status: tentative`; one from hippo's own record of a pull request's
outcome is `status: active` (memory/trust/episodes.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import memory.format.lines as textlines
import memory.trust.episodes as trust_episodes
import memory.trust.standing as standing
from memory import episodes as cases
from memory import format as fmt
from memory import secrets
from memory.dream.context import DREAM_BY, Context, StepResult
from memory.writes.operations import AddEntry

ARCHIVE = "archive/"
MIN_WORDS = 5
MAX_LINES = 20
SHORT_LIVED = frozenset({"transient", "short-lived", "today", "chitchat", "greeting"})


@dataclass(frozen=True)
class Episode:
    """One archived episode, read leniently from the JSONL others append."""

    kind: str
    at: str
    text: str
    sources: tuple[str, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def writer(self) -> tuple[str, str]:
        """(standing, whose): an agent's episode is tentative (memory/trust/episodes.py)."""
        return trust_episodes.writer(self.kind, self.raw)

    @property
    def case(self) -> cases.Case:
        """The thread's problem / approach / outcome / evidence; empty for an episode archived
        before those fields existed, or of another kind."""
        return cases.read(self.raw)


@dataclass(frozen=True)
class Line:
    """A line of the note; `standing` and `writers` are its episodes' (the weakest, and whose
    they were), filled in by `run` for lines Claude wrote."""

    text: str
    sources: tuple[str, ...]
    standing: str = ""
    writers: tuple[str, ...] = ()


class DailyWriter(Protocol):
    """Claude writes the note's lines from the episodes; None means: use the deterministic path."""

    def daily(self, day: str, episodes: Sequence[Episode]) -> list[Line] | None: ...


def episodes_since(ctx: Context) -> list[Episode]:
    """Episodes in archive/*.jsonl newer than the last run (all of them on the first night)."""
    since = ctx.state.last_run_at
    since_day = since[:10]
    out: list[Episode] = []
    for path in sorted(p for p in ctx.tree if p.startswith(ARCHIVE) and p.endswith(".jsonl")):
        day = path[len(ARCHIVE) :][:10]
        if since_day and day < since_day:
            continue
        for raw in textlines.split(ctx.tree[path]):
            out.extend(ep for ep in _episodes(raw, day) if not since or ep.at > since)
    return out


def _episodes(raw: str, day: str) -> list[Episode]:
    """The episodes of one archive line. A thread summarised by Claude gives one per thing to
    "remember" (its "stale" part is left out on purpose); other kinds give one."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return []  # a torn line (or one nested thousands deep): skip it, never fail the night
    if not isinstance(data, dict):
        return []
    kind = str(data.get("type") or data.get("kind") or "episode")
    at = str(data.get("at") or data.get("ts") or data.get("time") or day)
    sources = [data.get(k) for k in ("source", "url", "permalink", "html_url")]
    extra = data.get("sources")
    if isinstance(extra, list):
        sources.extend(extra)
    uniq = tuple(dict.fromkeys(str(s) for s in sources if isinstance(s, str) and s))
    remember = data.get("remember")
    if isinstance(remember, list):
        texts = [str(t) for t in remember if isinstance(t, str) and t.strip()]
        return [Episode(kind, at, t, uniq, data) for t in texts]
    return [Episode(kind, at, _text_of(kind, data), uniq, data)]


def _text_of(kind: str, data: dict[str, Any]) -> str:
    if kind == "pr_outcome":
        title = str(data.get("title") or "").strip()
        outcome = str(data.get("outcome") or "ended").replace("_", " ")
        ref = f"{data.get('repo', '?')}#{data.get('number', '?')}"
        lesson = data.get("lesson")
        tail = ""
        if isinstance(lesson, dict) and lesson.get("text"):
            tail = f"; lesson ({lesson.get('status', 'tentative')}): {lesson['text']}"
        return f"{ref} {title}: {outcome}{tail}".strip()
    for key in ("summary", "text", "title"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    touched = data.get("files_touched")
    if kind == "thread" and isinstance(touched, list) and touched:
        # without a summary, a thread matters a week later only if it changed the memory
        files = ", ".join(str(f) for f in touched[:3])
        return f"{files} updated after the question: {data.get('question', '')}"
    return ""


def worth_keeping(ep: Episode) -> bool:
    """Deterministic "useful a week later": enough words, not marked short-lived."""
    marks = {str(ep.raw.get(k, "")).lower() for k in ("scope", "ttl", "keep")}
    if ep.raw.get("transient") is True or ep.raw.get("keep") is False:
        return False
    if ep.kind.lower() in SHORT_LIVED or marks & SHORT_LIVED:
        return False
    return len(fmt.normalise(ep.text).split()) >= MIN_WORDS


def deterministic_lines(episodes: Iterable[Episode]) -> list[Line]:
    merged: dict[str, tuple[str, list[str], list[Episode]]] = {}
    for ep in episodes:
        if not worth_keeping(ep):
            continue
        text = " ".join(secrets.redact(ep.text).split()).replace("[", "(").replace("]", ")")
        key = fmt.normalise(text)
        if key in merged:
            merged[key][1].extend(s for s in ep.sources if s not in merged[key][1])
            merged[key][2].append(ep)
        else:
            merged[key] = (text, list(ep.sources), [ep])
    # pull-request outcomes first (they carry lessons), then the rest in archive order
    lines = [_standing(Line(t, tuple(s)), eps) for t, s, eps in merged.values()]
    lines.sort(key=lambda ln: 0 if "#" in ln.text.split(" ", 1)[0] else 1)
    return lines[:MAX_LINES]


def _standing(line: Line, episodes: Sequence[Episode]) -> Line:
    """`line` with the weakest standing of the episodes it came from and whose they were."""
    writers = [ep.writer for ep in episodes]
    level = standing.weakest(s for s, _ in writers)
    return replace(line, standing=level, writers=tuple(dict.fromkeys(w for _, w in writers)))


def _sources_of(line: Line, episodes: Sequence[Episode]) -> list[Episode]:
    """The episodes a line Claude wrote came from: those sharing a source with it, else all
    (a line that names none of them may draw on any)."""
    named = set(line.sources)
    return [ep for ep in episodes if named & set(ep.sources)] or list(episodes)


def run(ctx: Context, writer: DailyWriter | None = None) -> StepResult:
    """The daily note's AddEntry operations; none when nothing new happened."""
    result = StepResult("daily")
    episodes = episodes_since(ctx)
    day = ctx.run_id
    lines: list[Line] | None = None
    if writer is not None and episodes:
        lines = writer.daily(day, episodes)
        if lines is not None:
            lines = [_standing(ln, _sources_of(ln, episodes)) for ln in lines]
    if lines is None:
        lines = deterministic_lines(episodes)
    path = f"daily/{day}.md"
    title = f"Daily note: {day}"
    existing = {fmt.normalise(e.text) for e in ctx.doc(path).entries} if path in ctx.tree else set()
    for line in lines:
        text = " ".join(line.text.split())
        if not text or fmt.normalise(text) in existing or secrets.first(text):
            continue
        existing.add(fmt.normalise(text))
        meta = [("source", s) for s in line.sources[:3]]
        meta += [("added", ctx.today.isoformat()), ("by", DREAM_BY)]
        meta += [("from", ", ".join(line.writers))] if line.writers else []
        meta += [("status", line.standing or standing.TENTATIVE)]
        result.ops.append(AddEntry(path, text, tuple(meta), title=title))
    result.facts = {"episodes": len(episodes), "lines": len(result.ops), "path": path}
    # lessons the per-PR gate made active during the day, for the digest
    # (hippo's own records only: an agent's line saying a lesson became active is not one)
    result.facts["activated"] = [
        str(lesson["text"])
        for ep in episodes
        if isinstance(lesson := ep.raw.get("lesson"), dict)
        and lesson.get("status") == "active"
        and ep.writer[0] == standing.ACTIVE
    ]
    if result.ops:
        result.subject = f"{path}: {len(result.ops)} lines from {len(episodes)} episodes"
        result.body = [f"- {op.text}" for op in result.ops if isinstance(op, AddEntry)]
    return result
