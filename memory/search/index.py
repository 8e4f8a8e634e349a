"""Search over one commit's tree, in memory: words and "quoted phrases", case-insensitive, ranked.

Two modes. The default ranks every line holding any query word by BM25 (memory/search/ranked.py
over an in-memory SQLite FTS5 index, memory/search/fts.py, built on the first ranked search of
this tree: the store keeps its own on disk): a missing word costs rank, never the hit.
`all_words=True` keeps the exact all-words match for precise lookups: every word or phrase
occurs, as written, in the line or its file's path or title; the rest of this docstring is
about that mode.

The text lives in one folded string (`memory.search.folded.FoldedText`), so finding a term is one
C-speed pass rather than a Python loop over files. After a commit the index is updated from the
tree diff (`SearchIndex.updated`), not rebuilt. The rarest term drives the scan; other terms are
checked on the lines it finds. Every line has a prior (entry bonus less length penalty) computed at
build, so with thousands of candidates only those whose upper bound can still make the top
`limit` are scored, and only the final hits are decoded and parsed as entries.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterable, Mapping
from itertools import pairwise

from memory.search.all_words import (
    CONTEXT_BONUS,
    PHRASE,
    SEQUENCE_BONUS,
    WHOLE_WORD,
    WORD,
    Query,
    parse_query,
)
from memory.search.bounds import bound
from memory.search.folded import FoldedText
from memory.search.fts import FtsIndex
from memory.search.hit import Hit, hit
from memory.search.priors import ARCHIVE, ENTRY_BONUS, priors

# Ranking weights. A hit's score is the sum of its term weights plus bonuses, minus penalties for
# spread-out matches and long entries; `added` only breaks ties. The terms' own weights are in
# memory/search/all_words.py.
CONTEXT_ONLY = 0.5  # multiplier for a term found only in the file's path or title
GAP_PENALTY = 0.2  # per word between matched terms (at most MAX_GAP words counted)
MAX_GAP = 10

PER_HIT = 4000  # handling one occurrence costs about as much as scanning this many bytes
WHOLE_PASS = 2000  # candidates still in reach above which whole-word lines are looked up
PRESCORE = 4  # with many candidates, first score limit * PRESCORE of the best-looking ones
# An update touching more files than this (or a quarter of them) builds afresh, and so does one
# after which the text of replaced and removed files would pass this share of the blob.
REBUILD_FILES = 256
REBUILD_DEAD = 0.25


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
    ) -> None:
        """The index of `blob`; `prior` holds the priors of its first `start` lines when it grew
        from an older index's blob (those lines are unchanged), so only new lines are scored."""
        self._blob = blob
        self.paths = blob.paths
        self.archive = archive
        self.age = age  # updates applied since the last full build
        self._fts: FtsIndex | None = None  # built on the first ranked search
        self._fts_lock = threading.Lock()
        start = 0 if prior is None else start
        self._prior = _grown(prior, start, priors(blob, start))

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
        return SearchIndex(
            grown, archive=self.archive, prior=self._prior, start=blob.size_lines, age=self.age + 1
        )

    def fts(self) -> FtsIndex:
        """The FTS5 index ranked search reads: built in memory on first use (an all-words
        lookup never needs it). The store keeps one on disk, updated per commit, instead."""
        if self._fts is None:
            with self._fts_lock:
                if self._fts is None:
                    self._fts = FtsIndex().build(self._blob)
        return self._fts

    def __len__(self) -> int:
        return len(self._blob.live)

    def search(self, query: str, limit: int = 20, *, all_words: bool = False) -> list[Hit]:
        """The best `limit` hits for `query`, ranked over all its words (see
        memory/search/ranked.py); with `all_words`, only lines where every word/phrase occurs
        in the line or in its file's path or title. Never raises on any query text."""
        if not all_words:
            return self.fts().search(query, limit) if limit > 0 else []
        terms = parse_query(bound(query).query)  # within memory/search/bounds.py's bounds
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
        blob = self._blob
        return hit(
            self.paths[f], blob.line_no(k, f), blob.original(k, f), blob.is_entry(k, f), score
        )


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
