"""A batch of queued writes applied to one tip: each write its own commit, in queue order.
Nothing here talks to the remote; the writer pushes the chain.
"""

from __future__ import annotations

from typing import NamedTuple

import pygit2
from pygit2.enums import FileMode

import memory.git.history as history
from memory.errors import InvalidText, MemoryStoreError, RemoteError
from memory.git.request import DREAMER, HIPPO, WriteRequest, WriteResult
from memory.writes.apply import apply_ops
from memory.writes.operations import Applied, Operation


class BatchOutcome(NamedTuple):
    head: str | None  # the last commit made (the tip itself when nothing changed)
    results: dict[int, WriteResult | MemoryStoreError]  # by id() of each request


class _Batch:
    """The index and head as the batch advances, so each write sees the ones before it."""

    def __init__(self, repo: pygit2.Repository, tip: str | None, keys: dict[str, str]) -> None:
        self.repo, self.head, self.keys = repo, tip, keys
        # Each file's text as the batch left it: a file every write of the batch grows (inbox.md)
        # is read from git and decoded once per batch, not once per write (a 110 kB inbox cost
        # ~6 ms a write to inflate and decode again, a third of a write's time in the batch).
        self.texts: dict[str, str | None] = {}
        self.index = pygit2.Index()
        if tip is not None:
            self.index.read_tree(repo[tip].peel(pygit2.Commit).tree)

    def read(self, path: str) -> str | None:
        if path in self.texts:
            return self.texts[path]
        text = blob_text(self.repo, self.index[path].id) if path in self.index else None
        self.texts[path] = text
        return text

    def is_folder(self, path: str) -> bool:
        if self.head is None:
            return False
        try:
            obj = self.repo[self.head].peel(pygit2.Commit).tree[path]
        except KeyError:
            return False
        return isinstance(obj, pygit2.Tree)

    def apply(self, request: WriteRequest) -> WriteResult:
        if request.key and request.key in self.keys:
            return WriteResult(self.keys[request.key], created=False)
        applied = apply_ops(
            self._operations(request),
            self.read,
            dreamer=request.author == DREAMER,
            force=request.force,
            folder=self.is_folder,
            restoring=request.revert is not None,
            agent=request.author.agent,
        )
        changed = stage(self.repo, self.index, applied)
        for path in changed:  # as staged (a text that failed to encode raised before this)
            self.texts[path] = applied.changes[path]
        if not changed:
            return WriteResult(self.head or "", created=False)
        self.head = make_commit(self.repo, self.index, self.head, request)
        if request.key:
            self.keys[request.key] = self.head
        return WriteResult(
            self.head, created=True, removed=tuple(applied.removed), paths=tuple(changed)
        )

    def _operations(self, request: WriteRequest) -> list[Operation]:
        if request.revert is None:
            return list(request.ops)
        # Computed on the tip it lands on, so a concurrent edit is never undone.
        if self.head is None:
            raise RemoteError("the memory repository is empty: nothing to revert")
        repo = self.repo
        return history.revert_ops(
            repo, repo[request.revert].peel(pygit2.Commit), repo[self.head].peel(pygit2.Commit)
        )


def apply_batch(
    repo: pygit2.Repository, tip: str | None, keys: dict[str, str], batch: list[WriteRequest]
) -> BatchOutcome:
    """Apply every request of `batch` on `tip`; `keys` (key → commit) is a copy to extend."""
    state = _Batch(repo, tip, keys)
    results: dict[int, WriteResult | MemoryStoreError] = {}
    for request in batch:
        try:
            results[id(request)] = state.apply(request)
        except MemoryStoreError as exc:
            results[id(request)] = exc
    return BatchOutcome(state.head, results)


def make_commit(
    repo: pygit2.Repository, index: pygit2.Index, parent: str | None, request: WriteRequest
) -> str:
    tree = index.write_tree(repo)
    lines = [f"{k}: {v}" for k, v in request.trailers.items()]
    if request.key:
        lines.insert(0, f"Hippo-Key: {request.key}")
    message = request.message + ("\n\n" + "\n".join(lines) if lines else "") + "\n"
    author = pygit2.Signature(request.author.name, request.author.email)
    committer = pygit2.Signature(HIPPO.name, HIPPO.email)
    parents = [pygit2.Oid(hex=parent)] if parent else []
    return str(repo.create_commit(None, author, committer, message, tree, parents))


def stage(repo: pygit2.Repository, index: pygit2.Index, applied: Applied) -> list[str]:
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


def blob_text(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    """The blob at `oid` as text (undecodable bytes replaced); "" for anything else."""
    blob = repo.get(oid)
    return bytes(blob.data).decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""
