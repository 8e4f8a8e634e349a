"""What one word is to a statement's meaning: the term tidy's duplicate search compares
(memory/dream/same_thing.py), so that two wordings of one fact meet as a candidate pair.

A word's term is its canonical form: stop words (articles, auxiliaries, pronouns, prepositions,
quantifiers, reporting verbs) say nothing about which fact it is and have none; irregular forms
take their base ("ran" → "run", "men" → "man"); spellings and abbreviations of one thing fold
("db" → "database", "k8s" → "kubernetes", the tables of memory/facts/comparison.py and
statements.py); common synonyms fold (memory/facts/synonyms.py); then Snowball's English stem
(plurals and tenses: "releases", "released", "releasing" → "releas"). Codes with a digit stay
whole ("billing-806"); numbers written as words are digits (merge's keys do that).

Pure and cached: a night keys every entry of the memory, whose vocabulary repeats.
"""

from __future__ import annotations

from functools import cache, lru_cache

import snowballstemmer

from memory.facts import synonyms
from memory.facts.comparison import SYNONYMS as _FACT_SYNONYMS
from memory.facts.lexicon import IRREGULAR, NEGATIONS
from memory.facts.statements import SPELLINGS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP = (
    _words(
        "a an the is are was were be been being am do does did done has have had having will "
        "shall would should can could may might must of in on at to for from by with into onto "
        "over under about as and or but if then than so that which who whom whose what when where "
        "why how it its this these those there here he she they we you i me him her them us my "
        "your his our their also just very really still now even only some any all each every "
        "both either several many much more most other another such said says say saying told "
        "tells according yesterday today get gets got getting while during within across via per "
        "up out off down again already currently please note one's someone something anyone "
        "anything everyone everything nobody nothing no not never none n't s t don doesn didn "
        "isn aren wasn weren hasn haven hadn couldn shouldn wouldn"
    )
    | NEGATIONS
)  # negations: judged after (statements.py), not what a fact is about
_STEM = snowballstemmer.stemmer("english")


def _stem(word: str) -> str:
    return str(_STEM.stemWord(IRREGULAR.get(word, word)))


@cache
def _folds() -> dict[str, str]:
    """Stem → the stem of the word its group folds to (built on first use, not at import)."""
    out: dict[str, str] = {}
    pairs = [(w, g[0]) for g in synonyms.groups() for w in g[1:]]
    for word, head in [*pairs, *_FACT_SYNONYMS.items(), *SPELLINGS.items()]:
        out.setdefault(_stem(word), _stem(head))
    return out


@lru_cache(maxsize=65536)
def term(word: str) -> str:
    """The term of one lower-case alphabetic word, or "" for a stop word."""
    if word in STOP:
        return ""
    stem = _stem(word)
    return _folds().get(stem, stem)
