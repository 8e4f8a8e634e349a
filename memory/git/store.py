"""The memory repository: a bare cache of the remote, reads at any commit, refs, history.

The write path (memory/git/writer.py) is mixed in: `Store.write(ops, …)`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import SortMode

from memory.errors import NotFound, NotMemoryRepository, RemoteError
from memory.git import history
from memory.git.locks import FileWorkspaceLock, RedisWorkspaceLock, WorkspaceLock
from memory.git.maintenance import Repacked, needs_maintenance, repack
from memory.git.transport import Callbacks, RemoteAuth, apply_settings, classify, redact, split_url
from memory.git.writer import (
    _HEAD,
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
    trailer_keys,
)
from memory.ops import Operation, check_path

__all__ = [
    "BRANCH",
    "DREAMER",
    "HIPPO",
    "Author",
    "RemoteAuth",
    "Store",
    "WriteResult",
    "is_local",
]

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
        auth: RemoteAuth | None = None,
        max_age: float = 2.0,
    ) -> None:
        # Credentials never live in the URL hippo stores or prints: user-info moves into auth.
        self.remote, self.auth = split_url(remote, auth or RemoteAuth())
        self.cache = Path(cache)
        self._lock = lock or FileWorkspaceLock(self.cache.with_suffix(".lock"))
        if not is_local(self.remote):
            apply_settings(self.auth, self.cache.parent)
        self._cond = threading.Condition()
        self._leading = False
        self._open_lock = threading.Lock()
        self._tree_lock = threading.Lock()
        self._synced_at = -1e9  # monotonic time of the last fetch
        self._down: tuple[float, RemoteError] | None = None  # the last failed fetch, and when
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
        self._tree_diff: tuple[str, str, list[str]] = ("", "", [])  # from, to, paths changed
        self._paths: tuple[str, list[str]] | None = None

    @classmethod
    def open(
        cls,
        remote: str,
        data_dir: Path | str,
        *,
        workspace: str = "default",
        redis: Any = None,
        auth: RemoteAuth | None = None,
    ) -> Store:
        cache = Path(data_dir) / "workspaces" / workspace / "cache.git"
        lock: WorkspaceLock | None = None
        if redis is not None:
            lock = RedisWorkspaceLock(redis, f"hippo:lock:{workspace}")
        elif is_local(remote):
            # Every hippo process on this host writing to this remote shares one lock file,
            # whatever its data dir (the web and the worker may keep separate caches).
            lock = FileWorkspaceLock(Path(remote).resolve().parent / f".{Path(remote).name}.lock")
        else:
            # The same for a git server: processes on this host take turns instead of racing
            # (each lost race costs a push). Hosts without a shared Redis still race, safely.
            url = split_url(remote, auth or RemoteAuth())[0]
            name = hashlib.sha256(url.encode()).hexdigest()[:24]
            folder = Path(tempfile.gettempdir()) / f"hippo-locks-{os.getuid()}"
            lock = FileWorkspaceLock(folder / f"{name}.lock")
        return cls(remote, cache, lock=lock, auth=auth)

    @property
    def shown(self) -> str:
        """The remote as hippo may print it: no user-info, no credential."""
        return redact(self.remote, self.auth.secrets())

    def _cb(self) -> Callbacks:
        """Fresh callbacks for one network operation (they count credential attempts)."""
        return Callbacks(self.auth, self.remote)

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
        from memory.ops import WriteFile  # the layout of ARCHITECTURE.md

        ops: list[Operation] = [
            WriteFile("MEMORY.md", MEMORY_MD),
            WriteFile(".gitattributes", GITATTRIBUTES),
            WriteFile("inbox.md", INBOX_MD),
        ]
        return self.write(ops, author=HIPPO, message="init: memory repository", key="init").commit

    def _refuse_other_branches(self) -> None:
        """A remote with branches but no main holds something else (or uses another default
        branch): refuse rather than add a branch beside someone's work."""
        if is_local(self.remote):
            return
        try:
            names = [
                h.name or "" for h in self._repo.remotes["origin"].list_heads(callbacks=self._cb())
            ]
            heads = [n for n in names if n.startswith("refs/heads/")]
        except (pygit2.GitError, OSError) as exc:
            raise classify(exc, self.remote, self.auth, "listing branches") from None
        if heads:
            listed = ", ".join(h.removeprefix("refs/heads/") for h in heads[:5])
            raise NotMemoryRepository(
                f"{self.shown} has branches ({listed}) but no {BRANCH}: it is not an empty "
                f"repository. Use an empty repository for hippo, or one whose {BRANCH} holds "
                "the memory"
            )

    @property
    def _repo(self) -> pygit2.Repository:
        if self._repo_obj is None:
            with self._open_lock:
                if self._repo_obj is None:
                    self._repo_obj = self._open_cache()
        return self._repo_obj

    def _open_cache(self) -> pygit2.Repository:
        """Open the bare cache, creating it safely: several processes sharing a data folder
        may start at once, so it is built aside and renamed into place (the rename is atomic;
        the loser uses the winner's). A cache a killed process left broken is rebuilt: it holds
        nothing the remote does not."""
        if not (self.cache / "HEAD").exists():
            self._build_cache()
        try:
            repo = pygit2.Repository(str(self.cache))
            origin = next((r for r in repo.remotes if r.name == "origin"), None)
            if origin is None:
                with contextlib.suppress(ValueError, pygit2.AlreadyExistsError):
                    repo.remotes.create("origin", self.remote)
            elif origin.url != self.remote:  # the remote changed, or an old cache kept a token
                repo.remotes.set_url("origin", self.remote)
            return repo
        except (pygit2.GitError, OSError):
            broken = self.cache.with_name(f".{self.cache.name}.broken-{uuid.uuid4().hex[:8]}")
            with contextlib.suppress(OSError):
                os.rename(self.cache, broken)
                shutil.rmtree(broken, ignore_errors=True)
            self._build_cache()
            return pygit2.Repository(str(self.cache))

    def _build_cache(self) -> None:
        self.cache.parent.mkdir(parents=True, exist_ok=True)
        aside = self.cache.with_name(f".{self.cache.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}")
        repo = pygit2.init_repository(str(aside), bare=True, initial_head=BRANCH)
        repo.remotes.create("origin", self.remote)
        repo.config["gc.auto"] = 0  # no background gc racing our writes
        del repo
        try:
            os.rename(aside, self.cache)
        except OSError:  # another process's cache is in place (or an old empty folder)
            if not (self.cache / "HEAD").exists():
                shutil.rmtree(self.cache, ignore_errors=True)
                with contextlib.suppress(OSError):
                    os.rename(aside, self.cache)
            shutil.rmtree(aside, ignore_errors=True)

    # -- reading -----------------------------------------------------------------------------

    def sync(self, *, max_age: float | None = None) -> str | None:
        """Fetch the remote's branch and hippo refs; return the newest tip (None when empty).
        With `max_age`, only when no fetch (or push) of ours is younger than that."""
        down = self._down
        if down is not None and time.monotonic() - down[0] < self.max_age:
            raise down[1]  # it just failed: do not wait for the same timeout twice in a row
        remote = self._repo.remotes["origin"]
        started = time.monotonic()
        try:
            with self._fetch_lock:  # threads of one process fetch one at a time
                # Threads that queued here behind a fetch use its result instead of fetching
                # again one after another.
                if max_age is not None and started - self._synced_at < max_age:
                    return self._tracked()
                remote.fetch(
                    [f"+{_HEAD}:{_TRACK}", "+refs/hippo/*:refs/hippo/*"],
                    callbacks=None if is_local(self.remote) else self._cb(),
                )
        except (pygit2.GitError, OSError) as exc:
            if is_local(self.remote):
                raise RemoteError(
                    f"cannot fetch {self.shown}: {exc}; check HIPPO_MEMORY_REMOTE"
                ) from exc
            error = classify(exc, self.remote, self.auth, "fetching")
            if isinstance(error, RemoteError):
                self._down = (time.monotonic(), error)
            raise error from None
        self._synced_at = time.monotonic()
        self._down = None
        return self._tracked()

    def fresh(self) -> None:
        """Fetch when the last fetch is older than `max_age` seconds, so a long-lived process
        (web, worker) reads what other processes and people pushed. An unreachable remote
        leaves the last known tip: reading stale memory beats failing to read."""
        if time.monotonic() - self._synced_at < self.max_age:
            return
        with contextlib.suppress(RemoteError):
            self.sync(max_age=self.max_age)

    def sync_branch(self, *, optimistic: bool = False) -> str | None:
        """The remote branch's tip for the write path. A local remote is read directly and
        fetched only when it moved (a fetch costs milliseconds even when there is nothing new).
        A network remote, `optimistic`: the tip we know, when we know one (the push checks it)."""
        known = self._tracked()
        if optimistic and known is not None and not is_local(self.remote):
            return known
        if is_local(self.remote) and known is not None:
            ref = self._remote_repo().references.get(_HEAD)
            if ref is not None and str(ref.target) == known:
                return known
        return self.sync()

    def _known(self) -> str | None:
        return self._tracked()

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
                files = self._tree_from_cache(sha, target)
                if files is None:
                    files = {}
                    _walk(self._repo, target, "", files)
                if len(self._trees) > 4:
                    self._trees.pop(next(iter(self._trees)))
                self._trees[sha] = files
            return self._trees[sha]

    def _tree_from_cache(self, sha: str, target: pygit2.Tree) -> dict[str, bytes] | None:
        if not self._trees:
            return None
        base_sha = next(reversed(self._trees))
        base = self._repo[base_sha].peel(pygit2.Commit).tree
        diff = base.diff_to_tree(target)
        if len(diff) > 500:
            return None  # far apart: a full walk is as cheap
        files = dict(self._trees[base_sha])
        # The search index of base_sha is updated from the same diff (see `search`).
        self._tree_diff = (base_sha, sha, [p for d in diff.deltas for p in _paths_of(d)])
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
            # After a commit the warm index is updated from the tree diff, not rebuilt.
            tree, index = self.tree(sha), None
            if warm is not None:
                known = self._tree_diff
                changed = (
                    known[2]
                    if known[:2] == (warm[0], sha)
                    else history.changed_paths(self._repo, warm[0], sha, 2000)
                )
                index = None if changed is None else warm[1].updated(tree, changed)
            warm = self._search = (sha, SearchIndex.build(tree) if index is None else index)
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
                cb = self._cb()
                self._repo.remotes["origin"].push([spec], callbacks=cb)
                if refname in cb.rejected:
                    if create:
                        return False
                    raise RemoteError(
                        f"{self.shown} refused {refname}: {redact(cb.rejected[refname])}"
                    )
        except _Moved:
            return False
        except (pygit2.GitError, OSError) as exc:
            if create and is_local(self.remote):
                return False
            if is_local(self.remote):
                raise RemoteError(f"cannot publish {refname}: {exc}") from exc
            raise classify(exc, self.remote, self.auth, f"publishing {refname}") from None
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
            for key in trailer_keys(commit.message):
                self._keys.setdefault(key, str(commit.id))
        self._indexed.add(tip)
        self._indexed_tips = [*self._indexed_tips[-15:], pygit2.Oid(hex=tip)]

    def heads(self) -> list[str]:
        """The remote's branch and tag names (connects and authenticates; fetches nothing)."""
        if is_local(self.remote):
            return [str(r) for r in self._remote_repo().references if r.startswith("refs/")]
        try:
            listed = self._repo.remotes["origin"].list_heads(callbacks=self._cb())
        except (pygit2.GitError, OSError) as exc:
            raise classify(exc, self.remote, self.auth, "connecting") from None
        return [h.name or "" for h in listed]

    def check_push(self) -> None:
        """Prove hippo may push: create and delete refs/hippo/check/<id> at the tip (no new
        objects, nothing on the branch). Raises the named error a real write would."""
        tip = self.head()
        name = f"check/{uuid.uuid4().hex[:12]}"
        if not self.publish(name, tip, create=True):
            raise RemoteError(f"{self.shown} refused a check ref under refs/hippo/")
        refname = f"refs/hippo/{name}"
        if is_local(self.remote):
            self._remote_repo().references.delete(refname)
        else:
            cb = self._cb()
            try:
                self._repo.remotes["origin"].push([f":{refname}"], callbacks=cb)
            except (pygit2.GitError, OSError) as exc:
                raise classify(exc, self.remote, self.auth, "deleting the check ref") from None
        with contextlib.suppress(KeyError):
            self._repo.references.delete(refname)

    # -- maintenance ---------------------------------------------------------------------------

    def maintain(
        self, *, only_if_needed: bool = False, progress: Callable[[str], None] | None = None
    ) -> list[Repacked]:
        """Repack the cache (and a local remote) under the workspace lock; see
        memory/git/maintenance.py. With `only_if_needed`, only repositories past git's gc.auto."""
        targets = [self.cache]
        if is_local(self.remote) and os.path.exists(os.path.join(self.remote, "HEAD")):
            targets.append(Path(self.remote))
        if only_if_needed:
            targets = [t for t in targets if needs_maintenance(t)]
        done: list[Repacked] = []
        if not targets:
            return done
        with self._lock, self._fetch_lock:
            for target in targets:
                try:
                    done.append(repack(target))
                except OSError as exc:
                    raise RemoteError(f"maintenance failed: {exc}") from exc
                if progress is not None:
                    progress(target.name)
            # Reopen: packs replaced loose objects the open handles may have cached.
            self._repo_obj = None
            self._remote_obj = None
        return done

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
                # Bound to the tip it was asked on: reverting the same commit again after its
                # change came back is a new request, not a repeat of the first.
                key or f"revert:{target.id}:{self._tracked()}",
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


def _paths_of(delta: pygit2.DiffDelta) -> tuple[str, str]:
    return delta.old_file.path, delta.new_file.path
