"""Briefings: what an agent should know before it works on a task, within a token budget.

One function (`build`) behind three doors: the MCP tool `brief`, `hippo brief`, and the Slack
agent's prompt (every thread: from its question, or for the repository it names). In order: the
repository's conventions and pitfalls (`conventions/<owner>/<repo>.md`; those whose recorded
scope matches the given paths first), the repository's preferences, the team's conventions
sharing the task's words (`conventions/team.md`, taught in Slack threads), the channel's
preferences (from Slack), then the best memory hits for the task's words. Every line says its
source and status; tentative ones are marked, revoked ones and tombstones never appear. Pure
and deterministic: the same tree and arguments give the same bytes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import memory.facts.tombstones as tombstones
import memory.trust.standing as standing
from memory import format as fmt
from memory import repo_prefs
from memory.errors import MemoryStoreError, TombstoneConflict
from memory.lessons.pull_requests import Signature, file_kind
from memory.lessons.thread_planner import TEAM_CONVENTIONS

DEFAULT_BUDGET = 1500
MIN_BUDGET = 100
MAX_BUDGET = 50_000
BYTES_PER_TOKEN = 4
ESTIMATE = "estimated at 4 bytes of UTF-8 per token, no tokenizer"
MEMORY_HITS = 12
MAX_CITE = 160  # characters of a forgotten fact's record quoted beside a line repeating it
MAX_TASK = 2000  # characters of a task that count; a longer one is cut (its words still rank)
INDEX_FILE = "MEMORY.md"  # its `## Index` lines are links, not facts

CONVENTIONS, REPO_PREFS, CHANNEL_PREFS, MEMORY = (
    "conventions",
    "repository preferences",
    "channel preferences",
    "memory",
)
REMINDERS = "reminders"  # memory/reminders/show.py: due, overdue, pending for the task
HEADINGS = {
    REMINDERS: "Reminders (due, overdue, or pending on what the task is about)",
    CONVENTIONS: "Conventions and pitfalls",
    REPO_PREFS: "Repository preferences",
    CHANNEL_PREFS: "Channel preferences",
    MEMORY: "From memory",
}
_WORD = re.compile(r"[^\W_][\w-]{2,}")
_STOP = frozenset(
    re.findall(
        r"\w+",
        """the and for with this that from into onto not are was were you your our their its but all
    any can has have had will would should could just also only than then them they there here
    what which when where who how why please make sure about after before each some more most
    add fix use new get set let want need does did done being been over under""",
    )
)


def estimate_tokens(text: str) -> int:
    """Tokens without a tokenizer: one per BYTES_PER_TOKEN bytes of UTF-8, rounded up. English
    and code run near four characters a token; other scripts use more bytes per character, so
    the estimate leans high rather than overrunning a budget."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


class Reader(Protocol):
    """What a briefing reads (memory.git.store.Store fits)."""

    def read_or_none(self, path: str, commit: str | None = None) -> str | None: ...

    def search(self, query: str, limit: int = 20) -> list[Any]: ...


@dataclass(frozen=True)
class Line:
    """One line of a briefing: what it says, where it comes from, and how sure it is."""

    section: str
    text: str
    source: str  # the entry's `source:` values, else its place in memory
    status: str  # active | tentative
    where: str  # path:line in the memory
    kind: str = ""  # pattern, pitfall, … when the entry records one
    contradicts: str = ""  # the entry this tentative one disputes (memory/trust/agent_gate.py)

    def render(self) -> str:
        kind = f" {self.kind}" if self.kind else ""
        disputed = f"; contradicts “{self.contradicts}”" if self.contradicts else ""
        where = f"(source: {self.source}; {self.where})"
        return f"- [{self.status}{kind}{disputed}] {self.text} {where}"

    def as_dict(self) -> dict[str, str]:
        return {
            "section": self.section,
            "text": self.text,
            "source": self.source,
            "status": self.status,
            "where": self.where,
            "kind": self.kind,
            "contradicts": self.contradicts,
        }


@dataclass(frozen=True)
class Briefing:
    repo: str
    task: str
    paths: tuple[str, ...]
    budget: int
    lines: tuple[Line, ...] = ()
    left_out: int = 0
    text: str = ""
    tokens: int = 0
    lessons: tuple[str, ...] = field(default=())  # convention entries included (their text)

    def as_dict(self) -> dict[str, Any]:
        return {
            "repo": self.repo,
            "task": self.task,
            "paths": list(self.paths),
            "budget": self.budget,
            "tokens": self.tokens,
            "estimate": ESTIMATE,
            "left_out": self.left_out,
            "lines": [line.as_dict() for line in self.lines],
            "text": self.text,
        }


class BadBrief(MemoryStoreError, ValueError):
    """A briefing asked for wrongly (no task, a budget out of range); says what to give."""


def task_words(task: str) -> list[str]:
    """The task's words that can find something: 3+ letters, not filler, once each, in order."""
    words = (w.lower() for w in _WORD.findall(task[:MAX_TASK]))
    return [w for w in dict.fromkeys(words) if w not in _STOP]


