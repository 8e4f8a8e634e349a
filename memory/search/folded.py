"""The folded text of one tree, for search: every UTF-8 text file lower-cased into one bytes blob,
with the offsets that map a match back to its file and line, and per-line features for ranking.

One blob makes a query a few C-speed `bytes.find` passes instead of a Python loop over files.
Pure; built once per commit by `memory.search.SearchIndex`.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from operator import sub

from memory.format import parse

_NEWLINE = re.compile(rb"\n")
_BULLET = re.compile(rb"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")
# The next two start with a literal byte, so re's scanner jumps between candidates instead of
# trying every position (5x faster over a big blob than "(?m)^...").
_BULLET_NL = re.compile(rb"\n[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")
_META_TAIL = re.compile(rb"\[[^\[\]\n]*\]\r?\n")  # a trailing bracket, as metadata ends a line
_SHORT = 5  # terms up to this many bytes are found with re, longer ones with bytes.find
_SAMPLE_WINDOWS = 16
_SAMPLE_SIZE = 1 << 16


def fold(text: str) -> str:
    """Lower case that keeps the length (a character whose lower case is longer stays as it is),
    so folded and original text line up character for character."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


@dataclass
class FoldedText:
    """Files f = 0..n-1 and lines k = 0..m-1 of the folded text. File f spans
    data[starts[f]:starts[f+1]-1] and line k spans data[lines[k]:lines[k+1]-1]; each file ends
    with a b"\\n" of its own, so no line crosses files. Both lists end with len(data).

    A blob grows by `updated`: the old version of a changed file stays where it is, dead and
    blanked (spaces, its newlines kept, so it can never hit), and the new version is appended,
    so a commit costs what it changed plus one copy of the text, not a fold of every file.
    `rank` orders files by path, so hits tie-break as a fresh build of the same tree would."""

    paths: list[str]
    raws: list[bytes]  # the original bytes, to show hits as written
    data: bytes
    starts: list[int]
    lines: list[int]
    ctx: bytes  # one line per file: its folded path and title, where words count for every line
    ctx_starts: list[int]
    titles: list[int]  # the line of each file's first non-blank line
    firsts: list[int]  # per file: its first line (and the number of lines last)
    line_file: list[int]  # per line: its file
    body: list[int]  # per line: bytes before a trailing metadata bracket
    bullet: bytearray  # per line: 1 when it looks like an entry (a bullet in a .md file)
    fenced: set[int]  # files with code fences, where bullet-looking lines may be code
    dead: frozenset[int] = frozenset()  # files replaced or removed since the blob was built
    dead_bytes: int = 0  # the bytes of dead files, blanked but still scanned: a rebuild drops them
    dead_lines: int = 0  # the lines of dead files (size_lines less this: the live lines)
    rank: list[int] = field(default_factory=list)  # per file: its place in path order
    live: dict[str, int] = field(default_factory=dict)  # path -> file, live files only
    _entry_lines: dict[int, frozenset[int]] = field(default_factory=dict)
    # The per-line lists may be longer than this blob's lines: a newer blob grown from this one
    # appends to them in place (this blob never reads past its own lines).
    size_lines: int = 0

    @classmethod
    def build(cls, tree: Mapping[str, bytes]) -> FoldedText:
        """Fold every UTF-8 text file of `tree`; binary and non-UTF-8 files are skipped."""
        empty = cls([], [], b"", [0], [0], b"", [0], [], [0], [], [], bytearray(), set())
        return empty._extend(tree, set())

    def updated(self, tree: Mapping[str, bytes], changed: Iterable[str]) -> FoldedText:
        """A new blob for `tree`, where only the `changed` paths (added, modified or removed)
        differ from this blob's; this blob is left as it was, for searches still using it."""
        paths = set(changed)
        gone = {self.live[p] for p in paths if p in self.live}
        return self._extend({p: tree[p] for p in paths if p in tree}, gone)

    def _extend(self, tree: Mapping[str, bytes], gone: set[int]) -> FoldedText:
        """This blob with the `gone` files blanked and the files of `tree` appended."""
        seg = _Segment(tree)
        n, m, size = len(self.paths), self.size_lines, len(self.data)
        live = dict(self.live)
        kept_rank = {p: self.rank[f] for p, f in live.items() if f in gone}
        for f in gone:
            del live[self.paths[f]]
        live.update((p, n + i) for i, p in enumerate(seg.paths))
        rank = self.rank + [kept_rank.get(p, -1) for p in seg.paths]
        if -1 in rank[n:]:  # a new path: rank every live file again (a changed one keeps its own)
            for r, (_, f) in enumerate(sorted(live.items())):
                rank[f] = r
        lines, line_file, body, bullet = _grow(
            self, [size + x for x in seg.lines[1:]], [n + f for f in seg.line_file], seg
        )
        return FoldedText(
            self.paths + seg.paths, self.raws + seg.raws,
            _blanked(self.data, self.starts, gone, seg.data),
            self.starts[:-1] + [size + s for s in seg.starts], lines,
            _blanked(self.ctx, self.ctx_starts, gone, seg.ctx),
            self.ctx_starts + [len(self.ctx) + c for c in seg.ctx_starts[1:]],
            self.titles + [m + t for t in seg.titles],
            self.firsts[:-1] + [m + x for x in seg.firsts], line_file, body, bullet,
            self.fenced | {n + f for f in seg.fenced}, self.dead | gone,
            self.dead_bytes + sum(self.starts[f + 1] - self.starts[f] for f in gone),
            self.dead_lines + sum(self.firsts[f + 1] - self.firsts[f] for f in gone),
            rank, live, dict(self._entry_lines), m + len(seg.lines) - 1,
        )  # fmt: skip

    def line(self, k: int) -> bytes:
        """Line k of the folded text, without its newline."""
        return self.data[self.lines[k] : self.lines[k + 1] - 1]

    def context_files(self, term: bytes) -> set[int]:
        """Files whose path or title contains `term`."""
        out: set[int] = set()
        ctx, find = self.ctx, self.ctx.find
        pos = find(term)
        while pos >= 0:
            out.add(bisect_right(self.ctx_starts, pos) - 1)
            pos = find(term, ctx.find(b"\n", pos) + 1)
        return out

    def estimate(self, term: bytes, windows: int = _SAMPLE_WINDOWS) -> float:
        """Roughly how often `term` occurs, from `windows` evenly spaced samples."""
        data, size = self.data, len(self.data)
        if size <= windows * _SAMPLE_SIZE * 2:
            return float(data.count(term))
        step = size // windows
        seen = sum(data.count(term, i * step, i * step + _SAMPLE_SIZE) for i in range(windows))
        return seen * size / (windows * _SAMPLE_SIZE)

    def lines_with(self, term: bytes, f: int | None = None) -> list[int]:
        """The lines (in order, once each) containing `term`, in all files or in file `f`."""
        lo, hi = (0, len(self.data)) if f is None else (self.starts[f], self.starts[f + 1])
        # Collect offsets first and map them to lines in bulk, as a common term occurs thousands
        # of times. Measured over 25 MB: re's scanner beats bytes.find for terms of up to
        # SHORT bytes (a one-letter query: 28 ms against 400), find wins for longer ones. Eating
        # the rest of the line keeps re to one match per line.
        if len(term) <= _SHORT:
            rx = re.compile(re.escape(term) + rb"[^\n]*")
            offsets = [m.start() for m in rx.finditer(self.data, lo, hi)]
        else:
            offsets = []
            find, step = self.data.find, len(term)
            pos = find(term, lo, hi)
            while pos >= 0:
                offsets.append(pos)
                pos = find(term, pos + step, hi)
        line_of = partial(bisect_right, self.lines)
        return [k - 1 for k in dict.fromkeys(map(line_of, offsets))]

    def whole_word_lines(self, terms: list[bytes], lines: list[int]) -> set[int]:
        """Those of `lines` where one of `terms` occurs as a whole word (no ASCII letter or
        digit either side)."""
        # The term comes first so re's scanner jumps to it; the look-behind checks the byte
        # before it.
        words = [
            re.escape(t) + rb"(?<![A-Za-z0-9]" + re.escape(t) + rb")(?![A-Za-z0-9])" for t in terms
        ]
        if len(lines) > self.size_lines // 8:  # a good share of all lines: one pass is cheaper
            found: set[int] = set()
            for word in words:
                found.update(self.lines_matching(re.compile(word + rb"[^\n]*")))
            return found.intersection(lines)
        rxs, at = [re.compile(word) for word in words], self.lines
        return {k for k in lines if any(rx.search(self.data, at[k], at[k + 1]) for rx in rxs)}

    def lines_matching(self, rx: re.Pattern[bytes], start: int = 0) -> list[int]:
        """The lines from line `start` on where `rx` matches (in the folded text), once each."""
        line_of = partial(bisect_right, self.lines)
        found = rx.finditer(self.data, self.lines[start])
        return [k - 1 for k in dict.fromkeys(map(line_of, (m.start() for m in found)))]

    def has(self, term: bytes, k: int) -> bool:
        return self.data.find(term, self.lines[k], self.lines[k + 1] - 1) >= 0

    def is_entry(self, k: int, f: int) -> bool:
        """A bullet line of a markdown file, outside code fences."""
        if not self.bullet[k]:
            return False
        if f not in self.fenced:
            return True
        if f not in self._entry_lines:
            doc = parse(self.raws[f].decode("utf-8"))
            self._entry_lines[f] = frozenset(e.line for e in doc.entries)
        return k - self.firsts[f] in self._entry_lines[f]

    def line_no(self, k: int, f: int) -> int:
        """1-based line number of line k within its file."""
        return k - self.firsts[f] + 1

    def original(self, k: int, f: int) -> str:
        """Line k as written in the file (not folded), without its line ending."""
        raw, start = self.raws[f], self.starts[f]
        if raw.isascii():  # folding ASCII keeps every byte offset
            text = raw[self.lines[k] - start : self.lines[k + 1] - 1 - start]
        else:  # folding may have moved byte offsets: go by line number
            text = raw.split(b"\n")[self.line_no(k, f) - 1]
        return text.decode("utf-8").rstrip("\r")


