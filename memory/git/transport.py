"""The memory remote, one interface for both kinds: a local bare repository (a path) and a git
server (https or ssh). The Store picks one when it opens (`open_transport`) and never asks
which kind it holds again.

Both push the branch with a compare-and-swap: the branch moves only if the remote still holds
the commit the push was built on, else the push reports "moved" and the writer fetches and
re-applies. A git server does that under receive-pack's ref lock (memory/git/network.py);
libgit2's local transport does not check the old value, so the local one copies the objects and
swaps the ref under git's own ref lock (memory/git/local.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # for the types alone: `is_local` and the names are read without git
    import pygit2

    from memory.errors import RemoteError
    from memory.git.credentials import RemoteAuth

BRANCH = "main"
HEAD_REF = f"refs/heads/{BRANCH}"  # the memory's branch, in the cache and on the remote
TRACK_REF = f"refs/remotes/origin/{BRANCH}"  # the remote's branch as last fetched or pushed
FETCH_SPECS = [f"+{HEAD_REF}:{TRACK_REF}", "+refs/hippo/*:refs/hippo/*"]


def is_local(remote: str) -> bool:
    """A path (not a URL, not `user@host:path`): the remote is a bare repository on this host."""
    return "://" not in remote and not re.match(r"^[\w.-]+@[\w.-]+:", remote)


class Transport(Protocol):
    """What the Store and its writer need from the memory remote. `repo` is the Store's bare
    cache, whose `origin` is the remote."""

    remote: str  # the URL or path, without user-info (credentials live in `auth`)
    auth: RemoteAuth
    # True when a push checks the remote's tip itself, so a write may build on the tip last
    # fetched without fetching first (a fetch over the network costs as much as a push).
    optimistic: bool

    @property
    def shown(self) -> str:
        """The remote as hippo may print it: no user-info, no credential."""
        ...

    def prepare(self) -> None:
        """Create the remote when hippo can (a local path), before the first fetch."""

    def recent_failure(self) -> RemoteError | None:
        """A fetch that just failed, to raise again rather than wait for the same timeout."""

    def fetch(self, repo: pygit2.Repository, specs: list[str] | None = None) -> None:
        """Fetch the branch and refs/hippo/* into `repo` (or the refspecs `specs`, such as the
        cold archive's, memory/git/cold.py) with libgit2. Raises a RemoteError. Callers use
        memory/git/fetch.py's `fetch`, which chooses between this and the git CLI."""

    def still_at(self, known: str, *, optimistic: bool) -> bool:
        """Whether the write path may build on `known` without fetching."""

    def push_branch(
        self, repo: pygit2.Repository, head: pygit2.Oid, parent: str | None, *, refetch: Refetch
    ) -> bool:
        """Move the remote branch from `parent` to `head`; False when it moved meanwhile."""

    def publish(
        self, repo: pygit2.Repository, refname: str, oid: pygit2.Oid, *, create: bool
    ) -> bool:
        """Point `refname` at `oid` on the remote; with `create`, False when it exists."""

    def advance(
        self, repo: pygit2.Repository, refname: str, new: pygit2.Oid, old: str | None
    ) -> bool:
        """Move `refname` from `old` (None: absent) to `new`, a descendant of it; False when
        the remote's ref holds another value (compare-and-swap)."""

    def delete_ref(self, repo: pygit2.Repository, refname: str) -> None:
        """Delete `refname` on the remote."""

    def heads(self, repo: pygit2.Repository) -> list[str]:
        """The remote's ref names (connects and authenticates; fetches nothing)."""

    def foreign_branches(self, repo: pygit2.Repository) -> list[str]:
        """Branches on a remote that has no memory branch yet (checked before `init`)."""

    def gone(self) -> bool:
        """True when the remote is a path that no longer exists: retrying cannot help."""

    def local_path(self) -> Path | None:
        """The remote's folder when it is a repository on this host (for maintenance)."""

    def close(self) -> None:
        """Drop open handles (after maintenance replaced loose objects with packs)."""


class Refetch(Protocol):
    """Fetch again and return the remote branch's tip (the Store's `sync`)."""

    def __call__(self) -> str | None: ...
