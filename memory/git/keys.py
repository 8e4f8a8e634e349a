"""Idempotency keys: each write's key lands as a `Hippo-Key:` trailer on its commit, and a key
already in history makes no commit and reports the earlier one.
"""

from __future__ import annotations

import re

import pygit2
from pygit2.enums import SortMode

_KEY = re.compile(r"^Hippo-Key: (.+)$", re.M)


def trailer_keys(message: str) -> list[str]:
    """The `Hippo-Key:` values in the trailer block (the last paragraph) of a commit message:
    a line further up is the message's text, never a key (see memory/writes/validate.py)."""
    block = message.strip().rsplit("\n\n", 1)[-1]
    return [k.strip() for k in _KEY.findall(block)]


class KeyIndex:
    """Key → commit for every commit seen so far on the branch."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}
        self._indexed: set[str] = set()
        self._indexed_tips: list[pygit2.Oid] = []

    def learn(self, repo: pygit2.Repository, tip: str) -> None:
        """Learn the Hippo-Key trailers of commits not yet seen. Tips already indexed are
        hidden from the walk, so it visits only new history (not the whole log each write)."""
        if tip in self._indexed:
            return
        walker = repo.walk(pygit2.Oid(hex=tip), SortMode.NONE)
        for seen in self._indexed_tips:
            walker.hide(seen)
        for commit in walker:
            for key in trailer_keys(commit.message):
                self._keys.setdefault(key, str(commit.id))
        self._indexed.add(tip)
        self._indexed_tips = [*self._indexed_tips[-15:], pygit2.Oid(hex=tip)]

    def get(self, key: str) -> str | None:
        return self._keys.get(key)

    def copy(self) -> dict[str, str]:
        return dict(self._keys)
