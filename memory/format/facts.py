"""Entry texts reduced for comparing facts: the same fact, whatever its metadata, case,
punctuation or script (memory/format/folding.py). Two entries say the same fact when their
texts, metadata, case, punctuation and script aside, have the same words.
"""

from __future__ import annotations

import memory.format.folding as folding
from memory.format.document import BULLET, split_metadata


def words(text: str) -> str:
    """All of `text`'s words, folded (memory/format/folding.py: any script, case, look-alikes and
    invisible characters folded), joined by single spaces (no grammar applied)."""
    return " ".join(folding.words(text))


def normalise(text: str) -> str:
    """Text reduced for comparing facts: metadata, links' brackets, case, punctuation and
    invisible characters dropped, letters and digits of every script kept, look-alike letters
    folded. "" when the text has no words at all: such an entry has no key and is never matched
    by one (see `same_fact`)."""
    body, _ = split_metadata(text.strip())
    m = BULLET.match(body)
    if m:
        body, _ = split_metadata(m.group("rest"))
    return " ".join(folding.words(body))


def fact_key(text: str) -> str:
    """A key for indexing entries by fact: the normalised text, or, for a text with no words,
    its exact characters marked so that no normalised key can equal them."""
    key = normalise(text)
    return key if key else "\x00" + " ".join(text.split())


def same_fact(a: str, b: str) -> bool:
    """True when entry texts `a` and `b` say the same thing: equal non-empty keys, or, for texts
    with no words (an emoji, a dash), the same characters."""
    return fact_key(a) == fact_key(b)
