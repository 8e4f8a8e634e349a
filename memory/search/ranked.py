"""Ranked search over all query words: BM25 over lines, so a missing word costs rank, never the
hit. Search, recall, the MCP tools and briefings all rank this way: SQLite FTS5 finds the
candidate lines (memory/search/fts.py), this module parses the query and scores them.

Each query word matches its word forms (one Snowball stem: deploy, deploys, deployed), longer
words it begins (`config` → configuration, at PREFIX of the weight) and, when no line holds it,
words one typo away (at TYPO). A word also counts, at CONTEXT of its weight, for every line of
a file whose path or title holds it. "Quoted phrases" must occur as written (in the line or its
file's path or title, their words as words), and so must a `+word` (in one of its forms).
Common question words ("what", "the", "how") are left out unless they are all the query says.

A line's score is its prior (memory/search/priors.py: entries above prose, long entries and removed
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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from memory.search.bounds import MAX_TYPO, MAX_TYPO_WORDS, MAX_WORDS, bound
from memory.search.folded import fold
from memory.search.words import stem, term, tokens

K1 = 1.2  # BM25 saturation (moot with binary term frequency, kept in the length norm)
B = 0.75  # BM25 length normalisation: a word in a short line says more than in a long one
CONTEXT = 0.5  # a word in the file's path or title, for every line of the file
PREFIX = 0.6  # a longer word the query word begins (partial words: kube → kubernetes)
TYPO = 0.5  # a word one edit away, only for a query word that no line holds
SEQUENCE = 1.0  # the query's words side by side in the line, in order, as typed (the most)
PAIR = 0.5  # each two words of the query side by side in the line, as typed
MIN_PREFIX = 4  # shorter words match longer ones only when they occur nowhere themselves
MAX_EXPANSIONS = 16  # at most this many other stems per query word, the most common first

STOP = frozenset(
    b"""a about an and any are as at be been but by can could did do does for from had has have
how i if in into is it its me my no not of on or our should so that the their them then there
these this those to us was we were what when where which who whom why will with would you your
""".split()
)

_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


class Vocabulary(Protocol):
    """What parsing a query asks of the index: how common a stem is, and the words it holds."""

    def df(self, s: str) -> int:
        """Live lines holding stem `s`."""

    def named(self, s: str) -> bool:
        """Whether some file's path or title holds stem `s`."""

    def with_prefix(self, prefix: bytes) -> list[bytes]:
        """Live words that start with `prefix` (and are longer), sorted."""

    def near(self, word: bytes) -> list[bytes]:
        """Live words one edit from `word`, sorted."""


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


def parse(query: str, words: Vocabulary) -> Ranked:
    """The query's words (each with the stems it matches here) and its quoted phrases, within
    memory/search/bounds.py's bounds."""
    query = bound(query).query
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
    typos = [MAX_TYPO_WORDS]  # unknown words still to look typos up for
    for t, required in kept:
        if stem(t) not in seen and len(groups) < MAX_WORDS:
            seen.add(stem(t))
            groups.append(Group(t, _stems(t, words, required, typos), required))
    sequence = b" ".join(typed) if len(typed) > 1 else None
    pairs = tuple(dict.fromkeys(a + b" " + b for a, b in pairwise(typed))) if len(typed) > 2 else ()
    return Ranked(tuple(groups), tuple(phrases), sequence, pairs)


def _stems(
    word: bytes, words: Vocabulary, exact: bool, typos: list[int]
) -> tuple[tuple[str, float], ...]:
    """The stems `word` matches: its own, then (unless `exact`) those of longer words it
    begins, or else those of words one typo away (for a word of MAX_TYPO letters at most, while
    `typos[0]`, the query's budget of such look-ups, lasts)."""
    own = stem(word)
    found = {own: 1.0} if words.df(own) > 0 or words.named(own) else {}
    if exact or not word.isalpha():
        return tuple(found.items())
    if len(word) >= MIN_PREFIX or (len(word) >= 3 and not found):
        more = {stem(w) for w in words.with_prefix(word)} - {own}
        for s in sorted(more, key=lambda s: (-words.df(s), s))[:MAX_EXPANSIONS]:
            found[s] = PREFIX
    if not found and 4 <= len(word) <= MAX_TYPO and typos[0] > 0:
        typos[0] -= 1
        near = {stem(w) for w in words.near(word)}
        for s in sorted(near, key=lambda s: (-words.df(s), s))[:MAX_EXPANSIONS]:
            found[s] = TYPO
    return tuple(found.items())


