"""What a line scores before any query word: entries above prose, long entries a little lower,
facts removed on purpose (tombstones, revoked lessons, proposed deletions) after live ones. Both
search modes add their word weights to it."""

from __future__ import annotations

import re

from memory.search.folded import FoldedText

ENTRY_BONUS = 1.0  # entries (one-line bullets) outrank prose
LENGTH_PENALTY = 1.0  # for an entry text of LONG bytes or more, less for shorter ones
LONG = 400
DEMOTED = 3.0  # taken from lines of forgotten.md and entries with status: revoked
FORGOTTEN = "forgotten.md"
PROPOSALS = "proposals.md"  # memory/trust/rules.py
ARCHIVE = "archive/"  # episodes, never put in context: searched only on purpose

# Starts with a literal, so re's scanner jumps to it (a leading class would try every byte).
_REVOKED = re.compile(rb"status:[ \t]*revoked[ \t]*[\];]")


def priors(blob: FoldedText, start: int = 0) -> list[float]:
    """The priors of `blob`'s lines from line `start` on (a bullet inside a code fence counts
    as an entry here; each mode takes ENTRY_BONUS back from it when it scores the line)."""
    m = blob.size_lines
    fresh = [
        (ENTRY_BONUS if b else 0.0) - LENGTH_PENALTY * min(n, LONG) / LONG
        for b, n in zip(blob.bullet[start:m], blob.body[start:m], strict=True)
    ]
    for k in blob.lines_matching(_REVOKED, start):
        fresh[k - start] -= DEMOTED
    for name in (FORGOTTEN, PROPOSALS):  # agents' proposed deletions: copies of entries
        f = blob.live.get(name)
        if f is not None and blob.firsts[f] >= start:
            for k in range(blob.firsts[f], blob.firsts[f + 1]):
                fresh[k - start] -= DEMOTED
    return fresh
