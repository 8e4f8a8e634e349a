"""Pitfalls: an agent pull request repeating a mistake that a lesson recorded, line by line.

Pure and deterministic. When a lesson is learned (memory.lessons.planner) it records what the check
needs in its `pitfall:` metadata: the code names people removed from the agent's change and did
not put back (`mock` when they replaced `mock.Mock()` by a fixture), next to the `scope` (kinds
of files, `tests/unit/*.py`) its `signature` already holds. `find` reads the added lines of a
diff and flags each one, in a file of the lesson's scope, that uses such a name again. Lessons
learned before `pitfall:` existed fall back to the signature's removed words.
"""

from __future__ import annotations

import keyword
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

import memory.format.lines as textlines
from memory import format as fmt
from memory.lessons.pull_requests import FileDiff, Signature, file_kind

ACTIVE = "active"
MAX_NEEDLES = 6
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
# Names too common to say anything about a convention (besides the language's keywords).
_PLAIN = frozenset(
    re.findall(
        r"\w+",
        "self cls none true false null nil this args kwargs str int bool len print var let const "
        "function return the and for with from not",
    )
)


@dataclass(frozen=True)
class Pitfall:
    """One lesson as the check uses it."""

    text: str
    scope: frozenset[str]  # kinds of files: 'tests/unit/*.py'
    needles: tuple[str, ...]  # code names people removed ('mock', 'requests.get')
    words: frozenset[str] = frozenset()  # fallback: the signature's removed words (lower case)
    sources: tuple[str, ...] = ()
    status: str = ACTIVE


@dataclass(frozen=True)
class AddedLine:
    path: str
    line: int  # 1-based, in the pull request's head version of the file
    text: str


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    text: str  # the added line
    lesson: str
    matched: str  # the name (or word) that matched; 'Claude' for a finding Claude added
    sources: tuple[str, ...] = ()
    reason: str = ""  # Claude's words, when it added the finding


def _names(line: str) -> list[str]:
    return _NAME.findall(line)


