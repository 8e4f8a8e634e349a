"""Check a memory tree for problems a person should fix: a missing or oversized MEMORY.md, broken
[[links]], secrets, malformed metadata, and broken dreaming state or archive files.

Pure: it takes the tree (path -> bytes) and returns problems; it never raises on file content.
A secret is reported by kind and place only, never echoed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import memory.format.lines as textlines
import memory.format.tags as tags
from memory import secrets
from memory.format import (
    INDEX_MAX_BYTES,
    INDEX_MAX_LINES,
    KINDS,
    REMINDERS,
    STATUSES,
    Document,
    escape_text,
    link_target,
    links_in,
    parse,
)

INDEX = "MEMORY.md"
STATE = ".dream/state.json"
DATE_KEYS = frozenset({"added", "verified", "removed", "due", "until", "done"})
REMINDER_TIMES = ("due", "until", "when")  # decision 17: a reminder has one of them
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_KEYISH = re.compile(r"^\s*[^\s:\[\]][^:\[\]]{0,40}:")  # 'something:' at the start of a part


@dataclass(frozen=True)
class Problem:
    """One thing to fix, at a path and a 1-based line (0 for the whole file)."""

    path: str
    line: int
    code: str
    message: str

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "code": self.code, "message": self.message}

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.code}: {self.message}"


def lint(tree: Mapping[str, bytes], progress: Callable[[str], None] | None = None) -> list[Problem]:
    """Every problem in `tree`, sorted by path and line. `progress(path)` follows each file."""
    problems: list[Problem] = []
    problems.extend(_check_index(tree))
    for path in sorted(tree):
        if progress is not None:
            progress(path)
        raw = tree[path]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            if path.endswith(".md") or path == STATE or _is_archive(path):
                problems.append(Problem(path, 0, "not-utf8", "not UTF-8 text; save it as UTF-8"))
            continue
        if "\0" in text:
            continue  # binary
        problems.extend(_check_secrets(path, text))
        if path.endswith(".md"):
            doc = parse(text)
            problems.extend(_check_links(path, doc, tree))
            problems.extend(_check_metadata(path, doc))
        elif path == STATE:
            problems.extend(_check_json(path, text))
        elif _is_archive(path):
            problems.extend(_check_jsonl(path, text))
    return sorted(problems, key=lambda p: (p.path, p.line, p.code))


def _check_index(tree: Mapping[str, bytes]) -> Iterator[Problem]:
    raw = tree.get(INDEX)
    if raw is None:
        # Decision 1: the union of the spec versions makes MEMORY.md required.
        yield Problem(INDEX, 0, "missing-index", "MEMORY.md is missing; create it with `# Memory`")
        return
    lines = textlines.count(raw.decode("utf-8", "replace"))
    if lines > INDEX_MAX_LINES:
        yield Problem(
            INDEX,
            0,
            "index-too-long",
            f"{lines} lines, over the {INDEX_MAX_LINES}-line budget; move entries to topic files",
        )
    if len(raw) > INDEX_MAX_BYTES:
        yield Problem(
            INDEX,
            0,
            "index-too-large",
            f"{len(raw):,} bytes, over the {INDEX_MAX_BYTES:,}-byte budget; "
            "move entries to topic files",
        )


def _check_secrets(path: str, text: str) -> Iterator[Problem]:
    for hit in secrets.scan(text):
        line = text.count("\n", 0, hit.start) + 1
        yield Problem(
            path,
            line,
            "secret",
            f"looks like a {hit.kind}; remove it (and rotate it if it was real)",
        )


def _check_links(path: str, doc: Document, tree: Mapping[str, bytes]) -> Iterator[Problem]:
    # The parser's own record of code-fence lines, where [[...]] is code, not a link.
    fenced = doc._fenced
    for i, raw in enumerate(doc.lines):
        if i in fenced:
            continue
        for link in links_in(raw):
            target = link_target(link)
            if target is None:
                yield Problem(
                    path,
                    i + 1,
                    "invalid-link",
                    f"[[{link}]] is not a valid link; use a path from the memory root, "
                    "without '..' or a leading '/'",
                )
            elif target not in tree:
                yield Problem(
                    path, i + 1, "broken-link", f"[[{link}]] points to {target}, which is missing"
                )


def _check_metadata(path: str, doc: Document) -> Iterator[Problem]:
    for entry in doc.entries:
        for code, message in entry_problems(entry.text, entry.meta, path=path):
            yield Problem(path, entry.line + 1, code, message)
        written = escape_text(entry.text)
        escaped = written != entry.text and written in doc.lines[entry.line]
        bad_bracket = None if escaped else _malformed_bracket(entry.text)
        if bad_bracket:
            yield Problem(path, entry.line + 1, "bad-key", bad_bracket)


def entry_problems(
    text: str, meta: Sequence[tuple[str, str]], *, path: str = ""
) -> list[tuple[str, str]]:
    """(code, message) for each metadata rule the entry (`text` and `meta`, in the file `path`)
    breaks. The write path (memory/writes/apply.py) refuses what this reports, so what lint
    rejects is never committed. A text's own trailing bracket is no metadata rule: hippo writes
    it escaped (decision 20); lint reports one a person left unescaped (`_check_metadata`)."""
    out: list[tuple[str, str]] = []
    if path == REMINDERS and not any(k.lower() in REMINDER_TIMES for k, _ in meta):
        out.append(
            (
                "bad-reminder",
                f"a reminder in {REMINDERS} needs a time: [due: YYYY-MM-DD], "
                "[until: YYYY-MM-DD] or [when: <trigger>]",
            )
        )
    for key, value in meta:
        k = key.lower()
        if not _KEY.match(key):
            out.append(
                (
                    "bad-key",
                    f"metadata key {key!r} is malformed (keys are a letter, then "
                    "letters, digits, '-' or '_')",
                )
            )
        elif not value.strip():
            out.append(("empty-value", f"'{key}' has no value"))
        elif k in DATE_KEYS and not _is_date(value):
            out.append(("bad-date", f"'{key}: {value}' is not a date (YYYY-MM-DD)"))
        elif k == "status" and value.strip().lower() not in STATUSES:
            allowed = " | ".join(sorted(STATUSES))
            out.append(("bad-status", f"'status: {value}' is not one of {allowed}"))
        elif k == "kind" and value.strip().lower() not in KINDS:
            out.append(("bad-kind", f"'kind: {value}' is not one of {' | '.join(KINDS)}"))
        elif k == tags.KEY and (why := tags.problem(value)) is not None:
            out.append(("bad-tag", why))
    return out


def _malformed_bracket(text: str) -> str | None:
    """A message when the entry ends in a bracket that looks like metadata (`key: value` parts)
    but that the parser left in the text because a key is malformed; None otherwise. `[WIP]`,
    `[sic]`, markdown links and `[[links]]` are text, not metadata (decisions 2 and 6)."""
    stripped = text.rstrip()
    if not stripped.endswith("]") or stripped.endswith("]]"):
        return None
    start = stripped.rfind("[")
    if start < 0 or (start > 0 and stripped[start - 1] in "[\\"):
        return None  # a [[link]]'s tail, or an escaped bracket: text (decision 20)
    parts = stripped[start + 1 : -1].split(";")
    if not all(_KEYISH.match(p) for p in parts):
        return None
    bad = [p.split(":", 1)[0].strip() for p in parts if not _KEY.match(p.split(":", 1)[0].strip())]
    if not bad:
        return None
    return (
        f"metadata key {bad[0]!r} is malformed (keys are a letter, then letters, digits, "
        "'-' or '_'), so the bracket is read as text"
    )


def _is_archive(path: str) -> bool:
    return path.startswith("archive/") and path.endswith(".jsonl")


def _is_date(value: str) -> bool:
    value = value.strip()
    if not _DATE.match(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _check_json(path: str, text: str) -> Iterator[Problem]:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        yield Problem(path, exc.lineno, "bad-json", f"not valid JSON: {exc.msg}")
    except RecursionError:  # "[[[[…" thousands deep: Python's parser gives up
        yield Problem(path, 1, "bad-json", "nested too deep to read: flatten it")


def _check_jsonl(path: str, text: str) -> Iterator[Problem]:
    for i, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except json.JSONDecodeError as exc:
            yield Problem(path, i, "bad-jsonl", f"line is not valid JSON: {exc.msg}")
        except RecursionError:
            yield Problem(path, i, "bad-jsonl", "line is nested too deep to read: flatten it")
