"""Ranked search over all query words: BM25 over lines, so a missing word costs rank, never the
hit. Search, recall, the MCP tools and briefings all rank this way (memory/search/index.py).

Each query word matches its word forms (one Snowball stem: deploy, deploys, deployed), longer
words it begins (`config` → configuration, at PREFIX of the weight) and, when no line holds it,
words one typo away (at TYPO). A word also counts, at CONTEXT of its weight, for every line of
a file whose path or title holds it. "Quoted phrases" must occur as written (in the line or its
file's path or title), and so must a `+word` (in one of its forms). Common question words
("what", "the", "how") are left out unless they are all the query says.

A line's score is its prior (memory/search/index.py: entries above prose, long entries and removed
facts lower) plus its BM25 weight (binary term frequency: a line is one fact, a word said twice
is no more its subject) plus the context weight, plus up to SEQUENCE for the query's words side
by side in the line as typed (PAIR for each two of them). Deterministic: ties go to the newer
`added`, then the first path, then the first line; document frequencies are those of the live
lines, so an index updated after a commit ranks as one built afresh.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from operator import itemgetter

from memory.search.folded import FoldedText, fold
from memory.search.words import WordIndex, stem, tokens

K1 = 1.2  # BM25 saturation (moot with binary term frequency, kept in the length norm)
B = 0.75  # BM25 length normalisation: a word in a short line says more than in a long one
CONTEXT = 0.5  # a word in the file's path or title, for every line of the file
PREFIX = 0.6  # a longer word the query word begins (partial words: kube → kubernetes)
TYPO = 0.5  # a word one edit away, only for a query word that no line holds
SEQUENCE = 1.0  # the query's words side by side in the line, in order, as typed (the most)
PAIR = 0.5  # each two words of the query side by side in the line, as typed
MIN_PREFIX = 4  # shorter words match longer ones only when they occur nowhere themselves
MAX_EXPANSIONS = 16  # at most this many other stems per query word, the most common first
CONTEXT_FILES = 8  # a query word naming at most this many files (path or title): all their
CONTEXT_LINES = 2000  # lines are hits, if they hold at most this many in all (else their titles)

STOP = frozenset(
    b"""a about an and any are as at be been but by can could did do does for from had has have
how i if in into is it its me my no not of on or our should so that the their them then there
these this those to us was we were what when where which who whom why will with would you your
""".split()
)

_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


@dataclass(frozen=True)
class Group:
    """One query word: the stems that count for it, each with its share of the weight."""

    word: bytes
    stems: tuple[tuple[str, float], ...]
    required: bool


@dataclass(frozen=True)
class Ranked:
    groups: tuple[Group, ...]
    phrases: tuple[bytes, ...]  # folded, as written between quotes
    sequence: bytes | None  # the unquoted words as typed, space-separated, if two or more
    pairs: tuple[bytes, ...]  # each two of them side by side


def parse(query: str, words: WordIndex) -> Ranked:
    """The query's words (each with the stems it matches here) and its quoted phrases."""
    phrases: list[bytes] = []
    said: list[tuple[bytes, bool]] = []
    typed: list[bytes] = []  # the chunks that hold a word, as typed (folded)
    for m in _TOKEN.finditer(query):
        if m.group(1) is not None:
            text = fold(" ".join(m.group(1).split())).encode("utf-8", "ignore")
            if text and text not in phrases:
                phrases.append(text)
            continue
        chunk = m.group(2)
        required = chunk.startswith("+") and len(chunk) > 1
        folded = fold(chunk[1:] if required else chunk).encode("utf-8", "ignore")
        found = [(t, required) for t in tokens(folded)]
        said += found
        if any(t not in STOP for t, _ in found):
            typed.append(folded.strip(b"?!.,;:()[]'`"))
    kept = [(t, r) for t, r in said if r or t not in STOP] or said
    groups: list[Group] = []
    seen: set[str] = set()
    for t, required in kept:
        if stem(t) not in seen:
            seen.add(stem(t))
            groups.append(Group(t, _stems(t, words, required), required))
    sequence = b" ".join(typed) if len(typed) > 1 else None
    pairs = tuple(dict.fromkeys(a + b" " + b for a, b in pairwise(typed))) if len(typed) > 2 else ()
    return Ranked(tuple(groups), tuple(phrases), sequence, pairs)


