"""Search over one commit's tree: words and "quoted phrases", case-insensitive, ranked.

Two modes share one index. The default ranks every line holding any query word by BM25
(memory/search/ranked.py over the word index of memory/search/words.py): a missing word costs
rank, never the hit. `all_words=True` keeps the exact all-words match for precise lookups:
every word or phrase occurs, as written, in the line or its file's path or title; the rest of
this docstring is about that mode.

The text lives in one folded string (`memory.search.folded.FoldedText`), so finding a term is one
C-speed pass rather than a Python loop over files. After a commit the index is updated from the
tree diff (`SearchIndex.updated`), not rebuilt. The rarest term drives the scan; other terms are
checked on the lines it finds. Every line has a prior (entry bonus less length penalty) computed at
build, so with thousands of candidates only those whose upper bound can still make the top
`limit` are scored, and only the final hits are decoded and parsed as entries.
"""

from __future__ import annotations

import heapq
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise

from memory.format import parse_entry
from memory.search.all_words import (
    CONTEXT_BONUS,
    PHRASE,
    SEQUENCE_BONUS,
    WHOLE_WORD,
    WORD,
    Query,
    parse_query,
)
from memory.search.folded import FoldedText
from memory.search.ranked import parse as parse_ranked
from memory.search.ranked import rank
from memory.search.words import WordIndex

# Ranking weights. A hit's score is the sum of its term weights plus bonuses, minus penalties for
# spread-out matches and long entries; `added` only breaks ties. The terms' own weights are in
# memory/search/all_words.py.
CONTEXT_ONLY = 0.5  # multiplier for a term found only in the file's path or title
ENTRY_BONUS = 1.0  # entries (one-line bullets) outrank prose
GAP_PENALTY = 0.2  # per word between matched terms (at most MAX_GAP words counted)
MAX_GAP = 10
LENGTH_PENALTY = 1.0  # for an entry text of LONG bytes or more, less for shorter ones
LONG = 400
DEMOTED = 3.0  # taken from lines of forgotten.md and entries with status: revoked
FORGOTTEN = "forgotten.md"
PROPOSALS = "proposals.md"  # memory/trust.py
ARCHIVE = "archive/"

PER_HIT = 4000  # handling one occurrence costs about as much as scanning this many bytes
WHOLE_PASS = 2000  # candidates still in reach above which whole-word lines are looked up
PRESCORE = 4  # with many candidates, first score limit * PRESCORE of the best-looking ones
# An update touching more files than this (or a quarter of them) builds afresh, and so does one
# after which the text of replaced and removed files would pass this share of the blob.
REBUILD_FILES = 256
REBUILD_DEAD = 0.25

# Starts with a literal, so re's scanner jumps to it (a leading class would try every byte).
_REVOKED = re.compile(rb"status:[ \t]*revoked[ \t]*[\];]")


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