@dataclass(frozen=True)
class Line:
    """A candidate line, as the index stores it: its stems and its file's (FTS5 terms, see
    `memory.search.words.term`), its folded text and its file's folded path and title."""

    path: str
    line: int  # 1-based
    body: str  # its stems, space-separated, with a space either end
    ctx: str
    folded: bytes
    context: bytes
    prior: float  # memory/search/priors.py, a bullet in a code fence already taken back
    dl: int  # distinct words of the entry text


def best(
    q: Ranked,
    lines: Iterable[Line],
    idf: Callable[[str], float],
    avgdl: float,
    limit: int,
) -> list[tuple[float, Line]]:
    """The best `limit` of `lines` (score, line), best first: ties go to the newer `added`,
    then the first path, then the first line. A line missing a +word or phrase is dropped."""
    groups = [
        sorted(((fac * idf(s), f" {term(s)} ") for s, fac in g.stems), reverse=True)
        for g in q.groups
    ]
    phrases = [(p, sum(idf(stem(t)) for t in dict.fromkeys(tokens(p)))) for p in q.phrases]
    required = [[f" {term(s)} " for s, _ in g.stems] for g in q.groups if g.required]
    norm_a, norm_b, top = 1 + K1 * (1 - B), K1 * B / avgdl, K1 + 1
    scored: list[tuple[float, Line]] = []
    for ln in lines:
        if any(not any(t in ln.body or t in ln.ctx for t in need) for need in required):
            continue
        body = ctx = 0.0
        for weights in groups:  # a word counts once, by the heaviest of its stems the line holds
            for w, t in weights:
                if t in ln.body:
                    body += w
                    break
            for w, t in weights:
                if t in ln.ctx:
                    ctx += w
                    break
        for p, w in phrases:
            here, named = p in ln.folded, p in ln.context
            if not (here or named):
                break
            body += w if here else 0.0
            ctx += w if named else 0.0
        else:
            score = ln.prior + body * top / (norm_a + norm_b * ln.dl) + CONTEXT * ctx
            scored.append((score, ln))
    if not scored or limit <= 0:
        return []
    if q.sequence is not None:
        # Only lines within reach of the top `limit` once the bonus is added are looked at.
        bar = heapq.nlargest(limit, (s for s, _ in scored))[-1] - SEQUENCE
        scored = [(s + _bonus(q, ln.folded), ln) if s >= bar else (s, ln) for s, ln in scored]
    # Ties on the score go to the newer `added`: sort every line tied with the last one kept.
    bar = heapq.nlargest(limit, (s for s, _ in scored))[-1]
    tied = [(s, _reverse(_added(ln.folded)), ln.path, ln.line, ln) for s, ln in scored if s >= bar]
    tied.sort(key=lambda t: (-t[0], t[1], t[2], t[3]))
    return [(round(t[0], 4), t[4]) for t in tied[:limit]]


def _bonus(q: Ranked, line: bytes) -> float:
    """The query's words side by side in the line, as typed."""
    if q.sequence is None:
        return 0.0
    if q.sequence in line:
        return SEQUENCE
    return min(SEQUENCE, PAIR * sum(1 for p in q.pairs if p in line))


def _added(line: bytes) -> bytes:
    at = line.find(b"added:")
    return line[at + 6 : at + 18].strip()[:10] if at >= 0 else b""


def _reverse(added: bytes) -> bytes:
    """A key that sorts newer dates first (and any date before none)."""
    return bytes(255 - c for c in added) + b"\xff"


def idf(docs: int, df: int) -> float:
    """BM25's weight of a stem that `df` of `docs` lines hold: rarer words weigh more."""
    return math.log(1 + (docs - df + 0.5) / (df + 0.5))
