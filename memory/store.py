"""The memory repository: a bare cache of the remote, reads at any commit, and the write path.

Write path: operations are queued; one thread at a time (the leader) takes the workspace lock,
fetches the newest tip, applies every queued write as its own commit, and pushes the chain once.
If the push is rejected because the remote moved, it fetches and re-applies the operations on the
new tip. Each write's idempotency key lands as a `Hippo-Key:` trailer; a key already in history
makes no commit and reports the earlier one.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pygit2
from pygit2.enums import FileMode, SortMode

from memory import format as fmt
from memory import history
from memory.errors import MemoryStoreError, NotFound, RemoteError
from memory.locks import FileWorkspaceLock, RedisWorkspaceLock, WorkspaceLock
from memory.ops import Applied, Operation, apply_ops, check_path

BRANCH = "main"
_HEAD = f"refs/heads/{BRANCH}"
_TRACK = f"refs/remotes/origin/{BRANCH}"
_KEY = re.compile(r"^Hippo-Key: (.+)$", re.M)
MAX_ATTEMPTS = 25
MAX_BATCH = 64

GITATTRIBUTES = "inbox.md merge=union\narchive/*.jsonl merge=union\n"
MEMORY_MD = "# Memory\n\n## Index\n"
INBOX_MD = "# Inbox: notes not yet filed under a topic\n\n"


@dataclass(frozen=True)
class Author:
    name: str
    email: str


DREAMER = Author("hippo dreaming", "dream@hippo.invalid")
HIPPO = Author("hippo", "hippo@hippo.invalid")


@dataclass(frozen=True)
class WriteResult:
    commit: str
    created: bool
    removed: tuple[tuple[str, fmt.Entry], ...] = ()
    paths: tuple[str, ...] = ()


@dataclass
class _Pending:
    ops: Sequence[Operation]
    author: Author
    message: str
    key: str | None
    trailers: Mapping[str, str]
    force: bool
    done: bool = False
    result: WriteResult | None = None
    error: MemoryStoreError | None = None
    event: threading.Event = field(default_factory=threading.Event)


class _Moved(Exception):
    """The remote branch is no longer at the commit we built on."""


def is_local(remote: str) -> bool:
    return "://" not in remote and not re.match(r"^[\w.-]+@[\w.-]+:", remote)


class Store:
    """One workspace's memory repository. Thread-safe; one instance per process is enough."""

    def __init__(
        self,
        remote: str,
        cache: Path,
        *,
        lock: WorkspaceLock | None = None,
        credentials: tuple[str, str] | None = None,
    ) -> None:
        self.remote = remote
        self.cache = Path(cache)
        self._lock = lock or FileWorkspaceLock(self.cache.with_suffix(".lock"))
        self._callbacks = (
            pygit2.RemoteCallbacks(credentials=pygit2.UserPass(*credentials))
            if credentials
            else None
        )
        self._leader = threading.Lock()
        self._open_lock = threading.Lock()
        self._queue: list[_Pending] = []
        self._qlock = threading.Lock()
        self._keys: dict[str, str] = {}
        self._indexed: set[str] = set()
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
            remote.fetch(
                [f"+{_HEAD}:{_TRACK}", "+refs/hippo/*:refs/hippo/*"], callbacks=self._callbacks
            )
        except (pygit2.GitError, OSError) as exc:
            raise RemoteError(
                f"cannot fetch {self.remote}: {exc}; check HIPPO_MEMORY_REMOTE"
            ) from exc
        return self.tip()

    def tip(self) -> str | None:
        ref = self._repo.references.get(_TRACK)
        return str(ref.target) if ref is not None else None

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
        """Every file at `commit` (default: tip) as path → bytes; cached per commit."""
        sha = str(self._commit(commit).id)
        if sha not in self._trees:
            files: dict[str, bytes] = {}
            _walk(self._repo, self._repo[sha].peel(pygit2.Commit).tree, "", files)
            if len(self._trees) > 4:
                self._trees.pop(next(iter(self._trees)))
            self._trees[sha] = files
        return self._trees[sha]

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

    def search(self, query: str, limit: int = 20, commit: str | None = None) -> list[Any]:
        """Ranked hits over the tree at `commit` (a warm index kept for the newest commit)."""
        from memory.search import SearchIndex

        if commit is None and self.tip() is None:
            return []
        sha = str(self._commit(commit).id)
        if self._search is None or self._search[0] != sha:
            self._search = (sha, SearchIndex.build(self.tree(sha)))
        return list(self._search[1].search(query, limit=limit))

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

    def publish(self, name: str, commit: str) -> None:
        """Point refs/hippo/<name> at `commit` on the remote (e.g. a prompt snapshot)."""
        check_path(name)
        refname = f"refs/hippo/{name}"
        self._repo.references.create(refname, self._commit(commit).id, force=True)
        try:
            self._repo.remotes["origin"].push([f"+{refname}:{refname}"], callbacks=self._callbacks)
        except (pygit2.GitError, OSError) as exc:
            raise RemoteError(f"cannot publish {refname}: {exc}") from exc

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
        """Apply `ops` to the newest tip as one commit and push it. Raises a MemoryStoreError."""
        extra = dict(trailers or {})
        if source:
            extra.setdefault("Hippo-Source", " ".join(source.split()))
        pending = _Pending(list(ops), author, message.strip(), key, extra, force)
        with self._qlock:
            self._queue.append(pending)
        # Group commit: whoever holds the leader lock writes every queued request, so threads
        # share one fetch and one push while each write keeps its own commit.
        while not pending.done:
            with self._leader:
                if pending.done:
                    break
                with self._qlock:
                    batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
                with self._lock:
                    self._run(batch)
        if pending.error is not None:
            raise pending.error
        assert pending.result is not None
        return pending.result

    def _run(self, batch: list[_Pending]) -> None:
        try:
            for attempt in range(MAX_ATTEMPTS):
                if attempt:
                    # Another host pushed first: back off with jitter so neither side starves.
                    time.sleep(random.uniform(0, min(0.5, 0.01 * 2**attempt)))
                tip = self.sync()
                outcome = self._apply_batch(tip, batch)
                head = outcome[0]
                if head == tip or self._push(head, tip):
                    self._finish(batch, outcome[1])
                    return
            error = RemoteError(f"{self.remote} kept moving; gave up after {MAX_ATTEMPTS} tries")
            self._finish(batch, {id(p): error for p in batch})
        except BaseException as exc:
            wrapped = exc if isinstance(exc, MemoryStoreError) else RemoteError(str(exc))
            self._finish(batch, {id(p): wrapped for p in batch if not p.done})
            if not isinstance(exc, Exception):
                raise

    def _finish(self, batch: list[_Pending], results: Mapping[int, object]) -> None:
        for p in batch:
            r = results.get(id(p))
            if isinstance(r, MemoryStoreError):
                p.error = r
            elif isinstance(r, WriteResult):
                p.result = r
            p.done = True
            p.event.set()

    def _apply_batch(
        self, tip: str | None, batch: list[_Pending]
    ) -> tuple[str | None, dict[int, WriteResult | MemoryStoreError]]:
        repo = self._repo
        if tip is not None:
            self._index_keys(tip)
        index = pygit2.Index()
        if tip is not None:
            index.read_tree(repo[tip].peel(pygit2.Commit).tree)
        head, keys = tip, dict(self._keys)
        results: dict[int, WriteResult | MemoryStoreError] = {}

        def read(path: str) -> str | None:
            if path not in index:
                return None
            return _text(repo, index[path].id)

        for p in batch:
            if p.key and p.key in keys:
                results[id(p)] = WriteResult(keys[p.key], created=False)
                continue
            try:
                applied = apply_ops(p.ops, read, dreamer=p.author == DREAMER, force=p.force)
            except MemoryStoreError as exc:
                results[id(p)] = exc
                continue
            changed = _stage(repo, index, applied)
            if not changed:
                results[id(p)] = WriteResult(head or "", created=False)
                continue
            head = self._make_commit(index, head, p)
            if p.key:
                keys[p.key] = head
            results[id(p)] = WriteResult(
                head, created=True, removed=tuple(applied.removed), paths=tuple(changed)
            )
        return head, results

    def _make_commit(self, index: pygit2.Index, parent: str | None, p: _Pending) -> str:
        tree = index.write_tree(self._repo)
        lines = [f"{k}: {v}" for k, v in p.trailers.items()]
        if p.key:
            lines.insert(0, f"Hippo-Key: {p.key}")
        message = p.message + ("\n\n" + "\n".join(lines) if lines else "") + "\n"
        author = pygit2.Signature(p.author.name, p.author.email)
        committer = pygit2.Signature(HIPPO.name, HIPPO.email)
        parents = [pygit2.Oid(hex=parent)] if parent else []
        return str(self._repo.create_commit(None, author, committer, message, tree, parents))

    def _push(self, head: str | None, parent: str | None) -> bool:
        """Push `head` (built on `parent`) to the remote branch; False when the remote moved."""
        assert head is not None
        repo = self._repo
        oid = pygit2.Oid(hex=head)
        try:
            if is_local(self.remote):
                if not self._push_local(oid, parent):
                    return False
            else:
                # A git server's receive-pack checks the old value under its ref lock.
                repo.references.create(_HEAD, oid, force=True)
                repo.remotes["origin"].push([f"{_HEAD}:{_HEAD}"], callbacks=self._callbacks)
        except (pygit2.GitError, OSError):
            return False  # rejected (non-fast-forward) or a ref lock held by another pusher
        repo.references.create(_HEAD, oid, force=True)
        repo.references.create(_TRACK, oid, force=True)
        return True

    def _push_local(self, oid: pygit2.Oid, parent: str | None) -> bool:
        """Local transport updates the ref without checking its old value (two concurrent
        pushes can both "win" and one is lost, measured here), so copy the new objects into the
        remote's object database, then move the branch with a compare-and-swap under git's own
        ref lock (the lock receive-pack takes too)."""
        target = self._remote_repo()
        _copy_objects(self._repo, target, oid)
        try:
            with target.transaction() as txn:
                txn.lock_ref(_HEAD)
                current = target.references.get(_HEAD)
                if (str(current.target) if current is not None else None) != parent:
                    raise _Moved
                txn.set_target(_HEAD, oid, message="hippo: push")
        except _Moved:
            return False
        return True

    def _remote_repo(self) -> pygit2.Repository:
        if self._remote_obj is None:
            self._remote_obj = pygit2.Repository(self.remote)
        return self._remote_obj

    def _index_keys(self, tip: str) -> None:
        """Learn the Hippo-Key trailers of commits not yet seen (walks only new history)."""
        walker = self._repo.walk(pygit2.Oid(hex=tip), SortMode.TOPOLOGICAL)
        for commit in walker:
            sha = str(commit.id)
            if sha in self._indexed:
                walker.hide(commit.id)
                continue
            self._indexed.add(sha)
            for key in _KEY.findall(commit.message):
                self._keys.setdefault(key.strip(), sha)

    # -- history operations ----------------------------------------------------------------------

    def revert(self, commit: str, author: Author, *, key: str | None = None) -> WriteResult:
        """Undo one commit as a new commit by `author`; EntryConflict if later edits clash."""
        ops = history.revert_ops(self._repo, self._commit(commit), self._commit(None))
        target = self._commit(commit)
        summary = target.message.splitlines()[0] if target.message else str(target.id)
        return self.write(
            ops,
            author=author,
            message=f'revert: "{summary}"\n\nThis reverts commit {target.id}.',
            key=key or f"revert:{target.id}",
            force=True,
            trailers={"Hippo-Reverts": str(target.id)},
        )


