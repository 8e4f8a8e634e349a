"""When entries state the same fact, contradict one, or bring back a forgotten one.

comparison.py: one fact in other words (`fact`, `same`, `conflict`, `covers`; content words,
numbers, negations, opposite words); contradictions.py: what a new entry is to the entries on
its subject (confirm, refine, contradict or new), optionally asked of a `Judge`; tombstones.py:
the forgotten facts of forgotten.md, which no stale writer may bring back; statements.py: when
tidy may merge two entries (provably one statement, possibly, or different); lexicon.py: the word
lists they share (negations, number words, units, opposites); timebound.py: what makes a note
short-lived.
"""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.facts.comparison import Fact, conflict, covers, fact, same
    from memory.facts.contradictions import (
        CONFIRM,
        CONTRADICT,
        NEW,
        REFINE,
        Finding,
        Judge,
        compare,
    )
    from memory.facts.tombstones import Stones, Tombstone

# Each name is imported from its module when first used (memory/lazy.py).
__getattr__, __dir__ = exports(
    __name__,
    {
        "comparison": (
            "Fact",
            "conflict",
            "covers",
            "fact",
            "same",
        ),
        "contradictions": (
            "CONFIRM",
            "CONTRADICT",
            "NEW",
            "REFINE",
            "Finding",
            "Judge",
            "compare",
        ),
        "tombstones": (
            "Stones",
            "Tombstone",
        ),
    },
)

__all__ = [
    "CONFIRM",
    "CONTRADICT",
    "NEW",
    "REFINE",
    "Fact",
    "Finding",
    "Judge",
    "Stones",
    "Tombstone",
    "compare",
    "conflict",
    "covers",
    "fact",
    "same",
]