_GROW = threading.Lock()
_BLANK = bytes(10 if b == 10 else 32 for b in range(256))  # every byte a space, but newlines


def _grow(
    blob: FoldedText, lines: list[int], line_file: list[int], seg: _Segment
) -> tuple[list[int], list[int], list[int], bytearray]:
    """`blob`'s per-line lists with a segment's appended: in place when no other blob grew
    from `blob` yet (an older blob reads only its own lines), else on a copy."""
    m = blob.size_lines
    with _GROW:
        if len(blob.line_file) != m:
            return (
                blob.lines[: m + 1] + lines, blob.line_file[:m] + line_file,
                blob.body[:m] + seg.body, blob.bullet[:m] + seg.bullet,
            )  # fmt: skip
        blob.lines.extend(lines)
        blob.line_file.extend(line_file)
        blob.body.extend(seg.body)
        blob.bullet.extend(seg.bullet)
        return blob.lines, blob.line_file, blob.body, blob.bullet


def _blanked(data: bytes, starts: list[int], files: set[int], tail: bytes) -> bytes:
    """`data` with the spans of `files` blanked, then `tail`: one copy of the text."""
    view, pos = memoryview(data), 0
    parts: list[bytes | memoryview] = []
    for f in sorted(files):
        a, b = starts[f], starts[f + 1]
        parts += (view[pos:a], data[a:b].translate(_BLANK))
        pos = b
    parts += (view[pos:], tail)
    return b"".join(parts)


