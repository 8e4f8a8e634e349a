"""The write path: operations applied to the newest tip, one commit each, pushed in batches.

Operations are queued; one thread at a time (the leader) takes the workspace lock, fetches the
newest tip, applies every queued write as its own commit, and pushes the chain once. If the push
is rejected because the remote moved, it fetches and re-applies the operations on the new tip.
Each write's idempotency key lands as a `Hippo-Key:` trailer; a key already in history makes no
commit and reports the earlier one.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field

import pygit2
from pygit2.enums import FileMode

from memory import format as fmt
from memory import validate
from memory.errors import (
    InvalidText,
    MemoryStoreError,
    PushRejected,
    RemoteError,
    RemoteUnreachable,
)
from memory.git import history
from memory.git.locks import WorkspaceLock
from memory.git.transport import Callbacks, RemoteAuth, RemoteMoved, classify, moved_message, redact
from memory.ops import Applied, Operation, apply_ops, check_op

BRANCH = "main"
_HEAD = f"refs/heads/{BRANCH}"
_TRACK = f"refs/remotes/origin/{BRANCH}"
_KEY = re.compile(r"^Hippo-Key: (.+)$", re.M)
MAX_ATTEMPTS = 25
MAX_BATCH = 256
# Trailers every write made in this context carries (a request id set by jobs/ around a request
# or task); values come from hippo's own code, never from the user. Per thread and per task.
CONTEXT_TRAILERS: ContextVar[tuple[tuple[str, str], ...]] = ContextVar("hippo_trailers", default=())
# An observer (event, seconds) for metrics, set by jobs/: "write" or "refused:<Error>" after
# each write with its latency, "push_retry" when a push lost a race. memory stays metrics-free.
Observer = Callable[[str, float], None]


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


def is_local(remote: str) -> bool:
    return "://" not in remote and not re.match(r"^[\w.-]+@[\w.-]+:", remote)


@dataclass
class _Pending:
    ops: Sequence[Operation]
    author: Author
    message: str
    key: str | None
    trailers: Mapping[str, str]
    force: bool
    revert: str | None = None  # a commit to undo, turned into operations on the tip it lands on
    done: bool = False
    result: WriteResult | None = None
    error: MemoryStoreError | None = None
    event: threading.Event = field(default_factory=threading.Event)


class _Moved(Exception):
    """The remote branch is no longer at the commit we built on."""


class WritePath:
    """The write half of Store (mixed in); Store provides the attributes declared here."""

    remote: str
    auth: RemoteAuth
    _synced_at: float
    _lock: WorkspaceLock
    _cond: threading.Condition
    _leading: bool
    _queue: list[_Pending]
    _keys: dict[str, str]
    _remote_obj: pygit2.Repository | None
    observer: Observer | None = None

    @property
    def _repo(self) -> pygit2.Repository:
        raise NotImplementedError

    def sync_branch(self, *, optimistic: bool = False) -> str | None:
        raise NotImplementedError

    def sync(self) -> str | None:
        raise NotImplementedError

    def _known(self) -> str | None:
        """The remote branch's tip as last fetched or pushed (no network)."""
        raise NotImplementedError

    def _cb(self) -> Callbacks:
        raise NotImplementedError

    def _index_keys(self, tip: str) -> None:
        raise NotImplementedError

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
        # Checked before the request joins a group commit: its bad text is its own error.
        message = message.strip()
        validate.commit(
            message=message,
            key=key,
            trailers=extra,
            author_name=author.name,
            author_email=author.email,
        )
        for op in ops:
            check_op(op, dreamer=author == DREAMER)
        return self._submit(_Pending(list(ops), author, message, key, extra, force))

    def _submit(self, pending: _Pending) -> WriteResult:
        pending.trailers = {**dict(CONTEXT_TRAILERS.get()), **pending.trailers}
        started = time.monotonic()
        try:
            result = self._submit_queued(pending)
        except MemoryStoreError as exc:
            self._observe(f"refused:{type(exc).__name__}", time.monotonic() - started)
            raise
        self._observe("write", time.monotonic() - started)
        return result

    def _observe(self, event: str, seconds: float) -> None:
        if self.observer is not None:
            with contextlib.suppress(Exception):  # metrics never fail a write
                self.observer(event, seconds)

    def _submit_queued(self, pending: _Pending) -> WriteResult:
        # Group commit: one thread at a time leads and writes every queued request, so threads
        # share one fetch and one push while each write keeps its own commit. Finished writers
        # return without queueing for the leader role, so the next batch collects everyone
        # who arrived while the previous one was being pushed.
        with self._cond:
            self._queue.append(pending)
            while not pending.done and self._leading:
                self._cond.wait()
            if pending.done:
                return self._result(pending)
            self._leading = True
        try:
            with self._lock:
                # The batch is taken once the workspace lock is held: writers who arrived while
                # another process held it ride along in this push instead of waiting for the next.
                with self._cond:
                    batch = [pending, *(p for p in self._queue if p is not pending)][:MAX_BATCH]
                    taken = {id(p) for p in batch}
                    self._queue = [p for p in self._queue if id(p) not in taken]
                self._run(batch)
        finally:
            with self._cond:
                self._leading = False
                self._cond.notify_all()
        return self._result(pending)

    @staticmethod
    def _result(pending: _Pending) -> WriteResult:
        if pending.error is not None:
            raise pending.error
        assert pending.result is not None
        return pending.result

    def _run(self, batch: list[_Pending]) -> None:
        last_error: RemoteError | None = None
        try:
            for attempt in range(MAX_ATTEMPTS):
                # Over the network the first try builds on the tip we know, without a fetch: the
                # push itself checks that the remote still holds it (and a fetch costs as much
                # as a push). A rejected try fetches.
                optimistic = attempt == 0 and self._lock.tip_hint() in (None, self._known())
                if attempt > 1:
                    # Another host pushed first: back off with jitter so neither side starves.
                    time.sleep(random.uniform(0, min(0.5, 0.01 * 2**attempt)))
                try:
                    tip = self.sync_branch(optimistic=optimistic)
                except RemoteUnreachable:
                    raise  # the caller says so at once; queued tasks retry with backoff
                except RemoteError as exc:
                    if is_local(self.remote) and not os.path.exists(self.remote):
                        raise  # moved or deleted: no point in trying again
                    # A fetch that lost a ref lock to another process sharing the cache, or a
                    # remote that blinked: try again, and give up with the last error.
                    last_error = exc
                    continue
                outcome = self._apply_batch(tip, batch)
                head = outcome[0]
                if head == tip and optimistic and not is_local(self.remote):
                    continue  # "nothing to change" is only true of the newest tip: fetch it
                if head == tip or self._push(head, tip):
                    self._finish(batch, outcome[1])
                    return
                self._observe("push_retry", 0.0)
            error = last_error or RemoteError(
                f"{self.remote} kept moving; gave up after {MAX_ATTEMPTS} tries"
            )
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

        def folder(path: str) -> bool:
            return head is not None and _is_folder(repo, head, path)

        for p in batch:
            if p.key and p.key in keys:
                results[id(p)] = WriteResult(keys[p.key], created=False)
                continue
            try:
                ops = p.ops
                if p.revert is not None:
                    # Computed on the tip it lands on, so a concurrent edit is never undone.
                    if head is None:
                        raise RemoteError("the memory repository is empty: nothing to revert")
                    ops = history.revert_ops(
                        repo, repo[p.revert].peel(pygit2.Commit), repo[head].peel(pygit2.Commit)
                    )
                applied = apply_ops(
                    ops,
                    read,
                    dreamer=p.author == DREAMER,
                    force=p.force,
                    folder=folder,
                    restoring=p.revert is not None,
                )
                changed = _stage(repo, index, applied)
            except MemoryStoreError as exc:
                results[id(p)] = exc
                continue
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
        if is_local(self.remote):
            try:
                if not self._push_local(oid, parent):
                    return False
            except (pygit2.GitError, OSError):
                return False  # a ref lock held by another pusher
        elif not self._push_network(oid, parent):
            return False
        repo.references.create(_HEAD, oid, force=True)
        repo.references.create(_TRACK, oid, force=True)
        self._synced_at = time.monotonic()  # the remote's branch is what we just pushed
        self._lock.set_tip_hint(head)
        return True

    def _push_network(self, oid: pygit2.Oid, parent: str | None) -> bool:
        """Push to a git server. Its receive-pack moves the branch only if it still holds the
        old value we were told; a refusal comes back per ref in the push status (pygit2 does
        not raise for it), so the status is checked: the commit is on the remote branch exactly
        when the server accepted this ref update."""
        repo = self._repo
        repo.references.create(_HEAD, oid, force=True)
        cb = self._cb()
        cb.expect[_HEAD] = parent
        try:
            repo.remotes["origin"].push([f"{_HEAD}:{_HEAD}"], callbacks=cb)
        except RemoteMoved:
            return False  # the server's branch is not the tip we built on
        except (pygit2.GitError, OSError) as exc:
            low = str(exc).lower()
            if "not present locally" in low or "fastforward" in low or "fast-forward" in low:
                return False  # libgit2 saw the branch move before sending anything
            raise classify(exc, self.remote, self.auth, "pushing") from None
        message = cb.rejected.get(_HEAD)
        if message is None:
            return True
        if moved_message(message) or self.sync() != parent:
            return False  # another writer won the race: fetch and re-apply
        said = cb.server_said()
        reason = f"{message} ({said})" if said else message
        raise PushRejected(redact(self.remote), _HEAD, redact(reason, self.auth.secrets()))

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
        # A local remote moved or deleted under us must fail, not be recreated by our writes.
        if not os.path.exists(os.path.join(self.remote, "HEAD")):
            self._remote_obj = None
            raise RemoteError(
                f"{self.remote} is not a git repository any more; check HIPPO_MEMORY_REMOTE"
            )
        if self._remote_obj is None:
            self._remote_obj = pygit2.Repository(self.remote)
        return self._remote_obj


