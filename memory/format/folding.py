"""Text folded for comparing facts, in every script: the words of a text, Unicode-aware.

Two entries are "the same fact" when their folded words are equal. Folding is: NFKC (full-width
and styled letters become plain ones), case folding, invisible format characters (zero-width
space, joiners, bidi marks, soft hyphen) removed, and letters of other scripts that look like a
Latin letter (Cyrillic 'а', Greek 'ο') folded to it, so a look-alike cannot slip past a tombstone.
Words are runs of letters, digits and combining marks of any script (a Devanagari vowel sign
belongs to its word). ASCII text takes a fast path that gives the same result as before.

The look-alike table comes from Unicode's confusables data as shipped by the maintained
`confusable_homoglyphs` package, reduced to "one non-ASCII character → one ASCII letter or
digit": ASCII itself is never folded (so 'l0l' and 'lol' stay different facts).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import TYPE_CHECKING

from memory.invisible import INVISIBLE

if TYPE_CHECKING:
    import regex

_ASCII_WORD = re.compile(r"[a-z0-9]+")
# Format characters (category Cf) that hide inside words: zero-width space/joiners, word joiner,
# invisible operators, bidi marks and isolates, BOM, soft hyphen, Mongolian vowel separator
# (INVISIBLE, memory/invisible.py: the secret scanner removes the same ones).


@cache
def _word() -> regex.Pattern[str]:
    """A word of any script; compiled, and `regex` imported (~12 ms), for the first text that
    is not ASCII: a CLI command reading ASCII memory never needs it."""
    import regex

    return regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*")


@cache
def _lookalikes() -> dict[int, str]:
    """Non-ASCII character → the ASCII letter or digit it looks like (lowercase)."""
    import json
    from importlib import resources

    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text()
    table: dict[int, str] = {}
    for char, glyphs in json.loads(data).items():
        if len(char) != 1 or char.isascii():
            continue
        plain = sorted(
            g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()
        )
        if plain:
            table[ord(char)] = plain[0].lower()
    return table


def strip_invisible(text: str) -> str:
    """`text` without zero-width and other invisible format characters."""
    return text if text.isascii() else INVISIBLE.sub("", text)


def fold(text: str) -> str:
    """`text` folded for comparison (see the module docstring); ASCII is only lower-cased."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", strip_invisible(text)).casefold()
    text = text.translate(_lookalikes())
    return unicodedata.normalize("NFKC", text)


def words(text: str) -> list[str]:
    """The folded words of `text`, in order."""
    if text.isascii():
        return _ASCII_WORD.findall(text.lower())
    folded = fold(text)
    if folded.isascii():
        return _ASCII_WORD.findall(folded)
    return [w for w in _word().findall(folded) if w]