def _stems(word: bytes, words: WordIndex, exact: bool) -> tuple[tuple[str, float], ...]:
    """The stems `word` matches: its own, then (unless `exact`) those of longer words it
    begins, or else those of words one typo away."""
    own = stem(word)
    found = {own: 1.0} if words.df(own) > 0 or words.ctx_files(own) else {}
    if exact or not word.isalpha():
        return tuple(found.items())
    if len(word) >= MIN_PREFIX or (len(word) >= 3 and not found):
        more = {stem(w) for w in words.with_prefix(word)} - {own}
        for s in sorted(more, key=lambda s: (-words.df(s), s))[:MAX_EXPANSIONS]:
            found[s] = PREFIX
    if not found and len(word) >= 4:
        near = {stem(w) for w in words.near(word)}
        for s in sorted(near, key=lambda s: (-words.df(s), s))[:MAX_EXPANSIONS]:
            found[s] = TYPO
    return tuple(found.items())


def rank(
    q: Ranked,
    words: WordIndex,
    prior: Sequence[float],
    limit: int,
    fence_penalty: float,
    prior_max: float,
) -> list[tuple[float, int, int]]:
    """The best `limit` (score, line, file), best first. `prior_max` bounds every prior."""
    blob = words.blob
    n = words.docs

    def idf(s: str) -> float:
        df = words.df(s)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    body: dict[int, float] = {}  # line -> BM25 weight before its length norm
    ctx: dict[int, float] = {}  # file -> context weight
    needed: list[tuple[set[int], set[int]]] = []  # per required word or phrase: lines, files
    plan = []
    for g in q.groups:
        weights = sorted(((fac * idf(s), s) for s, fac in g.stems), reverse=True)
        files: dict[int, float] = {}
        for w, s in weights:  # heaviest first: a file counts the best of its stems
            for f in words.ctx_files(s):
                files.setdefault(f, w)
        _add(ctx, files, CONTEXT)
        _named(words, body, files)
        plan.append((weights[0][0] if weights else 0.0, g, weights, files))
    for p in q.phrases:
        w = sum(idf(stem(t)) for t in dict.fromkeys(tokens(p)))
        lines = dict.fromkeys(blob.lines_with(p), w)
        files = dict.fromkeys(blob.context_files(p), w)
        _add(body, lines, 1.0)
        _add(ctx, files, CONTEXT)
        needed.append((set(lines), set(files)))
    for f in ctx:  # a file named by the query: its title line is a hit too
        body.setdefault(blob.titles[f], 0.0)
    # Rarest words first. Once the lines found so far fill the top `limit` with scores that no
    # line holding only the remaining words could reach (their best weights, the best prior,
    # context and sequence bonus), those words only add to the lines already found (MaxScore).
    plan.sort(key=lambda item: -item[0])
    lmax = (K1 + 1) / (1 + K1 * (1 - B) + K1 * B / words.avgdl)  # a one-word line
    rest = [0.0] * (len(plan) + 1)
    for i in range(len(plan) - 1, -1, -1):
        rest[i] = rest[i + 1] + plan[i][0] * lmax
    reach = prior_max + max(ctx.values(), default=0.0) + _most_bonus(q)
    prune = not needed and not any(g.required for g in q.groups)
    closed = False
    for i, (_, g, weights, _files) in enumerate(plan):
        if prune and not closed and i and len(body) >= limit:
            # The bar is at most the best line's score: skip counting it when even that is short.
            most = reach + max(body.values()) * lmax
            if reach + rest[i] < most:
                closed = reach + rest[i] < _bar(words, body, ctx, prior, limit, fence_penalty)
        lines = _lines(words, weights, body if closed else None)
        _add(body, lines, 1.0)
        if g.required:
            needed.append((set(lines), set(_files)))
    return _top(q, words, body, ctx, needed, prior, limit, fence_penalty, prior_max)


def _lines(
    words: WordIndex, weights: list[tuple[float, str]], only: dict[int, float] | None
) -> dict[int, float]:
    """Line -> weight of one query word (the best of its stems); only lines in `only`, if given."""
    out: dict[int, float] = {}
    for w, s in weights:
        for posting in words.lines(s):
            if only is not None:
                for k in only.keys() & posting:
                    out.setdefault(k, w)
            elif not out:
                out = dict.fromkeys(posting, w)
            else:
                for k in posting:
                    out.setdefault(k, w)
    return out


def _bar(
    words: WordIndex,
    body: dict[int, float],
    ctx: dict[int, float],
    prior: Sequence[float],
    limit: int,
    fence_penalty: float,
) -> float:
    """A score the top `limit` will reach: the limit-th best of what the lines with the most
    weight found so far score already (a line in a fenced file counted as if it were code)."""
    blob, dl, dead = words.blob, words.dl, words.dead
    line_file, fenced = blob.line_file, blob.fenced
    norm_a, norm_b, top = 1 + K1 * (1 - B), K1 * B / words.avgdl, K1 + 1
    # The heaviest lines are real lines: the limit-th best of their scores is a lower bound.
    heavy = sorted(body.items(), key=itemgetter(1), reverse=True)[: limit * 4]
    now = [
        prior[k]
        + w * top / (norm_a + norm_b * dl[k])
        + ctx.get(f, 0.0)
        - (fence_penalty if f in fenced else 0.0)
        for k, w in heavy
        for f in (line_file[k],)
        if f not in dead
    ]
    return heapq.nlargest(limit, now)[-1] if len(now) >= limit else math.inf


