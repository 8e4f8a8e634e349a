"""Search over one commit's tree: words and "quoted phrases", case-insensitive, ranked.

The index keeps every text file of the tree folded to lower case in one bytes blob, so a query
costs about one C-speed `bytes.find` pass over it (no per-file Python loop). Offsets map back to
(file, line) with bisect, and only the hits that make the top `limit` are decoded and parsed as
entries. Building is one pass over the tree, cheap enough to redo for every commit.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from itertools import pairwise

from memory.format import parse, parse_entry

# Ranking weights. A hit's score is the sum of its term weights plus bonuses, minus penalties for
# spread-out matches and long entries; `added` only breaks ties.
PHRASE = 2.0  # a quoted phrase found in the line
WORD = 1.0  # a word found in the line
WHOLE_WORD = 1.5  # multiplier when the match starts and ends on word boundaries
CONTEXT_ONLY = 0.5  # multiplier for a term found only in the file's path or title
CONTEXT_BONUS = 0.5  # a term that is also in the path or title
ENTRY_BONUS = 1.0  # entries (one-line bullets) outrank prose
SEQUENCE_BONUS = 1.0  # the unquoted words appear in the line in query order, as a phrase
GAP_PENALTY = 0.2  # per word between matched terms (at most MAX_GAP words counted)
MAX_GAP = 10
LENGTH_PENALTY = 1.0  # for an entry text of LONG bytes or more, less for shorter ones
LONG = 400

_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')
# No "^": match() anchors at its start position, where "^" would not match.
_BULLET = re.compile(rb"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]")
PER_HIT = 4000
_NEWLINE = re.compile(rb"\n")
_SAMPLE_WINDOWS = 16
_SAMPLE_SIZE = 1 << 16


@dataclass(frozen=True)
class Hit:
    """One matching line: where it is, the entry text (metadata split off) and how well it hit."""

    path: str
    line: int  # 1-based
    text: str
    meta: dict[str, str]
    score: float
    entry: bool = True  # False for prose lines and non-markdown files

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "meta": dict(self.meta),
            "score": self.score,
            "entry": self.entry,
        }


@dataclass(frozen=True)
class Term:
    """One query term, folded to lower case and UTF-8 encoded, as it is matched."""

    text: bytes
    phrase: bool


def fold(text: str) -> str:
    """Lower case that keeps the length (a character whose lower case is longer stays as it is),
    so folded and original text line up character for character."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def parse_query(query: str) -> list[Term]:
    """Words and "quoted phrases" (an unclosed quote runs to the end), folded, deduplicated."""
    terms: list[Term] = []
    seen: set[bytes] = set()
    for m in _TOKEN.finditer(query):
        phrase = m.group(1) is not None
        raw = " ".join((m.group(1) or "").split()) if phrase else m.group(2)
        text = fold(raw).encode("utf-8", "ignore")
        if text and text not in seen:
            seen.add(text)
            terms.append(Term(text, phrase and b" " in text))
    return terms


def matches_entry(query: str, text: str) -> bool:
    """True when every word and phrase of `query` occurs in `text` (case-insensitive). An empty
    query matches nothing, so a careless `forget ""` removes nothing."""
    terms = parse_query(query)
    low = fold(text).encode("utf-8", "ignore")
    return bool(terms) and all(t.text in low for t in terms)


