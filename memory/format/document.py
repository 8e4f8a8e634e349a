"""A markdown note parsed: its lines, headings, `## Index` section and entries, edits of its text
by line; and one entry: a bullet on one line, its text, its metadata brackets and its [[links]],
parsed and rendered (memory/format/facts.py reduces its text for comparing facts).

The parser never raises: any text parses to a Document whose unchanged rendering is
byte-identical. Lines are split as git counts them (decision 15, memory/format/lines.py).
Decisions 2–7 (memory/format/decisions.py): metadata brackets trail the text, keys are
case-insensitive, values percent-escaped by one bijection (`escape_value`/`unescape_value`).
Decision 9: a [[link]] names a repository path. Decision 20: an entry's text that ends in a
bracket a reader would take for metadata is written with `\\[` (escape_text/unescape_text).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import NamedTuple

import memory.format.lines as textlines
from memory.format.decisions import KNOWN_KEYS

BULLET = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,9}[.)])(?P<gap>[ \t]+)(?P<rest>.*)$")
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_ESCAPES = {"%": "%25", ";": "%3B", "[": "%5B", "]": "%5D", "\n": "%0A", "\r": "%0D"}
_UNESCAPES = {code[1:]: raw for raw, code in _ESCAPES.items()}
_CODE = re.compile("%(" + "|".join(_UNESCAPES) + ")", re.IGNORECASE)
LINK = re.compile(r"\[\[([^\[\]\n]*)\]\]")
SHARED_VALUE = 16  # metadata values up to this long are shared between entries (`_pair`)


@dataclass(frozen=True, slots=True)
class Entry:
    """One bullet on one line: its text, its metadata (ordered pairs) and its links. Slotted: a
    dream holds every entry of the memory at once (670,000 at 100,000 files)."""

    line: int
    indent: int
    marker: str
    text: str
    meta: tuple[tuple[str, str], ...] = ()
    links: tuple[str, ...] = ()
    parent: int | None = None  # line of the enclosing bullet (decision 4)

    def get(self, key: str) -> str | None:
        """The first value of `key` (case-insensitive), or None."""
        values = self.get_all(key)
        return values[0] if values else None

    def get_all(self, key: str) -> list[str]:
        k = key.lower()
        return [v for mk, v in self.meta if mk.lower() == k]

    @property
    def metadata(self) -> dict[str, str]:
        """The metadata as a dict, repeated keys joined with ', '."""
        out: dict[str, str] = {}
        for k, v in self.meta:
            key = k.lower()
            out[key] = f"{out[key]}, {v}" if key in out else v
        return out

    def render(self) -> str:
        """This entry as one line (no newline), metadata in one escaped bracket."""
        return render_entry(self.text, self.meta, indent=self.indent, marker=self.marker)

    def with_meta(self, **changes: str | None) -> Entry:
        """A copy with keys set (value) or removed (None); new keys go last, order is kept."""
        meta = list(self.meta)
        for key, value in changes.items():
            key = key.replace("_", "-") if key not in KNOWN_KEYS else key
            idx = [i for i, (k, _) in enumerate(meta) if k.lower() == key.lower()]
            if value is None:
                meta = [m for i, m in enumerate(meta) if i not in idx]
            elif idx:
                meta[idx[0]] = (meta[idx[0]][0], value)
                meta = [m for i, m in enumerate(meta) if i not in idx[1:]]
            else:
                meta.append((key, value))
        return replace(self, meta=tuple(meta))


def parse_entry(line: str, line_no: int = 0) -> Entry | None:
    """Parse one line as an entry, or None when it is not a bullet."""
    return _parse_bullet(line.rstrip("\r\n"), line_no)


def _parse_bullet(line: str, line_no: int) -> Entry | None:
    m = BULLET.match(line)
    if not m:
        return None
    indent, marker, _, rest = m.groups()
    text, meta = split_metadata(rest.rstrip())
    links = tuple(LINK.findall(text)) if "[[" in text else ()
    return Entry(line_no, len(indent.expandtabs(4)), marker, text, meta, links)


def split_metadata(body: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Split an entry body into its text and the trailing metadata brackets (decisions 2, 3, 6)."""
    groups: list[list[tuple[str, str]]] = []
    rest = body.rstrip()
    while rest.endswith("]") and not rest.endswith("]]"):
        start = _bracket_start(rest)
        if start is None:
            break
        if start > 0 and rest[start - 1] in "[\\":
            break  # the tail of a [[link]], or an escaped bracket: text (decision 20)
        pairs = _parse_pairs(rest[start + 1 : -1])
        if pairs is None:
            break
        groups.append(pairs)
        rest = rest[:start].rstrip()
    meta: list[tuple[str, str]] = []
    for pairs in reversed(groups):
        meta.extend(pairs)
    return unescape_text(rest), tuple(meta)