def _plain(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return len(name) < 3 or keyword.iskeyword(name) or last.lower() in _PLAIN


def _covers(needle: str, name: str) -> bool:
    """`mock` covers `mock`, `mock.Mock`, `unittest.mock.patch`: a run of whole segments."""
    want, have = needle.split("."), name.split(".")
    n = len(want)
    return any(have[i : i + n] == want for i in range(len(have) - n + 1))


def needles(removed: Iterable[str], added: Iterable[str]) -> tuple[str, ...]:
    """The code names in `removed` lines that no `added` line uses, most frequent first.

    A name already covered by a shorter needle is dropped (`mock` makes `mock.Mock` redundant).
    """
    kept = [name for line in added for name in _names(line)]
    counts: Counter[str] = Counter()
    for line in removed:
        for name in _names(line):
            if not _plain(name) and not any(_covers(name, k) for k in kept):
                counts[name] += 1
    ranked = sorted(counts, key=lambda n: (-counts[n], n.count("."), n))
    out: list[str] = []
    for name in ranked:
        if not any(_covers(n, name) for n in out):
            out.append(name)
    return tuple(out[:MAX_NEEDLES])


def needles_of(diff: Sequence[FileDiff]) -> tuple[str, ...]:
    """The needles of a human edit (what people changed after the agent)."""
    removed = [ln for d in diff for h in d.hunks for ln in h.removed]
    added = [ln for d in diff for h in d.hunks for ln in h.added]
    return needles(removed, added)


def render(names: Iterable[str]) -> str:
    return " ".join(names)


def parse(value: str | None) -> tuple[str, ...]:
    return tuple(v for v in (value or "").split() if _NAME.fullmatch(v))


def pitfalls(conventions: str | None, statuses: Sequence[str] = (ACTIVE,)) -> list[Pitfall]:
    """The lessons of a `conventions/<owner>/<repo>.md` text the check can match."""
    out: list[Pitfall] = []
    for entry in fmt.parse(conventions).entries if conventions else []:
        status = entry.get("status") or ""
        sig = Signature.parse(entry.get("signature") or "")
        if status not in statuses or sig is None or sig.kind != "edit":
            continue
        found = parse(entry.get("pitfall"))
        if not found and not sig.removed:
            continue
        sources = tuple(entry.get_all("source"))
        out.append(Pitfall(entry.text, sig.scope, found, sig.removed, sources, status))
    return out


def in_scope(path: str, scope: Iterable[str]) -> bool:
    kind = file_kind(path)
    return any(k == kind or ("/" in k and fnmatchcase(path, k)) for k in scope)


def added_lines(path: str, patch: str | None) -> list[AddedLine]:
    """The added lines of one file's unified diff (GitHub's `patch` field), with line numbers."""
    out: list[AddedLine] = []
    line = 0
    for raw in textlines.split(patch or ""):  # git's lines: "\n" only
        header = _HUNK.match(raw)
        if header:
            line = int(header.group(1))
        elif raw.startswith("+") and not raw.startswith("+++"):
            out.append(AddedLine(path, line, raw[1:]))
            line += 1
        elif not raw.startswith(("-", "\\")):
            line += 1  # a context line
    return out


def _match(pit: Pitfall, text: str) -> str:
    names = _names(text)
    for needle in pit.needles:
        if any(_covers(needle, name) for name in names):
            return needle
    if not pit.needles:
        words = {w.lower() for w in _WORD.findall(text)}
        return next((w for w in sorted(pit.words) if w in words), "")
    return ""


def find(pits: Sequence[Pitfall], lines: Iterable[AddedLine]) -> list[Finding]:
    """One finding per added line that repeats a pitfall (the first lesson it matches)."""
    out: list[Finding] = []
    for added in lines:
        for pit in pits:
            if not in_scope(added.path, pit.scope):
                continue
            matched = _match(pit, added.text)
            if matched:
                out.append(
                    Finding(added.path, added.line, added.text, pit.text, matched, pit.sources)
                )
                break
    return out


# --- findings Claude adds (integrations.pitfalls_llm asks; this checks what it answered) --------

_CLAIM = re.compile(
    r"^\s*[-*]?\s*`?(?P<path>[^\s:`]+):(?P<line>\d+)`?\s+L(?P<lesson>\d+)\b[:\s-]*(?P<why>.*)$"
)
MAX_REASON = 300


def prompt(pits: Sequence[Pitfall], lines: Sequence[AddedLine], limit: int = 400) -> str:
    """What Claude reads: the numbered lessons, then the added lines as `path:line: text`."""
    out = ["Lessons:"]
    out.extend(f"L{i}: {p.text}" for i, p in enumerate(pits, 1))
    out.append("")
    out.append("Added lines:")
    out.extend(f"{a.path}:{a.line}: {a.text}" for a in lines[:limit])
    return "\n".join(out)


def claims(answer: str, pits: Sequence[Pitfall], lines: Sequence[AddedLine]) -> list[Finding]:
    """Claude's answer lines `path:line L<n> why`, kept only when the line is one the diff added
    and L<n> is a lesson it was shown: a finding always cites a real lesson on a real line."""
    added = {(a.path, a.line): a for a in lines}
    out: list[Finding] = []
    for raw in answer.splitlines():  # Claude's answer, not git text: any line break will do
        m = _CLAIM.match(raw)
        if not m:
            continue
        index, where = int(m["lesson"]), (m["path"], int(m["line"]))
        if not 1 <= index <= len(pits) or where not in added:
            continue
        pit, line = pits[index - 1], added[where]
        why = " ".join(m["why"].split())[:MAX_REASON]
        out.append(Finding(line.path, line.line, line.text, pit.text, "Claude", pit.sources, why))
    return out


def merge(found: Sequence[Finding], more: Sequence[Finding]) -> list[Finding]:
    """The deterministic findings, then Claude's on lines they did not flag (one per line)."""
    seen = {(f.path, f.line) for f in found}
    out = list(found)
    for f in more:
        if (f.path, f.line) not in seen:
            seen.add((f.path, f.line))
            out.append(f)
    return out
