"""Writes whose operations were applied once, before the write: the dream applies each step's
operations to its own copy of the tree (the next step reads the result), and the store used to
apply them again on the tip, reading, parsing and checking every file the step edits a second
time (at 10,000 files, three quarters of a night's write time). `prepare` applies them by the
write path's own rules (`apply_ops`, with the flags the author gets, every check included) to
the tree at a known commit; `write` commits that result when the tip is still that commit, and
applies the operations anew, as any write, on any other tip (someone wrote meanwhile).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pygit2

import memory.trust.rules as trust
import memory.writes.validate as validate
from memory import format as fmt
from memory.git.batch import DREAMER, Author, Prepared, WriteRequest, WriteResult
from memory.git.store import Store
from memory.writes.apply import apply_ops
from memory.writes.operations import Applied, Operation, Reader, check_op


@dataclass(frozen=True)
class Ready:
    """A write applied to the tree at `prepared.base`, waiting for its commit message."""

    ops: tuple[Operation, ...]
    author: Author
    force: bool
    prepared: Prepared

    @property
    def applied(self) -> Applied:
        return self.prepared.applied


def prepare(
    ops: Sequence[Operation],
    base: str,
    read: Reader,
    *,
    author: Author,
    force: bool = False,
    folder: Callable[[str], bool] | None = None,
    parsed: Callable[[str], fmt.Document | None] | None = None,
) -> Ready:
    """Apply `ops` to the tree at commit `base`, which `read` (and `folder`: is a path a folder
    there; `parsed`: a file's text already parsed) must give exactly; raise what the store
    would (the same checks, in the same order)."""
    if author.agent is not None:  # what Writer.write checks first for an agent's operations
        for op in ops:
            check_op(op)
            trust.check_paths(op)
    applied = apply_ops(
        ops,
        read,
        dreamer=author == DREAMER,
        force=force,
        folder=folder,
        agent=author.agent,
        parsed=parsed,
    )
    return Ready(tuple(ops), author, force, Prepared(base, applied))


def write(
    store: Store,
    ready: Ready,
    *,
    message: str,
    key: str | None = None,
    trailers: Mapping[str, str] | None = None,
) -> WriteResult:
    """Commit `ready` as one commit and push it (Store.write's guarantees: a key already in
    history writes nothing; a refusal raises a MemoryStoreError)."""
    extra = dict(trailers or {})
    message = message.strip()
    validate.commit(
        message=message,
        key=key,
        trailers=extra,
        author_name=ready.author.name,
        author_email=ready.author.email,
    )
    request = WriteRequest(list(ready.ops), ready.author, message, key, extra, ready.force)
    request.prepared = ready.prepared
    return store.writer.submit(request)


def landed_on(store: Store, commit: str) -> str | None:
    """The commit `commit` was made on (None for the first): a prepared write landed as
    prepared exactly when this is its `base`."""
    parents = store.mirror.repo[commit].peel(pygit2.Commit).parent_ids
    return str(parents[0]) if parents else None
