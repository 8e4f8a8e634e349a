"""Tombstones: forgotten facts recorded in forgotten.md so that no stale writer brings them back.

A new entry is refused when it is a forgotten fact: the same words after normalisation, or the
fact said again in more words (it holds every content word of the forgotten one and does not
negate it: memory/facts/comparison.py `covers`). Entries that dreaming merged into another (`reason:
merged into <path>`) are recorded too but never refuse anything: their fact lives on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import memory.facts.comparison as facts
from memory import format as fmt
from memory.errors import TombstoneConflict

PATH = "forgotten.md"
MERGED = "merged into "
TITLE = "Forgotten: facts removed on purpose, with when, why and by whom"
# what a forget refused at the cap is told (decision 19: memory/archive/forgotten.py)
FULL = (
    "forgotten.md sheds its records of months before last month into the cold store once past "
    "1.5 MiB: the next dream makes room (or `hippo archive roll-up` now)"
)


@dataclass(frozen=True)
class Tombstone:
    text: str
    key: str  # the normalised text
    removed: str
    by: str
    reason: str
    source: str
    agents: bool = False  # an agent's removal of its own entry (`status: tentative`)

    @property
    def merged(self) -> bool:
        """Merged into another entry by dreaming, not forgotten: the fact is still kept."""
        return self.reason.startswith(MERGED)

    def cite(self) -> str:
        bits = [f"forgotten.md: {self.text!r}", f"removed {self.removed}"]
        if self.by:
            bits.append(f"by {self.by}")
        if self.reason:
            bits.append(f"because {self.reason}")
        return ", ".join(bits)


class Stones(list[Tombstone]):
    """The tombstones of forgotten.md in file order, indexed on first use so that `check` looks
    at the stones that could match a text (the same key, or one of its words) instead of every
    one: a night checks hundreds of entries against thousands of stones. Not to be changed
    after a check (the index is not updated)."""

    _index: dict[str, list[int]] | None = None

    def near(self, key: str, words: frozenset[str]) -> list[Tombstone]:
        """In file order, the stones whose key is `key` or whose first content word (in sorted
        order) is among `words`: every stone `covers` could match has its words in `words`."""
        index = self._index
        if index is None:
            index = {}
            for i, stone in enumerate(self):
                if stone.merged:
                    continue  # never refuses anything
                index.setdefault(f"key:{stone.key}", []).append(i)
                mine = facts.fact(stone.text).words
                if len(mine) >= facts.MIN_WORDS:
                    index.setdefault(min(mine), []).append(i)
            self._index = index
        found = set(index.get(f"key:{key}", []))
        for w in words:
            found.update(index.get(w, ()))
        return [self[i] for i in sorted(found)]


def load(text: str | None) -> Stones:
    if not text:
        return Stones()
    out = Stones()
    for e in fmt.parse(text).entries:
        out.append(
            Tombstone(
                text=e.text,
                key=fmt.normalise(e.text),
                removed=e.get("removed") or "",
                by=e.get("by") or "",
                reason=e.get("reason") or "",
                source=e.get("source") or "",
                agents=(e.get("status") or "").strip().lower() == "tentative",
            )
        )
    return out


def check(text: str, stones: Sequence[Tombstone], *, person: bool = False) -> None:
    """Raise TombstoneConflict when `text` is a forgotten fact: the same words after
    normalisation, or all of its content words said again (with more). A `person` is not held
    back by what an agent removed (memory/trust/rules.py: an agent's removal binds agents only)."""
    key = fmt.normalise(text)
    if not key:
        return
    if isinstance(stones, Stones):
        stones = stones.near(key, facts.fact(text).words)
    for stone in stones:
        if stone.merged or (person and stone.agents):
            continue
        if stone.key == key or facts.covers(stone.text, text):
            raise TombstoneConflict(text, stone.cite())


def entry_for(
    entry: fmt.Entry, *, path: str, removed: str, by: str, reason: str
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The tombstone entry (text, meta) recording that `entry` left `path`."""
    meta: list[tuple[str, str]] = [("removed", removed)]
    if by:
        meta.append(("by", by))
    if reason:
        meta.append(("reason", reason))
    meta.append(("source", entry.get("source") or path))
    meta.append(("scope", path))
    return entry.text, tuple(meta)