class _Segment:
    """The folded files of one `tree`, with offsets from 0: what `FoldedText._extend` appends."""

    def __init__(self, tree: Mapping[str, bytes]) -> None:
        self.paths: list[str] = []
        self.raws: list[bytes] = []
        parts: list[bytes] = []
        self.starts: list[int] = []
        ctx_parts: list[bytes] = []
        title_at: list[int] = []
        self.fenced: set[int] = set()
        pos = 0
        for path in sorted(tree):
            raw = tree[path]
            low = _fold_bytes(raw)
            if low is None:
                continue
            lo, hi = _first_line(low)
            if b"```" in low or b"~~~" in low:
                self.fenced.add(len(self.paths))
            self.paths.append(path)
            self.raws.append(raw)
            self.starts.append(pos)
            title_at.append(pos + lo)
            parts += (low, b"\n")
            ctx_parts.append(fold(path).encode() + b" " + low[lo:hi] + b"\n")
            pos += len(low) + 1
        self.data = b"".join(parts)
        self.ctx = b"".join(ctx_parts)
        self.ctx_starts = [0]
        for part in ctx_parts:
            self.ctx_starts.append(self.ctx_starts[-1] + len(part))
        self._index_lines(title_at)

    def _index_lines(self, title_at: list[int]) -> None:
        """Line offsets, files, bodies, bullets and titles of the folded text."""
        data = self.data
        self.starts.append(len(data))
        self.lines = lines = [0, *(m.end() for m in _NEWLINE.finditer(data))]
        line_of = {offset: k for k, offset in enumerate(lines)}
        self.firsts = [line_of[s] for s in self.starts]
        self.line_file: list[int] = []
        for f, (a, b) in enumerate(pairwise(self.firsts)):
            self.line_file += [f] * (b - a)
        self.body = list(map(sub, lines[1:], lines))
        for start, end in [m.span() for m in _META_TAIL.finditer(data)]:
            k = line_of[end] - 1
            self.body[k] = start - lines[k]
        self.bullet = bytearray(len(lines) - 1)
        heads = [m.start() + 1 for m in _BULLET_NL.finditer(data)]
        heads += [0] if _BULLET.match(data) else []
        md = [path.endswith(".md") for path in self.paths]
        for k in map(line_of.__getitem__, heads):
            self.bullet[k] = md[self.line_file[k]]
        self.titles = [line_of[t] for t in title_at]


def _fold_bytes(raw: bytes) -> bytes | None:
    """The folded UTF-8 of a text file, or None for binary or non-UTF-8 content."""
    if is_binary(raw):
        return None
    if raw.isascii():
        return raw.lower()
    try:
        return fold(raw.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        return None


def is_binary(raw: bytes) -> bool:
    """Whether a file is binary, decided by the file as git does: a NUL byte in its first 8,000
    bytes. A stray NUL further down one line of a text file does not hide the whole file."""
    return b"\0" in raw[:8000]


def _first_line(data: bytes) -> tuple[int, int]:
    """Span of the first non-blank line (the file's title), or (0, 0) for a blank file."""
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        if data[pos:end].strip():
            return pos, end
        pos = end + 1
    return 0, 0