def _named(words: WordIndex, body: dict[int, float], files: dict[int, float]) -> None:
    """Every line (with a word) of the files a query word names in their path or title is a
    hit, unless the word names many files or lines (such as `api`): then only their titles."""
    firsts, dl = words.blob.firsts, words.dl
    if len(files) > CONTEXT_FILES or sum(firsts[f + 1] - firsts[f] for f in files) > CONTEXT_LINES:
        return
    for f in files:
        for k in range(firsts[f], firsts[f + 1]):
            if dl[k]:
                body.setdefault(k, 0.0)


def _add(total: dict[int, float], more: dict[int, float], share: float) -> None:
    if share == 1.0:
        for k, w in more.items():
            total[k] = total.get(k, 0.0) + w
    else:
        for k, w in more.items():
            total[k] = total.get(k, 0.0) + share * w


def _top(
    q: Ranked,
    words: WordIndex,
    body: dict[int, float],
    ctx: dict[int, float],
    needed: list[tuple[set[int], set[int]]],
    prior: Sequence[float],
    limit: int,
    fence_penalty: float,
    prior_max: float,
) -> list[tuple[float, int, int]]:
    blob, dl, dead = words.blob, words.dl, words.dead
    line_file, rank_of = blob.line_file, blob.rank
    norm_a, norm_b, top = 1 + K1 * (1 - B), K1 * B / words.avgdl, K1 + 1
    if needed:
        body = {
            k: w for k, w in body.items() if all(k in ls or line_file[k] in fs for ls, fs in needed)
        }
    # Heaviest lines first, in growing chunks; once the top `limit` is full, a chunk whose
    # heaviest line's best case (best prior, context and bonus, the shortest line) cannot
    # reach it ends the scan.
    most = _most_bonus(q)
    reach = prior_max + max(ctx.values(), default=0.0) + most
    scored: list[tuple[float, int, int, int]] = []
    kept: list[float] = []  # the best `limit` scores so far
    fenced, bullet = blob.fenced, blob.bullet
    heavy = sorted(body.items(), key=itemgetter(1), reverse=True)
    start, size = 0, limit * 4
    while start < len(heavy):
        chunk = heavy[start : start + size]
        start, size = start + size, size * 2
        if len(kept) >= limit and reach + chunk[0][1] * top / norm_a < kept[-1]:
            break
        more = [
            (
                prior[k]
                + w * top / (norm_a + norm_b * dl[k])
                + ctx.get(f, 0.0)
                - (fence_penalty if f in fenced and bullet[k] and not blob.is_entry(k, f) else 0),
                -rank_of[f],
                -k,
                f,
            )
            for k, w in chunk
            for f in (line_file[k],)
            if f not in dead
        ]
        scored += more
        kept = heapq.nlargest(limit, [*kept, *(m[0] for m in more)])
    if most and len(scored) > 0:
        # Only lines within reach of the top `limit` once the bonus is added are looked at.
        reach = heapq.nlargest(limit, scored)[-1][0] - most
        scored = [_with_bonus(q, blob, s) if s[0] >= reach else s for s in scored]
    best = heapq.nlargest(limit, scored)
    if not best:
        return []
    # Ties on the score go to the newer `added`: take every line tied with the last one kept.
    bar = best[-1][0]
    tied = best if len(best) < limit else [s for s in scored if s[0] >= bar]
    tied.sort(key=lambda s: (s[0], _added(blob, -s[2]), s[1], s[2]), reverse=True)
    return [(round(score, 4), -k, f) for score, _, k, f in tied[:limit]]


def _most_bonus(q: Ranked) -> float:
    return SEQUENCE if q.sequence is not None else 0.0


def _with_bonus(
    q: Ranked, blob: FoldedText, s: tuple[float, int, int, int]
) -> tuple[float, int, int, int]:
    """The scored line with its bonus for the query's words side by side, as typed."""
    line = blob.line(-s[2])
    if q.sequence is not None and q.sequence in line:
        return (s[0] + SEQUENCE, s[1], s[2], s[3])
    more = min(SEQUENCE, PAIR * sum(1 for p in q.pairs if p in line))
    return (s[0] + more, s[1], s[2], s[3])


def _added(blob: FoldedText, k: int) -> bytes:
    line = blob.line(k)
    at = line.find(b"added:")
    return line[at + 6 : at + 18].strip()[:10] if at >= 0 else b""