def _text_bracket(text: str) -> tuple[int, int] | None:
    """(where the text's trailing bracket opens, how many backslashes stand before it), when the
    text ends in one bracket (not a [[link]]); else None."""
    if not text.endswith("]") or text.endswith("]]"):
        return None
    start = _bracket_start(text)
    if start is None:
        return None
    slashes = start - len(text[:start].rstrip("\\"))
    return start, slashes


def escape_text(text: str) -> str:
    """An entry's text as written (decision 20): a trailing bracket a reader would take for
    metadata (`[a: 1; b: 2]`, `["x", "host:5000"]`) or one already escaped gets one more `\\`
    before its `[`, so the text reads back as itself, never as metadata."""
    found = _text_bracket(text)
    if found is None:
        return text
    start, slashes = found
    inner = text[start + 1 : -1]
    if not slashes and (
        (start and text[start - 1] == "[")
        or (_parse_pairs(inner) is None and not all(":" in p for p in inner.split(";")))
    ):
        return text  # [WIP], [sic], [[x]: text as it is
    return f"{text[:start]}\\{text[start:]}"


def unescape_text(text: str) -> str:
    """The inverse of `escape_text`: one `\\` before a trailing bracket's `[` removed."""
    found = _text_bracket(text)
    if found is None or not found[1]:
        return text
    return text[: found[0] - 1] + text[found[0] :]


def _bracket_start(s: str) -> int | None:
    """Index of the '[' that opens the bracket closing at the end of `s` (no nesting allowed)."""
    start = s.rfind("[", 0, len(s) - 1)
    if start < 0 or "]" in s[start + 1 : -1]:
        return None
    return start


def _parse_pairs(inner: str) -> list[tuple[str, str]] | None:
    pairs: list[tuple[str, str]] = []
    for part in inner.split(";"):
        key, sep, value = part.partition(":")
        key = key.strip()
        if sep and _KEY.match(key):
            # one string per key name, shared by every entry ("source", "added"): a dream
            # holds every entry's metadata at once
            pairs.append((sys.intern(key), value.strip()))
        elif pairs and "://" in pairs[-1][1]:
            k, v = pairs[-1]
            pairs[-1] = (k, f"{v};{part}".strip())  # a raw ';' inside an old URL (decision 5)
        else:
            return None
    return [_pair(k, unescape_value(v)) for k, v in pairs] or None


@lru_cache(maxsize=4096)
def _shared_pair(key: str, value: str) -> tuple[str, str]:
    return key, value


def _pair(key: str, value: str) -> tuple[str, str]:
    """One metadata pair; a short value's (a date, a status, a scope) is one tuple shared by
    every entry saying it: a dream holds every entry's metadata at once, and at 100,000 files
    a copy of `added: <date>` per entry was 75 MB."""
    return _shared_pair(key, value) if len(value) <= SHARED_VALUE else (key, value)


def escape_value(value: str) -> str:
    """`value` as written inside a metadata bracket (decision 5): the inverse of
    `unescape_value` for every value without leading or trailing whitespace."""
    value = value.strip()
    if not any(c in value for c in _ESCAPES):
        return value  # most values: nothing to escape (a night renders thousands)
    out: list[str] = []
    for i, c in enumerate(value):
        if c == "%":
            # Only a '%' that would read as a code is escaped: a URL's %20 stays readable.
            out.append("%25" if _CODE.match(value, i) else "%")
        else:
            out.append(_ESCAPES.get(c, c))
    return "".join(out)


