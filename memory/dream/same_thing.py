"""Tidy's candidate pairs (memory/dream/merge.py): entries whose cheap keys overlap by at least
BLOCK (Jaccard), that share a rare key and that may be about one thing, found from an index of
identifiers and one of rare plain words instead of meeting every pair through every shared key
(at 100,000 files 16 million pairs met through a shared rare code, for 142,000 kept).

The rule, as prefix filtering put it: two key sets with Jaccard ≥ BLOCK share at least one of
the |A| - ceil(BLOCK·|A|) + 1 rarest keys of each (keys ranked once, rarest first), and a pair
is compared only when such a shared key is rare (on at most COMMON entries). For a pair that
reaches BLOCK that is the same as sharing any rare key: the rarest key they share is then among
the first of each. And two entries are about one thing (`merge._one_thing`) only when one's
identifiers are all among the other's (one naming none passes). So an entry's pairs are among
the earlier entries that share a rare plain word of its first keys (the plain-word index), that
name two of its rare identifiers, or, when one of the two names a single rare identifier, that
name it (the identifier index): whichever names the fewer, the other names them all. A key on
one entry alone is indexed nowhere: it meets no one. tests/memory/dream/test_same_thing.py
checks the pairs against the rule pair by pair.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, combinations
from typing import Protocol

import memory.facts.contradictions as cx

COMMON = 50  # entries per (rare) word compared at most: bounds the work on huge memories
# key-set Jaccard from which two entries are compared at all: below facts.SAME, as keys are
# rougher than a fact's words (no synonyms, no stems), and pairs with the same claims share
# their repository, number or path words
BLOCK = 0.5
_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=65536)
def is_ident(key: str) -> bool:
    """An identifier among an entry's keys: a code with a digit ("billing-806", "inc-1042"), not
    a plain number, quantity or time, as memory/facts/contradictions.py reads them."""
    return bool(_DIGIT.search(key)) and not cx.QUANTITY.fullmatch(key) and not key.isdigit()


class Keyed(Protocol):
    keys: tuple[str, ...]


def candidates(found: Sequence[Keyed]) -> list[tuple[int, int]]:
    """Pairs (j, i), j < i, sorted: Jaccard of their keys ≥ BLOCK, sharing a rare key, about one
    thing. Each entry's keys are put in order on the way (its identifiers first, each part
    rarest first): the same keys, so a night holds one tuple per entry, not two."""
    count = Counter(chain.from_iterable(it.keys for it in found))
    # places among the keys met more than once, rarest first (ties by the word), from 1; a key
    # on one entry only is place 0 (not in the table: at 100,000 files most keys are codes
    # said once) and meets no one
    shared = sorted((n, w) for w, n in count.items() if n > 1)
    del count
    common = 1 + sum(1 for n, _ in shared if n <= COMMON)  # places from here: too common
    rank: Counter[str] = Counter({w: r for r, (_, w) in enumerate(shared, 1)})
    del shared
    words_at: dict[str, list[int]] = defaultdict(list)  # rare plain word → entries (first keys)
    holders: dict[str, list[int]] = defaultdict(list)  # rare identifier → entries naming it
    lone: dict[str, list[int]] = defaultdict(list)  # the one rare identifier of those with one
    nids: list[int] = []  # each entry's count of identifiers, the first of its keys
    pairs: list[tuple[int, int]] = []
    for i, it in enumerate(found):
        words = sorted(it.keys, key=rank.__getitem__)
        idents = [w for w in words if is_ident(w)]
        mine = set(idents)
        it.keys = (*idents, *[w for w in words if w not in mine]) if idents else tuple(words)
        nids.append(len(idents))
        keep = len(words) - math.ceil(BLOCK * len(words)) + 1
        met: set[int] = set()
        for w in words[:keep]:
            r = rank[w]
            if r >= common:
                break  # this word and the rest are too common to say which fact it is
            if r and w not in mine:
                hits = words_at[w]
                met.update(hits)
                hits.append(i)
        if not idents:
            cands = met  # naming no identifier: about one thing with any
        else:
            cands = {j for j in met if _one_thing(mine, found[j].keys[: nids[j]])}
            rare = [w for w in idents if 0 < rank[w] < common]
            alone = not rank[idents[0]]  # an identifier no other entry names
            for j in _sharing_two(rare, holders):  # all of either's among the other's
                if j not in cands and _one_thing(mine, found[j].keys[: nids[j]]):
                    cands.add(j)
            if len(rare) == 1 and not alone:  # all of mine among theirs: they hold my rare one
                if len(idents) == 1:
                    cands.update(holders.get(rare[0], ()))
                else:
                    cands.update(
                        j
                        for j in holders.get(rare[0], ())
                        if mine.issubset(found[j].keys[: nids[j]])
                    )
            for w in rare:  # all of theirs among mine, their one rare identifier one of mine
                for j in lone.get(w, ()):
                    if j not in cands and mine.issuperset(found[j].keys[: nids[j]]):
                        cands.add(j)
            for w in rare:
                holders[w].append(i)
            if len(rare) == 1 and not alone:
                lone[rare[0]].append(i)
        if cands:
            _overlapping(i, it.keys, cands, found, pairs)
    return sorted(pairs)


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
    keys: tuple[str, ...],
    cands: set[int],
    found: Sequence[Keyed],
    pairs: list[tuple[int, int]],
) -> None:
    """The pairs (j, i) of `cands` whose keys reach BLOCK (Jaccard)."""
    n = len(keys)
    lo, mine = BLOCK * n, set(keys)
    for j in cands:
        theirs = found[j].keys
        m = len(theirs)
        if m < lo or n < BLOCK * m:
            continue  # the overlap is at most the smaller set: below BLOCK of the larger
        both = len(mine.intersection(theirs))
        if both >= BLOCK * (n + m - both):
            pairs.append((j, i))
