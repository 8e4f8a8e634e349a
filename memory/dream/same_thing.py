"""Tidy's candidate pairs, narrowed to those that may be about one thing before any is looked
at one by one (memory/dream/merge.py's `candidates`): at 100,000 files most pairs met through a
shared rare code name two things (51 → 33 s of CPU there, the same pairs)."""

from __future__ import annotations

import re
from collections import defaultdict
from functools import lru_cache

import memory.facts.contradictions as cx

_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=65536)
def is_ident(key: str) -> bool:
    """An identifier among an entry's keys: a code with a digit ("billing-806", "inc-1042"), not
    a plain number, quantity or time, as memory/facts/contradictions.py reads them."""
    return bool(_DIGIT.search(key)) and not cx.QUANTITY.fullmatch(key) and not key.isdigit()


class AboutIndex:
    """Which earlier entries may be about the same thing as a new one (`merge._one_thing`),
    found by set operations before any pair is looked at one by one: a large memory meets most
    pairs through one shared code ("billing-417"), each naming another the other lacks.

    Two entries pass `_one_thing` only when one has no identifier or one's identifiers are all
    among the other's. So the other holds this one's rarest identifier (`holders`), or its own
    rarest is one of this one's (`rarest`); the rest of the identifiers are then checked on
    those few. `merge._one_thing` still decides each pair (the same pairs, fewer looked at)."""

    __slots__ = ("holders", "plain", "rarest")

    def __init__(self) -> None:
        self.holders: dict[str, list[int]] = defaultdict(list)  # identifier → entries naming it
        self.rarest: dict[str, list[int]] = defaultdict(list)  # identifier → the rarest of
        self.plain: set[int] = set()  # entries naming no identifier

    def narrow(self, met: set[int], idents: list[str], keys: list[tuple[str, ...]]) -> set[int]:
        """The entries of `met` that may be about the thing `idents` (rarest first) name."""
        if not idents:
            return met
        out = met.intersection(self.plain)
        held = met.intersection(self.holders.get(idents[0], ()))
        for ident in idents[1:]:  # every one of this entry's identifiers, not only the rarest
            if not held:
                break
            held = {j for j in held if ident in keys[j]}
        out.update(held)
        mine = set(idents)
        for ident in idents:  # theirs all among mine: their rarest is one of mine, and the rest
            for j in met.intersection(self.rarest.get(ident, ())):
                if j not in out and all(k in mine or not is_ident(k) for k in keys[j]):
                    out.add(j)
        return out

    def add(self, i: int, idents: list[str]) -> None:
        if not idents:
            self.plain.add(i)
            return
        self.rarest[idents[0]].append(i)
        for ident in idents:
            self.holders[ident].append(i)
