"""What changed in the memory's history since the last dream: the files whose content differs,
and where a file a link names went (a rename git saw). The dream's run reads both."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import memory.facts.tombstones as tombstones
from memory import format as fmt
from memory.errors import MemoryStoreError, NotFound
from memory.git import trees
from memory.git.store import Store


def changed_since(store: Store, last_commit: str, head: str) -> set[str]:
    """Files whose content differs between the last dream's commit and `head` (.dream/ aside)."""
    if not last_commit:
        return set()
    # a tree diff, no file read: comparing store.tree() of both commits cached two copies of
    # the memory's bytes for the night. An unknown `last_commit` (history rewritten) is not
    # fetched again: the dream synced at its start.
    paths = trees.differing(store.mirror.repo, last_commit, head)
    return {p for p in paths or () if not p.startswith(".dream/")}


def unmerged_since(
    store: Store,
    last_commit: str,
    forgotten: str | None,
    *,
    rolled: Callable[[], Sequence[tombstones.Tombstone]] = lambda: (),
) -> set[str]:
    """Fact keys of the entries whose `merged into` record left forgotten.md since the last
    dream (`forgotten`: the file now): a person undid that merge (the console's revert, `git
    revert`, an edit), saying the two are different facts, so tidy must not merge them again.
    A record the roll-over moved to the cold store (`rolled`: its records, read only when a
    record left) was not undone."""
    if not last_commit:
        return set()
    try:
        before = store.read_or_none(tombstones.PATH, last_commit)
    except NotFound:
        return set()
    now = {s.key for s in tombstones.load(forgotten) if s.merged}
    gone = [s for s in tombstones.load(before) if s.merged and s.key not in now]
    if gone:
        cold = {s.key for s in rolled() if s.merged}
        gone = [s for s in gone if s.key not in cold]
    return {fmt.fact_key(s.text) for s in gone}


class RenameFinder:
    """Where a file went: the commit that removed it, if git saw it renamed (followed ≤ 5 hops).

    A path absent from the last dream's tree was not renamed since (last night's tidy fixed
    older renames), so only those paths walk the history; without a last dream (the first
    night) at most LOOKUPS paths do, and the rest are reported as broken links.
    """

    LOOKUPS = 100

    def __init__(self, store: Store, last_commit: str = "") -> None:
        self.store = store
        self.cache: dict[str, str | None] = {}
        self.budget = self.LOOKUPS
        # was the path a file at the last dream: looked up in its tree, none of it held
        self.before = trees.file_at(store.mirror.repo, last_commit) if last_commit else None

    def __call__(self, path: str) -> str | None:
        if path not in self.cache:
            if self.before is not None and not self.before(path):
                return None
            if self.before is None:
                if self.budget <= 0:
                    return None
                self.budget -= 1
            self.cache[path] = self._find(path, 5)
        return self.cache[path]

    def _find(self, path: str, hops: int) -> str | None:
        try:
            # no fetch for a path without history: the dream synced once, at its start, and a
            # broken link names such a path (a fetch per link was most of the lookup's time)
            commits = self.store.log(path=path, limit=1, refresh=False)
        except (MemoryStoreError, ValueError):
            return None
        if not commits or hops <= 0:
            return None
        for f in self.store.diff(commits[0].sha).files:
            if f.status == "renamed" and f.old_path == path:
                if self.store.read_or_none(f.path) is not None:
                    return f.path
                return self._find(f.path, hops - 1)
        return None
