"""The memory repository: a bare cache of the remote, reads at any commit, refs, history.

The write path (memory/writer.py) is mixed in: `Store.write(ops, …)`.
"""

from __future__ import annotations

import contextlib
import threading
import time
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import SortMode

from memory import history
from memory.errors import NotFound, RemoteError
from memory.locks import FileWorkspaceLock, RedisWorkspaceLock, WorkspaceLock
from memory.ops import Operation, check_path
from memory.writer import (
    _HEAD,
    _KEY,
    _TRACK,
    BRANCH,
    DREAMER,
    HIPPO,
    Author,
    WritePath,
    WriteResult,
    _copy_objects,
    _Moved,
    _Pending,
    is_local,
)

__all__ = ["BRANCH", "DREAMER", "HIPPO", "Author", "Store", "WriteResult", "is_local"]

GITATTRIBUTES = "inbox.md merge=union\narchive/*.jsonl merge=union\n"
MEMORY_MD = "# Memory\n\n## Index\n"
INBOX_MD = "# Inbox: notes not yet filed under a topic\n\n"


class Store(WritePath):
    """One workspace's memory repository. Thread-safe; one instance per process is enough."""

    def __init__(
        self,
        remote: str,
        cache: Path,
        *,
        lock: WorkspaceLock | None = None,
        credentials: tuple[str, str] | None = None,
        max_age: float = 2.0,
    ) -> None:
        self.remote = remote
        self.cache = Path(cache)
        self._lock = lock or FileWorkspaceLock(self.cache.with_suffix(".lock"))
        self._callbacks = (
            pygit2.RemoteCallbacks(credentials=pygit2.UserPass(*credentials))
            if credentials
            else None
        )
        self._cond = threading.Condition()
        self._leading = False
        self._open_lock = threading.Lock()
        self._tree_lock = threading.Lock()
        self._synced_at = -1e9  # monotonic time of the last fetch
        self._fetch_lock = threading.Lock()
        self.max_age = max_age
        self._queue = []
        self._keys: dict[str, str] = {}
        self._indexed: set[str] = set()
        self._indexed_tips: list[pygit2.Oid] = []
        self._repo_obj: pygit2.Repository | None = None
        self._remote_obj: pygit2.Repository | None = None
        self._trees: dict[str, dict[str, bytes]] = {}
        self._search: tuple[str, Any] | None = None
        self._paths: tuple[str, list[str]] | None = None

    @classmethod
    def open(
        cls,
        remote: str,
        data_dir: Path | str,
        *,
        workspace: str = "default",
        redis: Any = None,
        credentials: tuple[str, str] | None = None,
    ) -> Store:
        cache = Path(data_dir) / "workspaces" / workspace / "cache.git"
        lock: WorkspaceLock | None = None
        if redis is not None:
            lock = RedisWorkspaceLock(redis, f"hippo:lock:{workspace}")
        elif is_local(remote):
            # Every hippo process on this host writing to this remote shares one lock file,
            # whatever its data dir (the web and the worker may keep separate caches).
            lock = FileWorkspaceLock(Path(remote).resolve().parent / f".{Path(remote).name}.lock")
        return cls(remote, cache, lock=lock, credentials=credentials)

    # -- setup -------------------------------------------------------------------------------

    def init(self) -> str:
        """Create the remote (a local bare repo) when missing, and the layout when empty."""
        if is_local(self.remote) and not Path(self.remote).exists():
            repo = pygit2.init_repository(self.remote, bare=True, initial_head=BRANCH)
            repo.config["gc.auto"] = 0
        if is_local(self.remote):
            # A bare repository ignores a committed .gitattributes: put the rules where it looks.
            info = Path(self.remote) / "info"
            info.mkdir(parents=True, exist_ok=True)
            (info / "attributes").write_text(GITATTRIBUTES)
        self.sync()
        if self.tip() is not None:
            return self.head()
        from memory.ops import WriteFile  # the layout of ARCHITECTURE.md

        ops: list[Operation] = [
            WriteFile("MEMORY.md", MEMORY_MD),
            WriteFile(".gitattributes", GITATTRIBUTES),
            WriteFile("inbox.md", INBOX_MD),
        ]
        return self.write(ops, author=HIPPO, message="init: memory repository", key="init").commit

    @property
    def _repo(self) -> pygit2.Repository:
        if self._repo_obj is None:
            with self._open_lock:
                if self._repo_obj is None:
                    self._repo_obj = self._open_cache()
        return self._repo_obj

    def _open_cache(self) -> pygit2.Repository:
        if (self.cache / "HEAD").exists():
            return pygit2.Repository(str(self.cache))
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        repo = pygit2.init_repository(str(self.cache), bare=True, initial_head=BRANCH)
        repo.remotes.create("origin", self.remote)
        repo.config["gc.auto"] = 0  # no background gc racing our writes
        return repo

    # -- reading -----------------------------------------------------------------------------

    def sync(self) -> str | None:
        """Fetch the remote's branch and hippo refs; return the newest tip (None when empty)."""
        remote = self._repo.remotes["origin"]
        try:
            with self._fetch_lock:  # threads of one process fetch one at a time
                remote.fetch(
                    [f"+{_HEAD}:{_TRACK}", "+refs/hippo/*:refs/hippo/*"],
                    callbacks=self._callbacks,
                )
        except (pygit2.GitError, OSError) as exc:
            raise RemoteError(
                f"cannot fetch {self.remote}: {exc}; check HIPPO_MEMORY_REMOTE"
            ) from exc
        self._synced_at = time.monotonic()
        return self._tracked()

    def fresh(self) -> None:
        """Fetch when the last fetch is older than `max_age` seconds, so a long-lived process
        (web, worker) reads what other processes and people pushed. An unreachable remote
        leaves the last known tip: reading stale memory beats failing to read."""
        if time.monotonic() - self._synced_at < self.max_age:
            return
        with contextlib.suppress(RemoteError):
            self.sync()

    def sync_branch(self) -> str | None:
        """The remote branch's tip for the write path. A local remote is read directly and
        fetched only when it moved (a fetch costs milliseconds even when there is nothing new)."""
        known = self._tracked()
        if is_local(self.remote) and known is not None:
            ref = self._remote_repo().references.get(_HEAD)
            if ref is not None and str(ref.target) == known:
                return known
        return self.sync()

    def _tracked(self) -> str | None:
        ref = self._repo.references.get(_TRACK)
        return str(ref.target) if ref is not None else None

    def tip(self) -> str | None:
        """The newest commit hippo knows (fetched again when older than `max_age`)."""
        self.fresh()
        return self._tracked()

    def head(self) -> str:
        tip = self.tip()
        if tip is None:
            raise NotFound("the memory repository is empty; run `hippo init`")
        return tip

    def _commit(self, rev: str | None) -> pygit2.Commit:
        try:
            obj = self._repo.revparse_single(rev or self.head())
            return obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise NotFound(f"no commit {rev!r} in the memory repository") from exc

    def read_or_none(self, path: str, commit: str | None = None) -> str | None:
        check_path(path)
        if commit is None and self.tip() is None:
            return None
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
        """Every file at `commit` (default: tip) as path → bytes; cached per commit. A new commit
        is derived from the newest cached tree plus a tree diff, so a write to a 10,000-file
        memory reads the files it changed, not all of them."""
        sha = str(self._commit(commit).id)
        with self._tree_lock:  # web threads and the writer share this cache
            if sha not in self._trees:
                target = self._repo[sha].peel(pygit2.Commit).tree
                files = self._tree_from_cache(target)
                if files is None:
                    files = {}
                    _walk(self._repo, target, "", files)
                if len(self._trees) > 4:
                    self._trees.pop(next(iter(self._trees)))
                self._trees[sha] = files
            return self._trees[sha]

    def _tree_from_cache(self, target: pygit2.Tree) -> dict[str, bytes] | None:
        if not self._trees:
            return None
        base_sha = next(reversed(self._trees))
        base = self._repo[base_sha].peel(pygit2.Commit).tree
        diff = base.diff_to_tree(target)
        if len(diff) > 500:
            return None  # far apart: a full walk is as cheap
        files = dict(self._trees[base_sha])
        for delta in diff.deltas:
            if delta.status_char() == "D":
                files.pop(delta.old_file.path, None)
                continue
            blob = self._repo.get(delta.new_file.id)
            if isinstance(blob, pygit2.Blob):
                files[delta.new_file.path] = bytes(blob.data)
            else:  # a submodule or similar: not a file of the memory
                files.pop(delta.new_file.path, None)
        return files

    def files(self, prefix: str = "", commit: str | None = None) -> list[str]:
        """Paths of every file at `commit` under `prefix`, sorted (no file contents read)."""
        if commit is None and self.tip() is None:
            return []
        sha = str(self._commit(commit).id)
        if self._paths is None or self._paths[0] != sha:
            found: list[str] = []
            _walk_paths(self._repo[sha].peel(pygit2.Commit).tree, "", found)
            self._paths = (sha, sorted(found))
        return [p for p in self._paths[1] if p.startswith(prefix)]

    def search(
        self, query: str, limit: int = 20, commit: str | None = None, *, archive: bool = False
    ) -> list[Any]:
        """Ranked hits over the tree at `commit` (a warm index kept for the newest commit); the
        archive is never searched unless asked for (`archive=True` searches only it)."""
        from memory.search import SearchIndex

        if commit is None and self.tip() is None:
            return []
        sha = str(self._commit(commit).id)
        if archive:
            return list(SearchIndex.build(self.tree(sha), archive=True).search(query, limit=limit))
        warm = self._search  # one read: another thread may swap in a newer commit's index
        if warm is None or warm[0] != sha:
            warm = self._search = (sha, SearchIndex.build(self.tree(sha)))
        return list(warm[1].search(query, limit=limit))

    def log(self, path: str | None = None, limit: int = 50) -> list[history.CommitInfo]:
        if self.tip() is None:
            return []
        return history.log(self._repo, self.head(), path, limit)

    def diff(self, commit: str) -> history.Diff:
        return history.diff(self._repo, self._commit(commit))

    def find_key(self, key: str) -> str | None:
        """The commit whose `Hippo-Key:` trailer is `key`, if one landed."""
        tip = self.tip()
        if tip is not None:
            self._index_keys(tip)
        return self._keys.get(key)

    def ref(self, name: str) -> str | None:
        ref = self._repo.references.get(f"refs/hippo/{name}")
        return str(ref.target) if ref is not None else None

    def refs(self, prefix: str = "") -> dict[str, str]:
        base = "refs/hippo/"
        return {
            r[len(base) :]: str(self._repo.references[r].target)
            for r in self._repo.references
            if r.startswith(base + prefix)
        }

    def publish(self, name: str, commit: str, *, create: bool = False) -> bool:
        """Point refs/hippo/<name> at `commit` on the remote (e.g. a prompt snapshot). With
        `create`, only when no such ref exists there yet: False when another publisher took the
        name first (numbered versions must never be overwritten)."""
        check_path(name)
        refname = f"refs/hippo/{name}"
        oid = self._commit(commit).id
        try:
            if create and is_local(self.remote):
                target = self._remote_repo()
                _copy_objects(self._repo, target, oid)
                with target.transaction() as txn:
                    txn.lock_ref(refname)
                    if target.references.get(refname) is not None:
                        raise _Moved
                    txn.set_target(refname, oid, message="hippo: publish")
            else:
                # Over the network, a non-forced push of a taken name is rejected by the server.
                spec = f"{refname}:{refname}" if create else f"+{refname}:{refname}"
                self._repo.references.create(refname, oid, force=True)
                self._repo.remotes["origin"].push([spec], callbacks=self._callbacks)
        except _Moved:
            return False
        except (pygit2.GitError, OSError) as exc:
            if create:
                return False
            raise RemoteError(f"cannot publish {refname}: {exc}") from exc
        self._repo.references.create(refname, oid, force=True)
        return True

    # -- writing -----------------------------------------------------------------------------

    def _index_keys(self, tip: str) -> None:
        """Learn the Hippo-Key trailers of commits not yet seen. Tips already indexed are
        hidden from the walk, so it visits only new history (not the whole log each write)."""
        if tip in self._indexed:
            return
        walker = self._repo.walk(pygit2.Oid(hex=tip), SortMode.NONE)
        for seen in self._indexed_tips:
            walker.hide(seen)
        for commit in walker:
            for key in _KEY.findall(commit.message):
                self._keys.setdefault(key.strip(), str(commit.id))
        self._indexed.add(tip)
        self._indexed_tips = [*self._indexed_tips[-15:], pygit2.Oid(hex=tip)]

    # -- history operations ----------------------------------------------------------------------

    def revert(self, commit: str, author: Author, *, key: str | None = None) -> WriteResult:
        """Undo one commit as a new commit by `author`; EntryConflict if later edits clash.
        The undo is worked out on the newest tip inside the write path, not beforehand."""
        target = self._commit(commit)
        summary = target.message.splitlines()[0] if target.message else str(target.id)
        return self._submit(
            _Pending(
                [],
                author,
                f'revert: "{summary}"\n\nThis reverts commit {target.id}.',
                key or f"revert:{target.id}",
                {"Hippo-Reverts": str(target.id)},
                force=True,
                revert=str(target.id),
            )
        )


def _walk_paths(tree: pygit2.Tree, prefix: str, out: list[str]) -> None:
    for obj in tree:
        path = prefix + (obj.name or "")
        if isinstance(obj, pygit2.Tree):
            _walk_paths(obj, path + "/", out)
        else:
            out.append(path)


def _walk(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str, out: dict[str, bytes]) -> None:
    for obj in tree:
        path = prefix + (obj.name or "")
        if isinstance(obj, pygit2.Tree):
            _walk(repo, obj, path + "/", out)
        elif isinstance(obj, pygit2.Blob):
            out[path] = bytes(obj.data)