def unescape_value(value: str) -> str:
    """A written metadata value decoded (decision 5): each code, read left to right, once."""
    if "%" not in value:
        return value  # no code to decode (most values; every parse decodes every value)
    return _CODE.sub(lambda m: _UNESCAPES[m.group(1).upper()], value)


def render_meta(meta: Iterable[tuple[str, str]] | Mapping[str, str]) -> str:
    items = list(meta.items()) if isinstance(meta, Mapping) else list(meta)
    if not items:
        return ""
    return "[" + "; ".join(f"{k}: {escape_value(v)}" for k, v in items) + "]"


def render_entry(
    text: str,
    meta: Sequence[tuple[str, str]] | Mapping[str, str] = (),
    *,
    indent: int = 0,
    marker: str = "-",
) -> str:
    """One entry line, without the newline. Newlines in the text become spaces (one line)."""
    flat = escape_text(" ".join(text.split()))
    tail = render_meta(meta)
    return f"{' ' * indent}{marker} {flat}{' ' + tail if tail else ''}"


# [[links]] in memory text: found, resolved to a path, written for a path (decision 9).


def links_in(text: str) -> list[str]:
    return LINK.findall(text)


def link_target(link: str) -> str | None:
    """The repository path a [[link]] names, or None when it is invalid (decision 9)."""
    target = link.split("|", 1)[0].split("#", 1)[0].strip()
    if not target or target.startswith("/") or "\\" in target:
        return None
    parts = target.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    last = parts[-1]
    return target if "." in last else target + ".md"


def link_for(path: str) -> str:
    """The [[link]] text for a repository path: drop .md, keep other extensions."""
    return path[:-3] if path.endswith(".md") else path


# -- a note ---------------------------------------------------------------------------------------

_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")


class Heading(NamedTuple):
    line: int  # 0-based
    level: int  # the number of '#'
    text: str


@dataclass
class Document:
    """A parsed markdown file: its text, and its `lines` with their line endings, so rendering
    is byte-exact. The lines are split again when first asked for, not kept from the parse: a
    dream holds every file parsed and reads few files' lines (they were a copy of all text)."""

    text: str
    entries: list[Entry] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    index_span: tuple[int, int] | None = None  # [start, end) lines of the ## Index section
    line_count: int = 0
    unclosed: str = ""  # the fence (``` or ~~~) left open at the end: every line after it is code

    @cached_property
    def lines(self) -> list[str]:
        return textlines.split_keep(self.text)

    @property
    def title(self) -> str:
        """The first line's text without '#' marks: what the file is about."""
        for raw in self.lines:
            s = raw.strip()
            if s:
                return s.lstrip("#").strip()
        return ""

    def render(self) -> str:
        return self.text

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
        lo = self.index_span[0] if self.index_span else self.line_count
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
    doc = Document(text, line_count=len(lines))
    fenced: set[int] = set()
    in_fence: str | None = None
    stack: list[tuple[int, int]] = []  # (indent, line) of open bullets
    for i, raw in enumerate(lines):
        line = raw.rstrip("\r\n")
        # the patterns only where they can match: a night parses every line of the memory
        fence = _FENCE.match(line) if "```" in line or "~~~" in line else None
        if in_fence is not None:
            fenced.add(i)
            if fence and fence.group(1) == in_fence:
                in_fence = None
            continue
        if fence:
            in_fence = fence.group(1)
            fenced.add(i)
            continue
        heading = _HEADING.match(line) if line[:1] == "#" else None
        if heading:
            level, title = len(heading.group(1)), heading.group(2).strip()
            doc.headings.append(Heading(i, level, title))
            stack.clear()
            continue
        entry = _parse_bullet(line, i)
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
    doc.unclosed = in_fence or ""
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