class SearchIndex:
    """A warm, read-only view of one commit's tree for search. Build once per commit."""

    def __init__(
        self,
        paths: list[str],
        raws: list[bytes],
        blob: bytes,
        starts: list[int],
        ctx: bytes,
        ctx_starts: list[int],
        titles: list[tuple[int, int]],
        fenced: set[int],
    ) -> None:
        self.paths = paths
        self._raws = raws  # original bytes, to show hits as written
        self._blob = blob  # folded files, each followed by b"\n"; starts[i] is file i's offset
        self._starts = starts
        self._ctx = ctx  # one line per file: folded path and title
        self._ctx_starts = ctx_starts
        self._titles = titles  # blob span of each file's first non-blank line
        self._fenced = fenced  # files with code fences: entries need a real parse there
        self._entry_lines: dict[int, frozenset[int]] = {}
        # Start offset of every line, and len(blob) last: line i is lines[i]..lines[i+1]-1.
        self._lines = [0, *(m.end() for m in _NEWLINE.finditer(blob))]

    @classmethod
    def build(cls, tree: Mapping[str, bytes]) -> SearchIndex:
        """Index every UTF-8 text file of `tree` (path -> bytes); binary and non-UTF-8 files are
        skipped."""
        paths: list[str] = []
        raws: list[bytes] = []
        parts: list[bytes] = []
        starts: list[int] = []
        ctx_parts: list[bytes] = []
        ctx_starts: list[int] = []
        titles: list[tuple[int, int]] = []
        fenced: set[int] = set()
        pos = ctx_pos = 0
        for path in sorted(tree):
            raw = tree[path]
            low = _fold_bytes(raw)
            if low is None:
                continue
            i = len(paths)
            lo, hi = _first_line(low)
            ctx_line = fold(path).encode() + b" " + low[lo:hi] + b"\n"
            paths.append(path)
            raws.append(raw)
            starts.append(pos)
            titles.append((pos + lo, pos + hi))
            ctx_starts.append(ctx_pos)
            parts.append(low)
            parts.append(b"\n")
            ctx_parts.append(ctx_line)
            pos += len(low) + 1
            ctx_pos += len(ctx_line)
            if b"```" in low or b"~~~" in low:
                fenced.add(i)
        blob = b"".join(parts)
        ctx = b"".join(ctx_parts)
        return cls(paths, raws, blob, starts, ctx, ctx_starts, titles, fenced)

    def __len__(self) -> int:
        return len(self.paths)

    def search(self, query: str, limit: int = 20) -> list[Hit]:
        """The best `limit` hits for `query`: every word/phrase occurs in the line or in its
        file's path or title. Never raises on any query text."""
        terms = parse_query(query)
        if not terms or limit <= 0:
            return []
        in_ctx = [self._context_files(t.text) for t in terms]
        lines = self._candidates(terms, in_ctx)
        words = [t.text for t in terms if not t.phrase]
        sequence = b" ".join(words) if len(words) > 1 else None
        # The most any line can score before the length penalty: lines whose bound cannot beat
        # the current k-th best are skipped without scoring (common terms hit thousands).
        best = sum((PHRASE if t.phrase else WORD) * WHOLE_WORD for t in terms)
        best += (SEQUENCE_BONUS if sequence else 0.0) + 1e-3
        bonus: dict[int, float] = {}
        for ctx in in_ctx:
            for f in ctx:
                bonus[f] = bonus.get(f, 0.0) + CONTEXT_BONUS
        heap: list[tuple[float, bytes, int, int, int]] = []
        blob = self._blob
        for ls, (le, f) in lines.items():
            if len(heap) >= limit:
                bound = best + bonus.get(f, 0.0) - _length_penalty(blob, ls, le)
                if _BULLET.match(blob, ls, le):
                    bound += ENTRY_BONUS
                if bound < heap[0][0]:
                    continue
            score, added = self._score(ls, le, f, terms, in_ctx, sequence)
            item = (score, added, -ls, le, f)
            if len(heap) < limit:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                heapq.heapreplace(heap, item)
        heap.sort(reverse=True)
        return [self._hit(-neg_ls, le, f, score) for score, _, neg_ls, le, f in heap]

    # -- candidates -------------------------------------------------------------------------

    def _context_files(self, term: bytes) -> set[int]:
        """Files whose path or title contains `term`."""
        out: set[int] = set()
        ctx, find = self._ctx, self._ctx.find
        pos = find(term)
        while pos >= 0:
            f = bisect_right(self._ctx_starts, pos) - 1
            out.add(f)
            end = ctx.find(b"\n", pos)
            pos = find(term, end + 1)
        return out

    def _estimate(self, term: bytes) -> float:
        """Roughly how often `term` occurs, from a few evenly spaced samples of the blob."""
        blob = self._blob
        size = len(blob)
        if size <= _SAMPLE_WINDOWS * _SAMPLE_SIZE * 2:
            return float(blob.count(term))
        step = size // _SAMPLE_WINDOWS
        seen = sum(
            blob.count(term, i * step, i * step + _SAMPLE_SIZE) for i in range(_SAMPLE_WINDOWS)
        )
        return seen * size / (_SAMPLE_WINDOWS * _SAMPLE_SIZE)

    def _candidates(self, terms: list[Term], in_ctx: list[set[int]]) -> dict[int, tuple[int, int]]:
        """Lines (start -> (end, file)) where every term is in the line or the file's context,
        and at least one term is in the line (or it is the title line of a file whose context
        holds them all)."""

        # Drive the scan with the rarest term; a term in many paths is a poor driver, since
        # every file it names has to be scanned for the other terms.
        # Handling one occurrence costs about as much as scanning PER_HIT bytes.
        def cost(i: int) -> float:
            ctx_bytes = sum(self._size(f) for f in in_ctx[i])
            return self._estimate(terms[i].text) * PER_HIT + ctx_bytes * (len(terms) - 1)

        order = sorted(range(len(terms)), key=cost) if len(terms) > 1 else [0]
        d = order[0]
        found: dict[int, tuple[int, int]] = {}
        self._scan(terms[d].text, 0, len(self._blob), terms, in_ctx, found)
        for f in in_ctx[d]:
            lo, hi = self._starts[f], self._starts[f] + self._size(f)
            for j in order[1:]:
                self._scan(terms[j].text, lo, hi, terms, in_ctx, found)
            if all(f in c for c in in_ctx):
                ls, le = self._titles[f]
                found.setdefault(ls, (le, f))
        return found

    def _scan(
        self,
        term: bytes,
        lo: int,
        hi: int,
        terms: list[Term],
        in_ctx: list[set[int]],
        found: dict[int, tuple[int, int]],
    ) -> None:
        find, starts, lines = self._blob.find, self._starts, self._lines
        others = [(t.text, c) for t, c in zip(terms, in_ctx, strict=True) if t.text != term]
        # Collect offsets first and map them to lines in bulk: common terms occur thousands of
        # times, and each step of this loop is one C call.
        offsets: list[int] = []
        step = len(term)
        pos = find(term, lo, hi)
        while pos >= 0:
            offsets.append(pos)
            pos = find(term, pos + step, hi)
        for li in dict.fromkeys(map(partial(bisect_right, lines), offsets)):
            ls = lines[li - 1]
            if ls in found:
                continue
            le = lines[li] - 1
            f = bisect_right(starts, ls) - 1
            if not others or all(f in c or find(t, ls, le) >= 0 for t, c in others):
                found[ls] = (le, f)

    def _size(self, f: int) -> int:
        end = self._starts[f + 1] if f + 1 < len(self._starts) else len(self._blob)
        return end - self._starts[f] - 1

    # -- ranking ----------------------------------------------------------------------------

    def _score(
        self,
        ls: int,
        le: int,
        f: int,
        terms: list[Term],
        in_ctx: list[set[int]],
        sequence: bytes | None,
    ) -> tuple[float, bytes]:
        """(score, added date) of one candidate line."""
        line = self._blob[ls:le]
        score = 0.0
        spans: list[tuple[int, int]] = []
        for t, ctx in zip(terms, in_ctx, strict=True):
            weight = PHRASE if t.phrase else WORD
            p = line.find(t.text)
            if p >= 0:
                end = p + len(t.text)
                if not line[p - 1 : p].isalnum() and not line[end : end + 1].isalnum():
                    weight *= WHOLE_WORD
                spans.append((p, end))
            else:
                weight *= CONTEXT_ONLY
            score += weight + (CONTEXT_BONUS if f in ctx else 0.0)
        if self._is_entry(ls, f, line):
            score += ENTRY_BONUS
        if len(spans) > 1:
            spans.sort()
            gap = sum(line.count(b" ", a[1], b[0]) for a, b in pairwise(spans) if b[0] > a[1])
            score -= GAP_PENALTY * min(gap, MAX_GAP)
        if sequence is not None and sequence in line:
            score += SEQUENCE_BONUS
        score -= _length_penalty(self._blob, ls, le)
        at = line.find(b"added:")
        added = line[at + 6 : at + 18].strip()[:10] if at >= 0 else b""
        return round(score, 4), added

    def _is_entry(self, ls: int, f: int, line: bytes) -> bool:
        if not self.paths[f].endswith(".md") or not _BULLET.match(line):
            return False
        if f not in self._fenced:
            return True
        if f not in self._entry_lines:
            text = self._raws[f].decode("utf-8")
            self._entry_lines[f] = frozenset(e.line for e in parse(text).entries)
        return self._line_no(ls, f) - 1 in self._entry_lines[f]

    def _line_no(self, ls: int, f: int) -> int:
        return self._blob.count(b"\n", self._starts[f], ls) + 1

    def _hit(self, ls: int, le: int, f: int, score: float) -> Hit:
        path, raw, start = self.paths[f], self._raws[f], self._starts[f]
        line_no = self._line_no(ls, f)
        # Folding ASCII keeps every byte offset; otherwise go by line number.
        ascii_ = raw.isascii()
        original = raw[ls - start : le - start] if ascii_ else raw.split(b"\n")[line_no - 1]
        text = original.decode("utf-8").rstrip("\r")
        if self._is_entry(ls, f, self._blob[ls:le]):
            entry = parse_entry(text, line_no - 1)
            if entry is not None:
                return Hit(path, line_no, entry.text, entry.metadata, score)
        return Hit(path, line_no, text.strip() or path, {}, score, entry=False)


def _length_penalty(blob: bytes, ls: int, le: int) -> float:
    """Shorter entries rank higher: the penalty grows with the text before the metadata."""
    end = le
    if blob[le - 1 : le] == b"]" and blob[le - 2 : le] != b"]]":
        bracket = blob.rfind(b" [", ls, le)
        end = bracket if bracket > ls else le
    return LENGTH_PENALTY * min(end - ls, LONG) / LONG


def _fold_bytes(raw: bytes) -> bytes | None:
    """The folded UTF-8 of a text file, or None for binary or non-UTF-8 content."""
    if b"\0" in raw:
        return None
    if raw.isascii():
        return raw.lower()
    try:
        return fold(raw.decode("utf-8")).encode("utf-8")
    except UnicodeDecodeError:
        return None


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
