"""A memory remote on this host: a bare repository at a path.

libgit2's local transport updates a ref without checking its old value (two concurrent pushes
can both "win" and one is lost, measured in tests/memory/git/test_concurrency.py), so a push
copies the new objects into the remote's object database, then moves the ref with a
compare-and-swap under git's own ref lock (the lock receive-pack takes too).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pygit2

from memory.errors import RemoteError
from memory.git.credentials import Callbacks, RemoteAuth, redact
from memory.git.transport import BRANCH, FETCH_SPECS, HEAD_REF, Refetch

GITATTRIBUTES = "inbox.md merge=union\narchive/*.jsonl merge=union\n"


class _Taken(Exception):
    """The ref is no longer at the value the compare-and-swap expected."""


class LocalTransport:
    """A bare repository on this host, reached through its path."""

    optimistic = False  # the remote is read directly: cheaper than trusting a stale tip

    def __init__(self, remote: str, auth: RemoteAuth) -> None:
        self.remote, self.auth = remote, auth
        self._target: pygit2.Repository | None = None

    @property
    def shown(self) -> str:
        return redact(self.remote, self.auth.secrets())

    def prepare(self) -> None:
        if not Path(self.remote).exists():
            repo = pygit2.init_repository(self.remote, bare=True, initial_head=BRANCH)
            repo.config["gc.auto"] = 0
        # A bare repository ignores a committed .gitattributes: put the rules where it looks.
        info = Path(self.remote) / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "attributes").write_text(GITATTRIBUTES)

    def recent_failure(self) -> RemoteError | None:
        return None  # a path answers at once: nothing to wait for twice

    def fetch(self, repo: pygit2.Repository, specs: list[str] | None = None) -> None:
        # libgit2's local transport; a new cache's first fetch goes through git's CLI instead
        # (memory/git/fetch.py chooses)
        try:
            repo.remotes["origin"].fetch(specs or FETCH_SPECS, callbacks=None)
        except (pygit2.GitError, OSError) as exc:
            raise RemoteError(
                f"cannot fetch {self.shown}: {exc}; check HIPPO_MEMORY_REMOTE"
            ) from exc

    def still_at(self, known: str, *, optimistic: bool) -> bool:
        # Fetched only when it moved: a fetch costs milliseconds even when there is nothing new.
        ref = self.target().references.get(HEAD_REF)
        return ref is not None and str(ref.target) == known

    def push_branch(
        self, repo: pygit2.Repository, head: pygit2.Oid, parent: str | None, *, refetch: Refetch
    ) -> bool:
        try:
            return self._swap(repo, HEAD_REF, head, parent, message="hippo: push")
        except (pygit2.GitError, OSError):
            return False  # a ref lock held by another pusher

    def publish(
        self, repo: pygit2.Repository, refname: str, oid: pygit2.Oid, *, create: bool
    ) -> bool:
        if not create:
            return self._set(repo, refname, oid)
        try:
            return self._swap(repo, refname, oid, None, message="hippo: publish")
        except (pygit2.GitError, OSError):
            return False

    def advance(
        self, repo: pygit2.Repository, refname: str, new: pygit2.Oid, old: str | None
    ) -> bool:
        try:
            return self._swap(repo, refname, new, old, message="hippo: advance")
        except (pygit2.GitError, OSError):
            return False  # a ref lock held by another writer

    def _set(self, repo: pygit2.Repository, refname: str, oid: pygit2.Oid) -> bool:
        """Force `refname` to `oid` through a push (a moved ref is simply overwritten)."""
        repo.references.create(refname, oid, force=True)
        cb = Callbacks(self.auth, self.remote)
        try:
            repo.remotes["origin"].push([f"+{refname}:{refname}"], callbacks=cb)
        except (pygit2.GitError, OSError) as exc:
            raise RemoteError(f"cannot publish {refname}: {exc}") from exc
        if refname in cb.rejected:
            raise RemoteError(f"{self.shown} refused {refname}: {redact(cb.rejected[refname])}")
        return True

    def _swap(
        self,
        repo: pygit2.Repository,
        refname: str,
        new: pygit2.Oid,
        old: str | None,
        *,
        message: str,
    ) -> bool:
        """Move `refname` from `old` (None: absent) to `new`; False when it holds another value."""
        target = self.target()
        copy_objects(repo, target, new)
        try:
            with target.transaction() as txn:
                txn.lock_ref(refname)
                current = target.references.get(refname)
                if (str(current.target) if current is not None else None) != old:
                    raise _Taken
                txn.set_target(refname, new, message=message)
        except _Taken:
            return False
        return True

    def delete_ref(self, repo: pygit2.Repository, refname: str) -> None:
        self.target().references.delete(refname)

    def heads(self, repo: pygit2.Repository) -> list[str]:
        return [str(r) for r in self.target().references if r.startswith("refs/")]

    def foreign_branches(self, repo: pygit2.Repository) -> list[str]:
        return []  # a local remote is hippo's own: `init` created it

    def gone(self) -> bool:
        return not os.path.exists(self.remote)

    def local_path(self) -> Path | None:
        return Path(self.remote) if os.path.exists(os.path.join(self.remote, "HEAD")) else None

    def close(self) -> None:
        self._target = None

    def target(self) -> pygit2.Repository:
        """The remote repository, opened once. One moved or deleted under us must fail, not
        be recreated by our writes."""
        if not os.path.exists(os.path.join(self.remote, "HEAD")):
            self._target = None
            raise RemoteError(
                f"{self.remote} is not a git repository any more; check HIPPO_MEMORY_REMOTE"
            )
        if self._target is None:
            self._target = pygit2.Repository(self.remote)
        return self._target


def copy_objects(src: pygit2.Repository, dst: pygit2.Repository, oid: pygit2.Oid) -> None:
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