def trailer_keys(message: str) -> list[str]:
    """The `Hippo-Key:` values in the trailer block (the last paragraph) of a commit message:
    a line further up is the message's text, never a key (see memory/validate.py)."""
    block = message.strip().rsplit("\n\n", 1)[-1]
    return [k.strip() for k in _KEY.findall(block)]


def _stage(repo: pygit2.Repository, index: pygit2.Index, applied: Applied) -> list[str]:
    """Write `applied` into `index`; return the paths whose content really changed. Every text
    is encoded first, so a text that cannot be (checked before, but never trusted) fails this
    write alone with a named error and leaves the index as it was for the next one."""
    try:
        data = {p: None if t is None else t.encode("utf-8") for p, t in applied.changes.items()}
    except UnicodeEncodeError as exc:
        raise InvalidText(
            "a file of this write", f"is not valid Unicode text ({exc.reason})"
        ) from None
    changed = []
    for path, raw in data.items():
        old = index[path].id if path in index else None
        if raw is None:
            if old is not None:
                index.remove(path)
                changed.append(path)
            continue
        oid = repo.create_blob(raw)
        if old != oid:
            index.add(pygit2.IndexEntry(path, oid, FileMode.BLOB))
            changed.append(path)
    return changed


def _is_folder(repo: pygit2.Repository, commit: str, path: str) -> bool:
    try:
        obj = repo[commit].peel(pygit2.Commit).tree[path]
    except KeyError:
        return False
    return isinstance(obj, pygit2.Tree)


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
        if not _link_loose(src, dst, current):
            raw = src.odb.read(current)
            odb.write(raw[0], raw[1])


def _link_loose(src: pygit2.Repository, dst: pygit2.Repository, oid: pygit2.Oid) -> bool:
    """Hard-link a loose object file into `dst` (git does the same for local clones): loose
    objects never change, and a link skips inflating and deflating a growing file's blob."""
    name = str(oid)
    source = os.path.join(src.path, "objects", name[:2], name[2:])
    folder = os.path.join(dst.path, "objects", name[:2])
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder)  # never the parents: a remote that was moved away stays away
        os.link(source, os.path.join(folder, name[2:]))
    except FileExistsError:
        return True
    except OSError:
        return False  # packed in src, or another file system: copy through the object database
    return True


def _text(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    blob = repo.get(oid)
    return bytes(blob.data).decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""