class SearchIndex:
    """A warm, read-only view of one commit's tree for search. Build once per commit."""

    def __init__(
        self,
        blob: FoldedText,
        *,
        archive: bool = False,
        prior: list[float] | None = None,
        start: int = 0,
        age: int = 0,
        words: WordIndex | None = None,
    ) -> None:
        """The index of `blob`; `prior` holds the priors of its first `start` lines when it grew
        from an older index's blob (those lines are unchanged), so only new lines are scored."""
        self._blob = blob
        self.paths = blob.paths
        self.archive = archive
        self.age = age  # updates applied since the last full build
        self._words = words  # built on the first ranked search, then updated with the blob
        self._words_lock = threading.Lock()
        start = 0 if prior is None else start
        m = blob.size_lines
        # What a line scores before its query terms: the entry bonus, less the length penalty.
        fresh = [
            (ENTRY_BONUS if b else 0.0) - LENGTH_PENALTY * min(n, LONG) / LONG
            for b, n in zip(blob.bullet[start:m], blob.body[start:m], strict=True)
        ]
        self._prior = _grown(prior, start, fresh)
        # Facts removed on purpose (tombstones, revoked lessons) still hit, after live ones.
        for k in blob.lines_matching(_REVOKED, start):
            self._prior[k] -= DEMOTED
        for name in (FORGOTTEN, PROPOSALS):  # and agents' proposed deletions: copies of entries
            f = blob.live.get(name)
            if f is not None and blob.firsts[f] >= start:
                for k in range(blob.firsts[f], blob.firsts[f + 1]):
                    self._prior[k] -= DEMOTED

    @classmethod
    def build(cls, tree: Mapping[str, bytes], *, archive: bool = False) -> SearchIndex:
        """Index every UTF-8 text file of `tree` (path -> bytes); binary and non-UTF-8 files are
        skipped. The archive (episodes, never put in context) is left out; `archive=True`
        indexes only it, for a search of episodes on purpose."""
        kept = {p: b for p, b in tree.items() if p.startswith(ARCHIVE) == archive}
        return cls(FoldedText.build(kept), archive=archive)

    def updated(self, tree: Mapping[str, bytes], changed: Iterable[str]) -> SearchIndex:
        """The index of `tree`, which differs from this index's tree only in the `changed`
        paths (added, modified or removed: a tree diff). A small change is applied to a copy;
        a large one, or one that would leave dead text over REBUILD_DEAD of the blob, builds
        afresh. This index stays as it was, for searches still running on it."""
        blob = self._blob
        mine = [p for p in dict.fromkeys(changed) if p.startswith(ARCHIVE) == self.archive]
        if not mine:
            return self
        old = [blob.live[p] for p in mine if p in blob.live]
        dying = blob.dead_bytes + sum(blob.starts[f + 1] - blob.starts[f] for f in old)
        if len(mine) > max(REBUILD_FILES, len(blob.live) // 4) or dying > len(blob.data) * (
            REBUILD_DEAD
        ):
            return SearchIndex.build(tree, archive=self.archive)
        grown = blob.updated(tree, mine)
        words = None if self._words is None else self._words.updated(grown, old)
        return SearchIndex(
            grown,
            archive=self.archive,
            prior=self._prior,
            start=blob.size_lines,
            age=self.age + 1,
            words=words,
        )

    def words(self) -> WordIndex:
        """The word index for ranked search: built on first use (an archive search or an
        all-words lookup never needs it), then carried along by `updated`."""
        if self._words is None:
            with self._words_lock:
                if self._words is None:
                    self._words = WordIndex.build(self._blob)
        return self._words

    def __len__(self) -> int:
        return len(self._blob.live)

    def search(self, query: str, limit: int = 20, *, all_words: bool = False) -> list[Hit]:
        """The best `limit` hits for `query`, ranked over all its words (see
        memory/search/ranked.py); with `all_words`, only lines where every word/phrase occurs
        in the line or in its file's path or title. Never raises on any query text."""
        if not all_words:
            if limit <= 0:
                return []
            words = self.words()
            asked = parse_ranked(query, words)
            best = rank(asked, words, self._prior, limit, ENTRY_BONUS, ENTRY_BONUS)
            return [self._hit(k, f, score) for score, k, f in best]
        terms = parse_query(query)
        if not terms or limit <= 0:
            return []
        q = Query(terms, [self._blob.context_files(t.text) for t in terms])
        found = self._candidates(q)
        prior = self._prior
        # A line scores at most its prior + q.best + its file's context bonus. With many
        # candidates, score the best-looking few first: the k-th of those is a bar most of the
        # rest cannot reach, so they are dropped unscored; the rest go best-looking first.
        heap: list[tuple[float, bytes, int, int, int, int]] = []
        if len(found) <= limit * PRESCORE:
            self._rank(found, found, q, limit, heap, 0.0)
        else:
            first = heapq.nlargest(limit * PRESCORE, found, key=prior.__getitem__)
            self._rank(first, found, q, limit, heap, 0.0)
            bar, bonus, done = heap[0][0] - q.best, q.bonus.get, set(first)
            rest = [k for k, f in found.items() if prior[k] + bonus(f, 0.0) >= bar]
            rest.sort(key=prior.__getitem__, reverse=True)
            rest = [k for k in rest if k not in done]
            if len(rest) <= WHOLE_PASS:
                self._rank(rest, found, q, limit, heap, 0.0, ordered=True)
            else:
                # Too many still in reach: find the lines where some term is a whole word.
                # The others can score less, which stops their loop early.
                whole = self._blob.whole_word_lines([t.text for t in terms], rest)
                self._rank([k for k in rest if k in whole], found, q, limit, heap, 0.0, True)
                self._rank(
                    [k for k in rest if k not in whole], found, q, limit, heap, q.partial, True
                )
        heap.sort(reverse=True)
        return [self._hit(k, f, score) for score, _, _, _, k, f in heap]

    def _rank(
        self,
        lines: Iterable[int],
        files: Mapping[int, int],
        q: Query,
        limit: int,
        heap: list[tuple[float, bytes, int, int, int, int]],
        short: float,
        ordered: bool = False,
    ) -> None:
        """Push the scored `lines` into the top-`limit` heap (score, added, -file rank, -line,
        line, file): ties go to the first path, then the first line, as in a fresh build.
        Once it is full, skip a line whose bound (prior + context bonus + q.best - `short`, what
        these lines are known to miss) cannot reach the smallest; when `lines` come by falling
        prior, stop at the first that cannot, whatever its bonus."""
        prior, bonus, seq, blob = self._prior, q.bonus.get, q.sequence, self._blob
        rank = blob.rank
        best = q.best - short
        top = best + max(q.bonus.values(), default=0.0)
        for k in lines:
            f = files[k]
            if len(heap) >= limit:
                if ordered and prior[k] + top < heap[0][0]:
                    break
                bound = prior[k] + bonus(f, 0.0) + best
                if seq is not None and seq not in blob.line(k):
                    bound -= SEQUENCE_BONUS
                if bound < heap[0][0]:
                    continue
            score, added = self._score(k, f, q)
            item = (score, added, -rank[f], -k, k, f)
            if len(heap) < limit:
                heapq.heappush(heap, item)
            elif item > heap[0]:
                heapq.heapreplace(heap, item)

    def _candidates(self, q: Query) -> dict[int, int]:
        """Lines (line -> file) where every term is in the line or in the file's path/title,
        and at least one term is in the line (or it is the title line of a file whose path and
        title hold every term)."""
        blob, terms, in_ctx = self._blob, q.terms, q.in_ctx

        # Drive the scan with the rarest term; a term in many paths is a poor driver, since
        # every file it names must then be scanned for the other terms.
        def cost(i: int) -> float:
            ctx_bytes = sum(blob.starts[f + 1] - blob.starts[f] for f in in_ctx[i])
            return blob.estimate(terms[i].text) * PER_HIT + ctx_bytes * (len(terms) - 1)

        order = sorted(range(len(terms)), key=cost) if len(terms) > 1 else [0]
        d = order[0]
        found: dict[int, int] = {}
        self._keep(blob.lines_with(terms[d].text), d, q, found)
        named = in_ctx[d]
        for j in order[1:] if named else []:
            # Lines of the files whose path names the driver, holding another term. When those
            # files are most of the text, one pass over everything beats a scan per file.
            if sum(blob.starts[f + 1] - blob.starts[f] for f in named) > len(blob.data) / 2:
                lines = [k for k in blob.lines_with(terms[j].text) if blob.line_file[k] in named]
            else:
                lines = [k for f in named for k in blob.lines_with(terms[j].text, f)]
            self._keep(lines, j, q, found)
        for f in named:
            if all(f in c for c in in_ctx):
                found.setdefault(blob.titles[f], f)
        return found

    def _keep(self, lines: list[int], i: int, q: Query, found: dict[int, int]) -> None:
        """Add the `lines` (which contain term i) where every other term is satisfied too."""
        blob = self._blob
        others = [
            (t.text, c) for j, (t, c) in enumerate(zip(q.terms, q.in_ctx, strict=True)) if j != i
        ]
        line_file = blob.line_file
        if not others:
            found.update(zip(lines, map(line_file.__getitem__, lines), strict=True))
            return
        for k in lines:
            f = line_file[k]
            if k not in found and all(f in c or blob.has(t, k) for t, c in others):
                found[k] = f

    def _score(self, k: int, f: int, q: Query) -> tuple[float, bytes]:
        """(score, added date) of line k of file f."""
        line = self._blob.line(k)
        score = self._prior[k]
        if self._blob.bullet[k] and not self._blob.is_entry(k, f):
            score -= ENTRY_BONUS  # a bullet inside a code fence
        spans: list[tuple[int, int]] = []
        for t, ctx in zip(q.terms, q.in_ctx, strict=True):
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
        if len(spans) > 1:
            spans.sort()
            gap = sum(line.count(b" ", a[1], b[0]) for a, b in pairwise(spans) if b[0] > a[1])
            score -= GAP_PENALTY * min(gap, MAX_GAP)
        if q.sequence is not None and q.sequence in line:
            score += SEQUENCE_BONUS
        at = line.find(b"added:")
        added = line[at + 6 : at + 18].strip()[:10] if at >= 0 else b""
        return round(score, 4), added

    def _hit(self, k: int, f: int, score: float) -> Hit:
        blob, path = self._blob, self.paths[f]
        line_no = blob.line_no(k, f)
        text = blob.original(k, f)
        if blob.is_entry(k, f):
            entry = parse_entry(text, line_no - 1)
            if entry is not None:
                return Hit(path, line_no, entry.text, entry.metadata, score)
        return Hit(path, line_no, text.strip() or path, {}, score, entry=False)


_GROW = threading.Lock()


def _grown(prior: list[float] | None, start: int, fresh: list[float]) -> list[float]:
    """The first `start` of `prior` then `fresh`: appended in place when no other index grew
    from `prior` yet (the older index reads only its own lines), else on a copy."""
    if prior is None:
        return fresh
    with _GROW:
        if len(prior) == start:
            prior.extend(fresh)
            return prior
    return prior[:start] + fresh