def path_matches(path: str, kind: str) -> bool:
    """A path given for the task against a lesson's recorded scope (`tests/unit/*.py`): the
    same directory and extension, or a directory holding the scope's directory."""
    p = path.strip().removeprefix("./").strip("/")
    if not p:
        return False
    if file_kind(p) == kind:
        return True
    folder = kind.rpartition("/")[0]
    return bool(folder) and (folder == p or folder.startswith(p + "/"))


def _status(entry: fmt.Entry) -> str:
    return standing.of(entry)


def _line(section: str, path: str, entry: fmt.Entry) -> Line:
    sources = entry.get_all("source") + entry.get_all("evidence")
    where = f"{path}:{entry.line + 1}"
    source = ", ".join(dict.fromkeys(sources)) or where
    kind, disputed = entry.get("kind") or "", entry.get("contradicts") or ""
    return Line(section, entry.text, source, _status(entry), where, kind, disputed)


@dataclass(frozen=True)
class _Known:
    """What ranking needs of one live entry, worked out once per file text."""

    entry: fmt.Entry
    scope: tuple[str, ...]
    said: frozenset[str]  # words of its text and of its recorded signature
    base: int  # 2 when active, +1 for a pitfall


@functools.lru_cache(maxsize=64)
def _known(path: str, text: str) -> tuple[tuple[_Known, ...], tuple[Line, ...]]:
    """A file's live entries, parsed once per text (a web or MCP process briefs on the same
    files again and again), with their briefing lines."""
    known, lines = [], []
    for e in fmt.parse(text).entries:
        if _status(e) == "revoked":
            continue
        sig = Signature.parse(e.get("signature") or "")
        signed = (sig.added | sig.removed) if sig else frozenset()
        said = frozenset(w.lower() for w in _WORD.findall(e.text)) | signed
        base = 2 * (_status(e) == "active") + ((e.get("kind") or "") == "pitfall")
        scope = tuple(s for s in (e.get("scope") or "").split(",") if s)
        known.append(_Known(e, scope, said, base))
        lines.append(_line("", path, e))
    return tuple(known), tuple(lines)


def lessons(path: str, text: str | None, paths: Sequence[str], words: Sequence[str]) -> list[Line]:
    """The repository's live conventions, best first: matching a given path, active before
    tentative, pitfalls, sharing the task's words (text or signature); then file order."""
    if not text:
        return []
    known, lines = _known(path, text)
    wanted = set(words)
    ranked = []
    for i, k in enumerate(known):
        score = k.base + len(wanted & k.said)
        score += 4 * any(path_matches(p, kind) for p in paths for kind in k.scope)
        ranked.append((-score, i))
    return [replace(lines[i], section=CONVENTIONS) for _, i in sorted(ranked)]


def team_lessons(path: str, text: str | None, words: Sequence[str]) -> list[Line]:
    """The team's conventions (`conventions/team.md`, taught in Slack threads) that share a word
    with the task, most shared first, active before tentative, pitfalls; the rest stay out."""
    if not text:
        return []
    known, lines = _known(path, text)
    wanted = set(words)
    ranked = [(-(k.base + 3 * n), i) for i, k in enumerate(known) if (n := len(wanted & k.said))]
    return [replace(lines[i], section=CONVENTIONS) for _, i in sorted(ranked)]


def preferences(section: str, path: str, text: str | None) -> list[Line]:
    if not text:
        return []
    return [replace(line, section=section) for line in _known(path, text)[1]]


def memory_hits(reader: Reader, words: Sequence[str], skip: set[str]) -> list[Line]:
    """The best entries for the task's words, outside the files already shown; never a line
    that is not an entry (prose, headings, code, `MEMORY.md`'s index, the files hippo keeps for
    itself: memory/trust/standing.py), nor the archive, tombstones, proposals or reminders, nor
    a revoked entry. Each says its standing, by who wrote it."""
    if not words:
        return []
    out = []
    stones = _stones(reader.read_or_none(tombstones.PATH) or "")
    for hit in reader.search(" ".join(words), limit=MEMORY_HITS * 2):
        # reminders.md: its open reminders lead the briefing; closed ones are not knowledge
        if hit.path in skip or hit.path == fmt.REMINDERS or not standing.holds_facts(hit.path):
            continue
        found = _entry_of(reader, hit)
        if found is None:
            continue
        text, meta = found
        status = standing.of_meta(meta)
        if status == standing.REVOKED:
            continue
        where = f"{hit.path}:{hit.line}"
        source, kind = meta.get("source") or where, meta.get("kind", "")
        disputed = meta.get("contradicts", "")
        forgotten = _forgotten(text, stones)
        if forgotten:  # a plain push brought it back: the dream removes it, never active
            status, disputed = standing.TENTATIVE, forgotten
        out.append(Line(MEMORY, text, source, status, where, kind, disputed))
    return out[:MEMORY_HITS]


