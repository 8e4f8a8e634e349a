"""A search query: its words and "quoted phrases" (folded as the index is), the weights a match
earns, and what every line's score for one query shares (`Query`). memory/search/index.py
ranks with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.search.folded import fold

# Ranking weights a term earns (the rest of the ranking is in memory/search/index.py).
PHRASE = 2.0  # a quoted phrase found in the line
WORD = 1.0  # a word found in the line
WHOLE_WORD = 1.5  # multiplier when the match starts and ends on word boundaries
SEQUENCE_BONUS = 1.0  # the unquoted words appear in the line in query order, as a phrase
CONTEXT_BONUS = 0.5  # a term that is also in the path or title

_TOKEN = re.compile(r'"([^"]*)"?|(\S+)')


@dataclass(frozen=True)
class Term:
    """One query term, folded to lower case and UTF-8 encoded, as it is matched."""

    text: bytes
    phrase: bool


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


class Query:
    """A parsed query and what every line's score shares."""

    def __init__(self, terms: list[Term], in_ctx: list[set[int]]) -> None:
        self.terms = terms
        self.in_ctx = in_ctx  # per term: the files whose path or title contains it
        words = [t.text for t in terms if not t.phrase]
        self.sequence = b" ".join(words) if len(words) > 1 else None
        self.bonus: dict[int, float] = {}  # per file: context bonus over all terms
        for ctx in in_ctx:
            for f in ctx:
                self.bonus[f] = self.bonus.get(f, 0.0) + CONTEXT_BONUS
        # The most the terms can add to a line's prior, before its file's context bonus.
        self.best = sum((PHRASE if t.phrase else WORD) * WHOLE_WORD for t in terms)
        self.best += (SEQUENCE_BONUS if self.sequence else 0.0) + 1e-3
        # What the lines where no term is a whole word miss of `best`.
        self.partial = sum((PHRASE if t.phrase else WORD) * (WHOLE_WORD - 1) for t in terms)