def _stage(repo: pygit2.Repository, index: pygit2.Index, applied: Applied) -> list[str]:
    """Write `applied` into `index`; return the paths whose content really changed."""
    changed = []
    for path, text in applied.changes.items():
        old = index[path].id if path in index else None
        if text is None:
            if old is not None:
                index.remove(path)
                changed.append(path)
            continue
        oid = repo.create_blob(text.encode("utf-8"))
        if old != oid:
            index.add(pygit2.IndexEntry(path, oid, FileMode.BLOB))
            changed.append(path)
    return changed


def _copy_objects(src: pygit2.Repository, dst: pygit2.Repository, oid: pygit2.Oid) -> None:
    """Write every object reachable from `oid` that `dst` lacks, children before parents, so
    an object present in `dst` always has its children too (and the walk can stop there)."""
    odb = dst.odb
    stack: list[tuple[pygit2.Oid, bool]] = [(oid, False)]
    while stack:
        current, expanded = stack.pop()
        if current in odb:
            continue
        obj = src[current]
        if not expanded:
            stack.append((current, True))
            if isinstance(obj, pygit2.Commit):
                stack.append((obj.tree_id, False))
                stack.extend((p, False) for p in obj.parent_ids)
            elif isinstance(obj, pygit2.Tree):
                stack.extend((child.id, False) for child in obj)
            continue
        raw = src.odb.read(current)
        odb.write(raw[0], raw[1])


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


def _text(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    blob = repo.get(oid)
    return bytes(blob.data).decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""