def _entry_of(reader: Reader, hit: Any) -> tuple[str, dict[str, str]] | None:
    """The entry a search hit is (its text and metadata), or None when the line is none: a
    markdown file's bullets outside code fences are entries (the index knows them), except
    `MEMORY.md`'s index lines; a file of another kind (`.txt`) is read as entries too."""
    if hit.path.endswith(".md") and hit.path != INDEX_FILE:
        return (hit.text, dict(hit.meta)) if hit.entry else None
    doc = _parsed(hit.path, reader.read_or_none(hit.path) or "")
    entry = doc.entry_at(hit.line - 1)
    span = doc.index_span
    if entry is None or (span is not None and span[0] <= entry.line < span[1]):
        return None
    return entry.text, entry.metadata


@functools.lru_cache(maxsize=4)
def _stones(text: str) -> tombstones.Stones:
    return tombstones.load(text)


def _forgotten(text: str, stones: tombstones.Stones) -> str:
    """The forgotten fact (forgotten.md) `text` says again, quoted, or ''."""
    try:
        tombstones.check(text, stones, person=True)
    except TombstoneConflict as exc:
        cited = " ".join(exc.tombstone.split())
        return cited if len(cited) <= MAX_CITE else cited[: MAX_CITE - 1] + "…"
    return ""


@functools.lru_cache(maxsize=16)
def _parsed(path: str, text: str) -> fmt.Document:
    return fmt.parse(text)


def build(
    reader: Reader,
    task: str,
    *,
    repo: str = "",
    paths: Sequence[str] = (),
    channel: tuple[str, str | None] | None = None,
    budget: int = DEFAULT_BUDGET,
    reminders: Sequence[Line] = (),
) -> Briefing:
    """The briefing for `task` (in `repo`, touching `paths`); `channel` is (its preferences
    file, its text) when called from Slack; `reminders` lead it (memory/reminders/show.py).
    Raises BadBrief or repo_prefs.BadRepo."""
    task = " ".join(task.split())
    if not task:
        raise BadBrief("say what the task is, e.g. 'add a refund endpoint'")
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise BadBrief(f"the budget is {MIN_BUDGET}-{MAX_BUDGET} tokens, not {budget}")
    repo = repo_prefs.check_repo(repo) if repo else ""
    words = task_words(task)
    lines: list[Line] = list(reminders)
    shown: set[str] = set()
    if repo:
        conv, prefs = repo_prefs.conventions_for(repo), repo_prefs.path_for(repo)
        lines += lessons(conv, reader.read_or_none(conv), paths, words)
        lines += preferences(REPO_PREFS, prefs, reader.read_or_none(prefs))
        shown |= {conv, prefs}
    if TEAM_CONVENTIONS not in shown:
        lines += team_lessons(TEAM_CONVENTIONS, reader.read_or_none(TEAM_CONVENTIONS), words)
        shown.add(TEAM_CONVENTIONS)
    if channel is not None:
        lines += preferences(CHANNEL_PREFS, channel[0], channel[1])
        shown.add(channel[0])
    lines += memory_hits(reader, words, shown)
    return fit(Briefing(repo, task, tuple(paths), budget), lines)


def _header(b: Briefing, tokens: int) -> list[str]:
    where = f" in {b.repo}" if b.repo else ""
    paths = f" (paths: {', '.join(b.paths)})" if b.paths else ""
    return [
        f"Briefing{where} for: {b.task}{paths}",
        f"~{tokens:,} of {b.budget:,} tokens ({ESTIMATE}). Entries are data written by people "
        "and agents, true when written; [tentative] ones are not yet confirmed.",
    ]


def _render(b: Briefing, lines: Sequence[Line], left_out: int, tokens: int) -> str:
    out = _header(b, tokens)
    section = ""
    for line in lines:
        if line.section != section:
            section = line.section
            out += ["", HEADINGS[section] + ":"]
        out.append(line.render())
    if not lines:
        out += ["", "Nothing in memory for this yet."]
    if left_out:
        out += ["", f"{left_out} more lines left out to stay within the budget."]
    return "\n".join(out) + "\n"


def fit(b: Briefing, lines: Sequence[Line]) -> Briefing:
    """Keep lines in order while the whole text (header and all) stays within the budget; a
    long line that does not fit is skipped and a shorter later one may still be kept. The
    stated count is the estimate of the very text returned."""
    size = len(_render(b, [], len(lines), b.budget).encode("utf-8"))  # header and the tail
    limit, kept, opened = b.budget * BYTES_PER_TOKEN, [], set()
    for line in lines:
        cost = len(line.render().encode("utf-8")) + 1
        if line.section not in opened:
            cost += len(HEADINGS[line.section]) + 3
        if size + cost <= limit:
            kept.append(line)
            opened.add(line.section)
            size += cost
    left = len(lines) - len(kept)
    text = _render(b, kept, left, b.budget)
    for _ in range(3):  # the stated count is part of the text: settle it
        text = _render(b, kept, left, estimate_tokens(text))
    taught = tuple(x.text for x in kept if x.section == CONVENTIONS)
    return Briefing(
        b.repo, b.task, b.paths, b.budget, tuple(kept), left, text, estimate_tokens(text), taught
    )
