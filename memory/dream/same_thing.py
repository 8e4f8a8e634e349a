"""Tidy's candidate pairs (memory/dream/merge.py): entries close in meaning, found the way
retrieval ranks a note for a query. Each entry is its terms (memory/dream/merge.py `_keys`,
memory/facts/wording.py: inflections, irregular forms, synonyms and abbreviations folded, stop
words out, codes whole), each term weighted by its rarity in the memory, w = log(1 + N / n) for
a term on n of the N entries: a word every entry says weighs little, a rare name much. Two
entries are close when the terms they share weigh at least MEANING of what both weigh (weighted
Dice), unless they are short and each says something the other lacks that weighs more than
SWAP_RATIO of what they share (one thing swapped for another: "plays the guitar" / "plays the
flute"); they must share a rare term (on at most COMMON entries) and be about one thing (one's
identifiers all among the other's, `merge._one_thing`).

Found without meeting every pair (prefix filtering, weighted): with terms ranked once, rarest
first, two close entries share a term among the first terms of each whose weight leaves less
than MEANING / (2 - MEANING) of the entry's weight after them (their rarest shared term is one:
else what they share weighs less than that). So an entry's pairs are among the earlier entries
that share a rare plain term of its first terms (the plain-term index), that name two of its
rare identifiers, or, when one of the two names a single rare identifier, that name it (the
identifier index): whichever names the fewer, the other names them all. A term on one entry
alone is indexed nowhere: it meets no one. tests/memory/dream/test_same_thing.py checks the pairs
against the rule pair by pair.
"""

from __future__ import annotations

import math
import re
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain, combinations
from typing import Protocol

import memory.facts.contradictions as cx

COMMON = 50  # entries per (rare) term compared at most: bounds the work on huge memories
# weighted Dice of two entries' terms from which they are a candidate pair: on public news,
# caption and entailment corpora (bench/duplicates.py --corpus) it keeps 90% or more of the
# pairs people labelled the same meaning
MEANING = 0.45
SWAP_SHARED = 2  # entries sharing at most this many terms are short: a swap is judged
SWAP_RATIO = 0.5  # what each says alone weighs over this share of what they share: a swap
Pair = tuple[int, int, float]  # (j, i, closeness), j < i
_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=65536)
def is_ident(key: str) -> bool:
    """An identifier among an entry's keys: a code with a digit ("billing-806", "inc-1042"), not
    a plain number, quantity or time, as memory/facts/contradictions.py reads them."""
    return bool(_DIGIT.search(key)) and not cx.QUANTITY.fullmatch(key) and not key.isdigit()


class Keyed(Protocol):
    keys: tuple[str, ...]


class Weights:
    """Each term's weight in a memory: log(1 + N / n) for a term on n of its N entries."""

    def __init__(self, count: dict[str, int], n: int) -> None:
        self.count = count  # terms on more than one entry → how many (the rest are on one)
        top = max(count.values(), default=1)
        self._by_n = [0.0, *(math.log(1 + n / k) for k in range(1, top + 1))]

    def __call__(self, key: str) -> float:
        return self._by_n[self.count.get(key, 1)]

    def total(self, keys: Iterable[str]) -> float:
        by_n, count = self._by_n, self.count
        return sum(by_n[count.get(k, 1)] for k in keys)


def closeness(
    mine: set[str], theirs: Sequence[str], weight: Weights, w_mine: float, w_theirs: float
) -> float:
    """Weighted Dice of two entries' terms (their weights given), 0 for a short pair with one
    thing swapped for another."""
    shared = mine.intersection(theirs)
    if not shared:
        return 0.0
    both = weight.total(shared)
    short = len(shared) <= SWAP_SHARED and len(shared) < min(len(mine), len(theirs))
    if short and min(w_mine, w_theirs) - both > SWAP_RATIO * both:
        return 0.0
    return 2 * both / (w_mine + w_theirs)


def candidates(found: Sequence[Keyed]) -> list[Pair]:
    """Pairs (j, i, closeness), j < i, sorted: close in meaning (module docstring), sharing a
    rare term, about one thing. Each entry's terms are put in order on the way (its identifiers
    first, each part rarest first): the same terms, so a night holds one tuple per entry."""
    count = Counter(chain.from_iterable(it.keys for it in found))
    # places among the terms met more than once, rarest first (ties by the term), from 1; a
    # term on one entry only is place 0 (not in the table: at 100,000 files most terms are codes
    # said once) and meets no one
    shared = sorted((n, w) for w, n in count.items() if n > 1)
    del count
    index = _Index(
        Counter({w: r for r, (_, w) in enumerate(shared, 1)}),
        1 + sum(1 for n, _ in shared if n <= COMMON),  # places from here: too common
        Weights({w: n for n, w in shared}, len(found)),
    )
    del shared
    pairs: list[Pair] = []
    for i, it in enumerate(found):
        words = sorted(it.keys, key=index.rank.__getitem__)
        idents = [w for w in words if is_ident(w)]
        mine = set(idents)
        it.keys = (*idents, *[w for w in words if w not in mine]) if idents else tuple(words)
        index.nids.append(len(idents))
        met = index.plain(i, words, mine)
        cands = index.about_one(i, idents, met, found) if idents else met
        if cands:
            _overlapping(i, set(it.keys), cands, found, index, pairs)
    return sorted(pairs)


