"""How much of a query search reads: one request stays within about 100 MB and a second.

Unbounded, a 10,000-character word made the typo step build every spelling one edit away
(about 720,000 strings of 10 KB: 6.9 GB) and 3,000 unknown words cost seconds of look-ups.
`bound` cuts a query to what search reads and says what it left out; the doors show that note
(Slack recall, `hippo search`, the console) or refuse the query (MCP, whose answer has no place
for a note). Ranked parsing applies the same bounds to any query it is given (briefings, the
agents' search tool), and looks typos up only for short words, for a few words of a query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_QUERY = 1_000  # characters of a query read
MAX_WORDS = 32  # words and "quoted phrases" a query counts
MAX_WORD = 64  # a longer run of characters is not a word: left out
MAX_TYPO = 24  # words one typo away are looked up only for a word this long at most
MAX_TYPO_WORDS = 8  # ... and for this many of a query's unknown words at most

_CHUNK = re.compile(r'"([^"]*)"?|(\S+)')
_LONG = re.compile(rf"[^\W_]{{{MAX_WORD + 1},}}")  # a run of letters and digits past MAX_WORD


@dataclass(frozen=True)
class Bounded:
    """The query search reads, and what was left out of the one given (said to the person)."""

    query: str
    cut: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """What was left out, as one sentence ("" when nothing was)."""
        return ("Searched a shorter query: " + "; ".join(self.cut) + ".") if self.cut else ""


def bound(query: str) -> Bounded:
    """`query` within MAX_QUERY characters and MAX_WORDS words and phrases, without words longer
    than MAX_WORD; what was cut, named."""
    cut = []
    if len(query) > MAX_QUERY:
        query = query[:MAX_QUERY]
        cut.append(f"only its first {MAX_QUERY:,} characters were read")
    kept: list[str] = []
    long = extra = 0
    for m in _CHUNK.finditer(query):
        phrase = m.group(1) is not None
        chunk = f'"{m.group(1)}"' if phrase else m.group(2)
        if not phrase:
            chunk, n = _LONG.subn(" ", chunk)
            long += n
            if not chunk.strip():
                continue
        if len(kept) >= MAX_WORDS:
            extra += 1
        else:
            kept.append(chunk.strip())
    if long:
        s = "s" if long > 1 else ""
        cut.append(f"{long} word{s} longer than {MAX_WORD} characters left out")
    if extra:
        cut.append(f"only its first {MAX_WORDS} words were read ({extra} more left out)")
    return Bounded(" ".join(kept) if long or extra else query, tuple(cut))
