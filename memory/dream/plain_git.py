"""What a plain `git push` did that hippo's write path would have refused, found in history.

hippo's own writes are committed by HIPPO (memory/git/batch.py); dreaming's are authored by
DREAMER. A person's plain push is neither, and it can do two things the write path refuses:

- change `.dream/state.json` (say, `lastRun` set to tonight, so the dream would skip): the dream
  ignores a state it did not write, reads the last one it did, and says so in the digest;
- bring back a forgotten fact (a line forgotten.md records as removed on purpose): the dream's
  tidy step removes it (within the night's deletion cap, in a commit a person can revert),
  naming the commit that brought it back. A fact brought back through hippo (a note saved with
  `--force`, a revert) is hippo's commit, and stays. Every such fact is found, wherever and
  whenever it came back: the dream looks in the files changed since its last run and in those
  where one was found before, waiting for the cap perhaps (`.dream/state.json`: `resurrected`),
  and in every file the first time (a memory's first night); briefings never serve one as
  active meanwhile.

`hippo lint` reports both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import memory.facts.comparison as facts
import memory.facts.tombstones as tombstones
from memory import format as fmt
from memory.dream import state as st
from memory.dream.context import is_topic
from memory.errors import TombstoneConflict
from memory.git.batch import DREAMER, HIPPO
from memory.git.history import CommitInfo
from memory.git.store import Store

HISTORY = 50  # commits of one file looked at, newest first


def hippos(c: CommitInfo) -> bool:
    """Committed through hippo's write path (a plain push commits as its pusher)."""
    return c.committer == HIPPO.email


def foreign_state(store: Store) -> CommitInfo | None:
    """The commit that last changed `.dream/state.json`, when dreaming did not write it."""
    last = store.log(st.PATH, limit=1)
    if not last or (last[0].email == DREAMER.email and hippos(last[0])):
        return None
    return last[0]


def dreamers_state(store: Store) -> str | None:
    """`.dream/state.json` as dreaming last wrote it (None: never)."""
    for c in store.log(st.PATH, limit=HISTORY):
        if c.email == DREAMER.email and hippos(c):
            return store.read_or_none(st.PATH, c.sha)
    return None


def resurrected(
    tree: Mapping[str, str],
    paths: Iterable[str] | None = None,
    *,
    parse: Callable[[str], fmt.Document] | None = None,
) -> list[tuple[str, fmt.Entry, str]]:
    """(path, entry, the tombstone cited) for each live entry that repeats a forgotten fact, in
    `paths` (default: every topic file, MEMORY.md and inbox.md; the dream passes the files
    changed since its last run and those where one waited for the cap). A file is parsed only
    when its words can hold a forgotten fact's (`Anchors`); `parse` gives the night's parse."""
    anchors = Anchors.of(tree.get(tombstones.PATH, ""))
    if not anchors:
        return []
    out = []
    wanted = tree if paths is None else [p for p in paths if p in tree]
    for path in sorted(p for p in wanted if is_topic(p) or p in ("MEMORY.md", "inbox.md")):
        if not anchors.may_hold(tree[path]):
            continue
        for e in (parse or _parse(tree))(path).entries:
            if not anchors.may_hold(e.text):
                continue
            try:
                tombstones.check(e.text, anchors.stones, person=True)  # a person brought it back
            except TombstoneConflict as exc:
                out.append((path, e, str(exc)))
    return out


def _parse(tree: Mapping[str, str]) -> Callable[[str], fmt.Document]:
    return lambda path: fmt.parse(tree[path])


class Anchors:
    """The forgotten facts a person is held to (forgotten.md's records, merges and what an agent
    removed of its own aside), and every content word they hold: a text none of whose words is
    one of them repeats none (each record's words would have to be among the text's, or its
    text be the same: memory/facts/tombstones.py)."""

    def __init__(self, stones: tombstones.Stones) -> None:
        self.stones = stones
        self.words: set[str] = set()
        for s in stones:
            if not s.merged and not s.agents:
                self.words.update(w for w in map(facts.word_of, s.key.split()) if w)

    @classmethod
    def of(cls, forgotten: str) -> Anchors:
        return cls(tombstones.load(forgotten))

    def __bool__(self) -> bool:
        return bool(self.words)

    def may_hold(self, text: str) -> bool:
        return any(facts.word_of(w) in self.words for w in set(fmt.normalise(text).split()))


def brought_back(store: Store, path: str, text: str) -> CommitInfo | None:
    """The commit that added the entry `text` to `path` last, when it was a plain push (None
    when hippo's write path did, or it cannot be told within HISTORY commits)."""
    for c in store.log(path, limit=HISTORY):
        if not _has(store.read_or_none(path, c.sha), text):
            continue
        before = store.read_or_none(path, c.parents[0]) if c.parents else None
        if not _has(before, text):
            return None if hippos(c) else c
    return None


def _has(doc: str | None, text: str) -> bool:
    return doc is not None and any(fmt.same_fact(e.text, text) for e in fmt.parse(doc).entries)