class _Index:
    """What the entries seen so far left to meet the next: the plain-term index, the identifier
    index, each entry's weight and count of identifiers."""

    def __init__(self, rank: Counter[str], common: int, weight: Weights) -> None:
        self.rank, self.common, self.weight = rank, common, weight
        self.words_at: dict[str, list[int]] = defaultdict(list)  # rare plain term → entries
        self.holders: dict[str, list[int]] = defaultdict(list)  # rare identifier → entries
        self.lone: dict[str, list[int]] = defaultdict(list)  # the one rare identifier of some
        self.nids: list[int] = []  # each entry's count of identifiers, the first of its keys
        self.totals = array("d")  # each entry's weight

    def plain(self, i: int, words: list[str], mine: set[str]) -> set[int]:
        """Earlier entries sharing a rare plain term among entry i's first terms; i is added."""
        total = self.weight.total(words)
        self.totals.append(total)
        rest, left, met = MEANING / (2 - MEANING) * total, total, set()
        for w in words:
            if left < rest:
                break  # what is left weighs too little to make a pair alone
            left -= self.weight(w)
            r = self.rank[w]
            if r >= self.common:
                break  # this term and the rest are too common to say which fact it is
            if r and w not in mine:
                hits = self.words_at[w]
                met.update(hits)
                hits.append(i)
        return met

    def about_one(
        self, i: int, idents: list[str], met: set[int], found: Sequence[Keyed]
    ) -> set[int]:
        """Of `met` and of the identifier index, the earlier entries about the one thing entry i
        is about (one's identifiers all among the other's); i is added to the index."""
        rank, nids, mine = self.rank, self.nids, set(idents)
        cands = {j for j in met if _one_thing(mine, found[j].keys[: nids[j]])}
        rare = [w for w in idents if 0 < rank[w] < self.common]
        alone = not rank[idents[0]]  # an identifier no other entry names
        for j in _sharing_two(rare, self.holders):  # all of either's among the other's
            if j not in cands and _one_thing(mine, found[j].keys[: nids[j]]):
                cands.add(j)
        if len(rare) == 1 and not alone:  # all of mine among theirs: they hold my rare one
            held = self.holders.get(rare[0], ())
            if len(idents) == 1:
                cands.update(held)
            else:
                cands.update(j for j in held if mine.issubset(found[j].keys[: nids[j]]))
        for w in rare:  # all of theirs among mine, their one rare identifier one of mine
            for j in self.lone.get(w, ()):
                if j not in cands and mine.issuperset(found[j].keys[: nids[j]]):
                    cands.add(j)
        for w in rare:
            self.holders[w].append(i)
        if len(rare) == 1 and not alone:
            self.lone[rare[0]].append(i)
        return cands


def _one_thing(mine: set[str], theirs: tuple[str, ...]) -> bool:
    """`merge._one_thing` on identifiers: one's all among the other's (none is among any)."""
    return mine.issuperset(theirs) or mine.issubset(theirs)


def _sharing_two(rare: list[str], holders: dict[str, list[int]]) -> set[int]:
    """Earlier entries naming at least two of the rare identifiers `rare`: whichever of two
    entries names the fewer, if it names two rare ones, the other holds both."""
    if len(rare) < 2:
        return set()
    if len(rare) > 4:  # many: counted once each, not pair by pair
        seen = Counter(chain.from_iterable(holders.get(w, ()) for w in rare))
        return {j for j, n in seen.items() if n > 1}
    out: set[int] = set()
    for a, b in combinations(rare, 2):
        out.update(set(holders.get(a, ())).intersection(holders.get(b, ())))
    return out


def _overlapping(
    i: int,
    mine: set[str],
    cands: set[int],
    found: Sequence[Keyed],
    index: _Index,
    pairs: list[Pair],
) -> None:
    """The pairs (j, i, closeness) of `cands` close enough (MEANING)."""
    totals, weight = index.totals, index.weight
    w_mine = totals[i]
    for j in cands:
        w_theirs = totals[j]
        if 2 * min(w_mine, w_theirs) < MEANING * (w_mine + w_theirs):
            continue  # what they share weighs at most the lighter: below MEANING
        close = closeness(mine, found[j].keys, weight, w_mine, w_theirs)
        if close >= MEANING:
            pairs.append((j, i, close))
