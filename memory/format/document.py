"""A markdown note parsed: its lines, entries, headings and `## Index` section, and edits of its
text by line.

The parser never raises: any text parses to a Document whose unchanged rendering is
byte-identical. Lines are split as git counts them (decision 15, memory/format/lines.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import memory.format.lines as textlines
from memory.format.entry import Entry, parse_entry
from memory.format.links import LINK

_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")


class Heading(NamedTuple):
    line: int  # 0-based
    level: int  # the number of '#'
    text: str


@dataclass
class Document:
    """A parsed markdown file. `lines` keep their line endings, so rendering is byte-exact."""

    lines: list[str]
    entries: list[Entry] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    index_span: tuple[int, int] | None = None  # [start, end) lines of the ## Index section

    @property
    def title(self) -> str:
        """The first line's text without '#' marks: what the file is about."""
        for raw in self.lines:
            s = raw.strip()
            if s:
                return s.lstrip("#").strip()
        return ""

    def render(self) -> str:
        return "".join(self.lines)

    def links(self) -> list[str]:
        """Every [[link]] target in the file outside code fences, in order."""
        out: list[str] = []
        for i, raw in enumerate(self.lines):
            if i in self._fenced:
                continue
            out.extend(m.group(1) for m in LINK.finditer(raw))
        return out

    def index_entries(self) -> list[Entry]:
        if self.index_span is None:
            return []
        lo, hi = self.index_span
        return [e for e in self.entries if lo <= e.line < hi]

    def top_entries(self) -> list[Entry]:
        """Entries above ## Index (or all of them when there is none)."""
        lo = self.index_span[0] if self.index_span else len(self.lines)
        return [e for e in self.entries if e.line < lo]

    def entry_at(self, line: int) -> Entry | None:
        for e in self.entries:
            if e.line == line:
                return e
        return None

    _fenced: frozenset[int] = frozenset()


def parse(text: str) -> Document:
    """Parse a markdown note. Never raises."""
    lines = textlines.split_keep(text)  # decision 15
    doc = Document(lines=lines)
    fenced: set[int] = set()
    in_fence: str | None = None
    stack: list[tuple[int, int]] = []  # (indent, line) of open bullets
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        fence = _FENCE.match(line)
        if in_fence is not None:
            fenced.add(i)
            if fence and fence.group(1) == in_fence:
                in_fence = None
            continue
        if fence:
            in_fence = fence.group(1)
            fenced.add(i)
            continue
        heading = _HEADING.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2).strip()
            doc.headings.append(Heading(i, level, title))
            stack.clear()
            continue
        entry = parse_entry(line, i)
        if entry is None:
            if line.strip() and not line[:1].isspace():
                stack.clear()
            continue
        while stack and stack[-1][0] >= entry.indent:
            stack.pop()
        if stack:
            entry = replace(entry, parent=stack[-1][1])
        stack.append((entry.indent, i))
        doc.entries.append(entry)
    doc._fenced = frozenset(fenced)
    doc.index_span = _index_span(doc.headings, len(lines))
    return doc


def _index_span(headings: list[Heading], n: int) -> tuple[int, int] | None:
    for pos, (line, level, title) in enumerate(headings):
        if level == 2 and title.lower() == "index":
            end = next((h.line for h in headings[pos + 1 :] if h.level <= 2), n)
            return line, end
    return None


def replace_line(doc_text: str, line_no: int, new_line: str) -> str:
    """`doc_text` with line `line_no` replaced, its line ending kept; other bytes untouched."""
    lines = textlines.split_keep(doc_text)
    old = lines[line_no]
    ending = old[len(old.rstrip("\r\n")) :]
    lines[line_no] = new_line + ending
    return "".join(lines)


def append_line(doc_text: str, new_line: str) -> str:
    """`doc_text` with `new_line` appended as its last line (newline-terminated)."""
    if doc_text and not doc_text.endswith("\n"):
        doc_text += "\n"
    return doc_text + new_line + "\n"
