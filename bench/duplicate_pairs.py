"""An adversarial set of entry pairs for tidy's duplicate merge, written for hippo (issue 26).

The styles are those public paraphrase and entailment corpora are built around (word-order swaps
with high word overlap, one-sided negations, antonyms, passive against active, numbers as words
and digits, near-synonyms, hedges), studied for their shape; every sentence here is our own, in
the language of a team's memory plus some everyday sentences. Each template is filled with
several subjects so that a rule cannot pass by luck of one word.

`pairs()` → (style, label, a, b); label "same" (one statement in other words: merging loses
nothing) or "different" (merging would lose or distort a fact). The templates:
bench/duplicate_opposed.py (role swaps, negations, antonyms) and bench/duplicate_reworded.py
(passive, numbers, near-synonyms, hedges, paraphrases), filled from bench/duplicate_subjects.py.
"""

from __future__ import annotations

from collections.abc import Iterator

from bench import duplicate_opposed, duplicate_reworded, duplicate_variants
from bench.duplicate_subjects import FILLS, PEOPLE, REGIONS, TEAMS, Template

# In the order the styles were written: the generated pairs are the same, byte for byte.
TEMPLATES: list[Template] = [
    *duplicate_opposed.TEMPLATES,
    *duplicate_reworded.TEMPLATES,
    *duplicate_variants.TEMPLATES,
]


def _pool_pair(pool: list[str], i: int) -> tuple[str, str]:
    return pool[i % len(pool)], pool[(i + 1 + i // len(pool)) % len(pool)]


def pairs() -> Iterator[tuple[str, str, str, str]]:
    """Every template filled FILLS times: (style, label, a, b)."""
    for _style, pool, (style, label, a, b) in TEMPLATES:
        for i in range(FILLS):
            x, y = _pool_pair(pool, i)
            if x == y:
                y = pool[(i + 2) % len(pool)]
            fill = {
                "x": x,
                "y": y,
                "p": PEOPLE[i % len(PEOPLE)],
                "t": TEAMS[i % len(TEAMS)],
                "r": REGIONS[i % len(REGIONS)],
            }
            yield style, label, a.format(**fill), b.format(**fill)
