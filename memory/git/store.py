"""The memory repository: one workspace's Store, composed of a transport to the remote
(memory/git/transport.py), a bare cache of it (memory/git/mirror.py), a writer
(memory/git/writer.py) and reads at any commit, refs and history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import pygit2

import memory.format.lines as textlines
import memory.git.changes as changes
import memory.git.history as history
from memory.archive import search as archived
from memory.errors import NotFound, NotMemoryRepository
from memory.git.batch import HIPPO, Author, KeyIndex, WriteRequest, WriteResult
from memory.git.credentials import RemoteAuth, split_url
from memory.git.handoff import FileHandoff, Handoff
from memory.git.local import GITATTRIBUTES, LocalTransport
from memory.git.locks import (
    FileWorkspaceLock,
    RedisWorkspaceLock,
    WorkspaceLock,
    host_lock_path,
)
from memory.git.mirror import Mirror
from memory.git.network import NetworkTransport
from memory.git.transport import BRANCH, Transport, is_local
from memory.git.trees import TreeCache
from memory.git.writer import Observer, Writer
from memory.search import FtsIndex, Hit, SearchIndex, tagged
from memory.writes.operations import Operation, WriteFile, check_path

MEMORY_MD = "# Memory\n\n## Index\n"
INBOX_MD = "# Inbox: notes not yet filed under a topic\n\n"


def open_transport(remote: str, auth: RemoteAuth, cache: Path, *, max_age: float) -> Transport:
    """The transport for `remote`: a path is a LocalTransport, a URL a NetworkTransport.
    Credentials never live in the URL hippo stores or prints: user-info moves into auth."""
    remote, auth = split_url(remote, auth)
    if is_local(remote):
        return LocalTransport(remote, auth)
    return NetworkTransport(remote, auth, cache.parent, retry_after=max_age)


class Store:
    """One workspace's memory repository. Thread-safe; one instance per process is enough."""

    def __init__(
        self,
        remote: str,
        cache: Path,
        *,
        lock: WorkspaceLock | None = None,
        auth: RemoteAuth | None = None,
        max_age: float = 2.0,
        handoff: Handoff | None = None,
    ) -> None:
        self.cache = Path(cache)
        self.transport = open_transport(remote, auth or RemoteAuth(), self.cache, max_age=max_age)
        self.lock = lock or FileWorkspaceLock(self.cache.with_suffix(".lock"))
        self.mirror = Mirror(self.cache, self.transport, max_age=max_age)
        self.keys = KeyIndex()
        self.writer = Writer(self.mirror, self.transport, self.lock, self.keys, handoff)
        self.trees = TreeCache(self.mirror)
        self._search: tuple[str, SearchIndex] | None = None  # for all-words and old commits
        self._tags = tagged.TagCache()  # which entries carry which tag, per commit
        self._fts: FtsIndex | None = None  # ranked search at the tip, on disk beside the cache

    @classmethod
    def open(
        cls,
        remote: str,
        data_dir: Path | str,
        *,
        workspace: str = "default",
        redis: Any = None,
        auth: RemoteAuth | None = None,
        handoff: Handoff | None = None,
    ) -> Store:
        cache = Path(data_dir) / "workspaces" / workspace / "cache.git"
        # A process waiting for the lock hands its writes to the one holding it (one push for
        # every writer on this host): memory/git/handoff.py. With a shared Redis the lock spans
        # hosts, and the hand-off is jobs/'s (passed in as `handoff`).
        lock: WorkspaceLock
        if redis is not None:
            lock = RedisWorkspaceLock(redis, f"hippo:lock:{workspace}")
        else:
            path = host_lock_path(split_url(remote, auth or RemoteAuth())[0])
            lock = FileWorkspaceLock(path)
            handoff = handoff or FileHandoff(path.with_name(path.name + ".handoff"))
        return cls(remote, cache, lock=lock, auth=auth, handoff=handoff)

    @property
    def remote(self) -> str:
        """The remote's URL or path, without user-info."""
        return self.transport.remote

    @property
    def auth(self) -> RemoteAuth:
        return self.transport.auth

    @property
    def shown(self) -> str:
        """The remote as hippo may print it: no user-info, no credential."""
        return self.transport.shown

    @property
    def max_age(self) -> float:
        """Seconds a fetch stays fresh (and a failed one is remembered)."""
        return self.mirror.max_age

    @property
    def observer(self) -> Observer | None:
        """The write path's metrics observer (see memory/git/writer.py)."""
        return self.writer.observer

    @observer.setter
    def observer(self, observer: Observer | None) -> None:
        self.writer.observer = observer

    # -- setup -------------------------------------------------------------------------------

    def init(self) -> str:
        """Create the remote (a local bare repo) when missing, and the layout when empty."""
        self.transport.prepare()
        tip = self.sync()
        if tip is not None:
            if self.read_or_none("MEMORY.md", tip) is None:
                raise NotMemoryRepository(
                    f"{self.shown} already holds commits on {BRANCH} but no MEMORY.md: it is not "
                    "a memory repository. Create an empty repository for hippo (no README, no "
                    "licence) or point HIPPO_MEMORY_REMOTE at the memory repository"
                )
            return self.head()
        self._refuse_other_branches()
        ops: list[Operation] = [  # the layout of ARCHITECTURE.md
            WriteFile("MEMORY.md", MEMORY_MD),
            WriteFile(".gitattributes", GITATTRIBUTES),
            WriteFile("inbox.md", INBOX_MD),
        ]
        return self.write(ops, author=HIPPO, message="init: memory repository", key="init").commit

    def _refuse_other_branches(self) -> None:
        """A remote with branches but no main holds something else (or uses another default
        branch): refuse rather than add a branch beside someone's work."""
        heads = self.transport.foreign_branches(self.mirror.repo)
        if heads:
            listed = ", ".join(h.removeprefix("refs/heads/") for h in heads[:5])
            raise NotMemoryRepository(
                f"{self.shown} has branches ({listed}) but no {BRANCH}: it is not an empty "
                f"repository. Use an empty repository for hippo, or one whose {BRANCH} holds "
                "the memory"
            )

    # -- the remote --------------------------------------------------------------------------

    def sync(self, *, max_age: float | None = None) -> str | None:
        """Fetch the remote's branch and hippo refs; return the newest tip (None when empty).
        With `max_age`, only when no fetch (or push) of ours is younger than that."""
        return self.mirror.sync(max_age=max_age)

    def heads(self) -> list[str]:
        """The remote's branch and tag names (connects and authenticates; fetches nothing)."""
        return self.transport.heads(self.mirror.repo)

    def publish(self, name: str, commit: str, *, create: bool = False) -> bool:
        """Point refs/hippo/<name> at `commit` on the remote (e.g. a prompt snapshot). With
        `create`, only when no such ref exists there yet: False when another publisher took the
        name first (numbered versions must never be overwritten)."""
        check_path(name)
        refname = f"refs/hippo/{name}"
        oid = self._commit(commit).id
        if not self.transport.publish(self.mirror.repo, refname, oid, create=create):
            return False
        self.mirror.repo.references.create(refname, oid, force=True)
        return True

    # -- writing -----------------------------------------------------------------------------

    def write(
        self,
        ops: Sequence[Operation],
        *,
        author: Author,
        message: str,
        key: str | None = None,
        source: str | None = None,
        force: bool = False,
        trailers: Mapping[str, str] | None = None,
    ) -> WriteResult:
        """Apply `ops` to the newest tip as one commit and push it (see Writer.write)."""
        return self.writer.write(
            ops,
            author=author,
            message=message,
            key=key,
            source=source,
            force=force,
            trailers=trailers,
        )

    def revert(self, commit: str, author: Author, *, key: str | None = None) -> WriteResult:
        """Undo one commit as a new commit by `author`; EntryConflict if later edits clash.
        The undo is worked out on the newest tip inside the write path, not beforehand."""
        target = self._commit(commit)
        summary = textlines.first(target.message) if target.message else str(target.id)
        return self.writer.submit(
            WriteRequest(
                [],
                author,
                f'revert: "{summary}"\n\nThis reverts commit {target.id}.',
                # Bound to the tip it was asked on: reverting the same commit again after its
                # change came back is a new request, not a repeat of the first.
                key or f"revert:{target.id}:{self.mirror.tracked()}",
                {"Hippo-Reverts": str(target.id)},
                force=True,
                revert=str(target.id),
            )
        )

    def find_key(self, key: str) -> str | None:
        """The commit whose `Hippo-Key:` trailer is `key`, if one landed."""
        tip = self.tip()
        if tip is not None:
            self.keys.learn(self.mirror.repo, tip)
        return self.keys.get(key)

    # -- reading -----------------------------------------------------------------------------

    def tip(self, *, wait: bool = True) -> str | None:
        """The newest commit hippo knows (fetched again when older than `max_age`)."""
        self.mirror.fresh(wait=wait)
        return self.mirror.tracked()

    def head(self) -> str:
        tip = self.tip()
        if tip is None:
            raise NotFound("the memory repository is empty; run `hippo init`")
        return tip

    def _commit(self, rev: str | None) -> pygit2.Commit:
        """The commit `rev` names (default: the tip). A name not in the cache is looked up
        again after a fetch: another process (a worker's dream, a person's push) may have
        made it since our last fetch."""
        rev = rev or self.head()
        found = self._lookup(rev)
        if found is None and self.mirror.refresh_for(f"commit:{rev}"):
            found = self._lookup(rev)
        if found is None:
            raise NotFound(f"no commit {rev!r} in the memory repository")
        return found

    def _lookup(self, rev: str) -> pygit2.Commit | None:
        try:
            return self.mirror.repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            return None

    def read_or_none(self, path: str, commit: str | None = None) -> str | None:
        """The file's text at `commit` (default: the tip), None when it has no such file. A
        file missing at the tip is looked for again after a fetch (see `_commit`)."""
        check_path(path)
        if commit is None and self._empty():
            return None
        text = self._blob_text(path, commit)
        if text is None and commit is None and self.mirror.refresh_for(f"file:{path}"):
            text = self._blob_text(path, None)
        return text

    def _empty(self) -> bool:
        """True when the remote has no commit yet (looked for again after a fetch: another
        process may just have run `hippo init`)."""
        if self.tip() is not None:
            return False
        self.mirror.refresh_for("")
        return self.mirror.tracked() is None

    def _blob_text(self, path: str, commit: str | None) -> str | None:
        tree = self._commit(commit).tree
        try:
            obj = tree[path]
        except KeyError:
            return None
        if not isinstance(obj, pygit2.Blob):
            return None
        return bytes(obj.data).decode("utf-8", errors="replace")

    def read(self, path: str, commit: str | None = None) -> str:
        text = self.read_or_none(path, commit)
        if text is None:
            raise NotFound(f"{path} is not in the memory repository")
        return text

    def tree(self, commit: str | None = None) -> dict[str, bytes]:
        """Every file at `commit` (default: tip) as path → bytes; cached per commit."""
        return self.trees.files(str(self._commit(commit).id))

    def files(self, prefix: str = "", commit: str | None = None, *, wait: bool = True) -> list[str]:
        """Paths of every file at `commit` (default: tip) under `prefix`, sorted (no contents
        read). `wait=False`: at the tip as known, a due fetch run behind (Mirror.fresh)."""
        if commit is None and (commit := self.tip(wait=wait)) is None:
            return []
        paths = self.trees.paths(str(self._commit(commit).id))
        return [p for p in paths if p.startswith(prefix)]

    def search(
        self,
        query: str,
        limit: int = 20,
        commit: str | None = None,
        *,
        archive: bool = False,
        all_words: bool = False,
    ) -> list[Hit]:
        """Ranked hits over the tree at `commit`: every query word counts, a missing one costs
        rank (memory/search/ranked.py); at the tip, from the FTS5 index on disk beside the cache
        (memory/search/fts.py), brought to each new commit by its tree diff. `all_words`:
        only lines holding every word and phrase as written, for precise lookups. The archive
        is never searched unless asked for (`archive=True` searches only it). `tag:x` terms
        keep only entries tagged x (memory/search/tagged.py)."""
        if commit is None and self.tip() is None:
            return []
        sha = str(self._commit(commit).id)
        words, wanted = tagged.split(query)  # `tag:deploy`: only entries carrying the tag
        if wanted:  # episodes (the archive) carry no tags
            carrying = self._tags.at(sha, partial(self.trees.some, sha), self.trees.changes)
            return tagged.search(sha, words, wanted, limit, carrying, all_words=all_words)
        if archive:  # the tree's episodes, then the cold months (memory/archive/search.py)
            return archived.search(self, sha, query, limit, all_words=all_words)
        if not all_words and (commit is None or sha == self.tip()):
            if self._fts is None:
                self._fts = FtsIndex(self.cache.with_suffix(".search.sqlite"))
            read = self.trees.some
            return self._fts.answer(sha, self.trees.since(sha), partial(read, sha), query, limit)
        warm = self._search  # one read: another thread may swap in a newer commit's index
        if warm is None or warm[0] != sha:
            # After a commit the warm index is updated from the tree diff, not rebuilt.
            tree, index = self.tree(sha), None
            if warm is not None:
                changed = self.trees.changes(warm[0], sha)
                index = None if changed is None else warm[1].updated(tree, changed)
            warm = self._search = (sha, SearchIndex.build(tree) if index is None else index)
        return warm[1].search(query, limit=limit, all_words=all_words)

    def log(
        self, path: str | None = None, limit: int = 50, *, refresh: bool = True
    ) -> list[history.CommitInfo]:
        """Commits from the tip, newest first (touching `path` when given; a path with no history
        yet is looked for again after a fetch, see `_commit`, unless not `refresh`: a dream)."""
        if self._empty():
            return []
        found = history.log(self.mirror.repo, self.head(), path, limit)
        if not found and path is not None and refresh and self.mirror.refresh_for(f"file:{path}"):
            found = history.log(self.mirror.repo, self.head(), path, limit)
        return found

    def search_history(
        self,
        words: list[str],
        *,
        limit: int,
        since: datetime | None = None,
        path: str | None = None,
    ) -> changes.Found:
        """Commits whose entry changes hold `words`, newest first, at most `limit`, none older
        than `since` (memory/git/changes.py); read from the local mirror as fetched."""
        if self._empty():
            return changes.Found()
        head = self.head()
        return changes.search(self.mirror.repo, head, words, limit=limit, since=since, path=path)

    def diff(self, commit: str) -> history.Diff:
        return history.diff(self.mirror.repo, self._commit(commit))

    def ref(self, name: str) -> str | None:
        """Where refs/hippo/<name> points (an unknown name is looked up again after a fetch)."""
        ref = self.mirror.repo.references.get(f"refs/hippo/{name}")
        if ref is None and self.mirror.refresh_for(f"ref:{name}"):
            ref = self.mirror.repo.references.get(f"refs/hippo/{name}")
        return str(ref.target) if ref is not None else None

    def refs(self, prefix: str = "") -> dict[str, str]:
        base = "refs/hippo/"
        repo = self.mirror.repo
        return {
            r[len(base) :]: str(repo.references[r].target)
            for r in repo.references
            if r.startswith(base + prefix)
        }
