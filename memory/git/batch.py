"""A write: what it asks for (`WriteRequest`, by an `Author`) and gets back (`WriteResult`), and
a batch of queued writes applied to one tip: each write its own commit, in queue order.
Nothing here talks to the remote; the writer pushes the chain.

Idempotency keys: each write's key lands as a `Hippo-Key:` trailer on its commit (`make_commit`),
and a key already in history (`KeyIndex`) makes no commit and reports the earlier one.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import pygit2
from pygit2.enums import FileMode, SortMode

import memory.git.history as history
import memory.trust.rules as trust
from memory import format as fmt
from memory.errors import InvalidText, MemoryStoreError, RemoteError
from memory.writes.apply import apply_ops
from memory.writes.operations import Applied, Operation


@dataclass(frozen=True)
class Author:
    """Who a write is by. `role` says which rules apply (memory/trust/rules.py): a person's write is
    theirs; an agent's (`role="agent"`, set by its door: MCP, the Slack agent) is stamped,
    gated and turned into proposals by the write path. `origin` is what an agent's confirmation
    counts as (a Slack thread's permalink; `by <name>` when empty)."""

    name: str
    email: str
    role: str = trust.PERSON
    origin: str = ""

    @property
    def agent(self) -> trust.Agent | None:
        return trust.Agent(self.name, self.origin) if self.role == trust.AGENT else None


DREAMER = Author("hippo dreaming", "dream@hippo.invalid")
HIPPO = Author("hippo", "hippo@hippo.invalid")


@dataclass(frozen=True)
class WriteResult:
    commit: str
    created: bool
    removed: tuple[tuple[str, fmt.Entry], ...] = ()
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Prepared:
    """A write's operations already applied, by the write path's own rules (`apply_ops` with the
    flags its author gets: memory/git/prepared.py makes these), to the tree at commit `base`. A
    batch that lands it on `base` stages `applied` instead of applying the operations a second
    time; on any other tip (another write came first) the operations are applied anew."""

    base: str
    applied: Applied


@dataclass
class WriteRequest:
    """One write queued for the group commit; the leader fills `result` or `error`."""

    ops: Sequence[Operation]
    author: Author
    message: str
    key: str | None
    trailers: Mapping[str, str]
    force: bool
    revert: str | None = None  # a commit to undo, turned into operations on the tip it lands on
    prepared: Prepared | None = None  # never handed to another process (it applies the ops)
    done: bool = False
    result: WriteResult | None = None
    error: MemoryStoreError | None = None
    event: threading.Event = field(default_factory=threading.Event)

    def outcome(self) -> WriteResult:
        """The result, or the error raised."""
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result

    def finish(self, outcome: WriteResult | MemoryStoreError | None) -> None:
        if isinstance(outcome, MemoryStoreError):
            self.error = outcome
        elif isinstance(outcome, WriteResult):
            self.result = outcome
        self.done = True
        self.event.set()


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
        prepared = request.prepared
        if prepared is not None and prepared.base == self.head and request.revert is None:
            applied = prepared.applied  # checked and applied on this very tree: not again
        else:
            applied = self._apply(request)
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

    def _apply(self, request: WriteRequest) -> Applied:
        return apply_ops(
            self._operations(request),
            self.read,
            dreamer=request.author == DREAMER,
            force=request.force,
            folder=self.is_folder,
            restoring=request.revert is not None,
            agent=request.author.agent,
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


# -- idempotency keys ------------------------------------------------------------------------------

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
