"""A memory remote on a git server (https or ssh), reached through pygit2's remote with
callbacks (memory/git/credentials.py): credentials once per operation, host keys, timeouts,
and the per-ref push status libgit2 reports without raising.
"""

from __future__ import annotations

import time
from pathlib import Path

import pygit2

from memory.errors import PushRejected, RemoteError
from memory.git.credentials import (
    Callbacks,
    RemoteAuth,
    RemoteMoved,
    apply_settings,
    classify,
    moved_message,
    redact,
)
from memory.git.transport import FETCH_SPECS, HEAD_REF, Refetch


class NetworkTransport:
    """A git server; its receive-pack is the compare-and-swap."""

    optimistic = True  # the push checks the tip it was built on (push_negotiation, the server)

    def __init__(self, remote: str, auth: RemoteAuth, settings_dir: Path, *, retry_after: float):
        self.remote, self.auth = remote, auth
        self.retry_after = retry_after
        self._down: tuple[float, RemoteError] | None = None  # the last failed fetch, and when
        apply_settings(auth, settings_dir)

    @property
    def shown(self) -> str:
        return redact(self.remote, self.auth.secrets())

    def callbacks(self) -> Callbacks:
        """Fresh callbacks for one network operation (they count credential attempts)."""
        return Callbacks(self.auth, self.remote)

    def prepare(self) -> None:
        return None  # a server's repository is created by a person, on the server

    def recent_failure(self) -> RemoteError | None:
        down = self._down
        if down is not None and time.monotonic() - down[0] < self.retry_after:
            return down[1]
        return None

    def fetch(self, repo: pygit2.Repository, specs: list[str] | None = None) -> None:
        try:
            repo.remotes["origin"].fetch(specs or FETCH_SPECS, callbacks=self.callbacks())
        except (pygit2.GitError, OSError) as exc:
            error = classify(exc, self.remote, self.auth, "fetching")
            if isinstance(error, RemoteError):
                self._down = (time.monotonic(), error)
            raise error from None
        self._down = None

    def still_at(self, known: str, *, optimistic: bool) -> bool:
        return optimistic  # the push itself checks that the server still holds `known`

    def push_branch(
        self, repo: pygit2.Repository, head: pygit2.Oid, parent: str | None, *, refetch: Refetch
    ) -> bool:
        """Push `head` to the server. Its receive-pack moves the branch only if it still holds
        the old value we were told; a refusal comes back per ref in the push status (pygit2
        does not raise for it), so the status is checked: the commit is on the remote branch
        exactly when the server accepted this ref update."""
        repo.references.create(HEAD_REF, head, force=True)
        cb = self.callbacks()
        cb.expect[HEAD_REF] = parent
        try:
            repo.remotes["origin"].push([f"{HEAD_REF}:{HEAD_REF}"], callbacks=cb)
        except RemoteMoved:
            return False  # the server's branch is not the tip we built on
        except (pygit2.GitError, OSError) as exc:
            low = str(exc).lower()
            if "not present locally" in low or "fastforward" in low or "fast-forward" in low:
                return False  # libgit2 saw the branch move before sending anything
            raise classify(exc, self.remote, self.auth, "pushing") from None
        message = cb.rejected.get(HEAD_REF)
        if message is None:
            return True
        if moved_message(message) or refetch() != parent:
            return False  # another writer won the race: fetch and re-apply
        said = cb.server_said()
        reason = f"{message} ({said})" if said else message
        raise PushRejected(redact(self.remote), HEAD_REF, redact(reason, self.auth.secrets()))

    def publish(
        self, repo: pygit2.Repository, refname: str, oid: pygit2.Oid, *, create: bool
    ) -> bool:
        # A non-forced push of a name the server already holds is rejected: that is `create`.
        spec = f"{refname}:{refname}" if create else f"+{refname}:{refname}"
        repo.references.create(refname, oid, force=True)
        cb = self.callbacks()
        try:
            repo.remotes["origin"].push([spec], callbacks=cb)
        except (pygit2.GitError, OSError) as exc:
            raise classify(exc, self.remote, self.auth, f"publishing {refname}") from None
        if refname in cb.rejected:
            if create:
                return False
            raise RemoteError(f"{self.shown} refused {refname}: {redact(cb.rejected[refname])}")
        return True

    def advance(
        self, repo: pygit2.Repository, refname: str, new: pygit2.Oid, old: str | None
    ) -> bool:
        """A push without force: the server takes it only as a fast-forward of what it holds,
        and `new` descends from `old` alone, so a ref moved meanwhile is refused."""
        del old  # the server's fast-forward check is the compare-and-swap
        repo.references.create(refname, new, force=True)
        cb = self.callbacks()
        try:
            repo.remotes["origin"].push([f"{refname}:{refname}"], callbacks=cb)
        except (pygit2.GitError, OSError) as exc:
            low = str(exc).lower()
            if "fastforward" in low or "fast-forward" in low or "not present locally" in low:
                return False
            raise classify(exc, self.remote, self.auth, f"pushing {refname}") from None
        return refname not in cb.rejected

    def delete_ref(self, repo: pygit2.Repository, refname: str) -> None:
        try:
            repo.remotes["origin"].push([f":{refname}"], callbacks=self.callbacks())
        except (pygit2.GitError, OSError) as exc:
            raise classify(exc, self.remote, self.auth, "deleting the check ref") from None

    def heads(self, repo: pygit2.Repository) -> list[str]:
        try:
            listed = repo.remotes["origin"].list_heads(callbacks=self.callbacks())
        except (pygit2.GitError, OSError) as exc:
            raise classify(exc, self.remote, self.auth, "connecting") from None
        return [h.name or "" for h in listed]

    def foreign_branches(self, repo: pygit2.Repository) -> list[str]:
        try:
            listed = repo.remotes["origin"].list_heads(callbacks=self.callbacks())
        except (pygit2.GitError, OSError) as exc:
            raise classify(exc, self.remote, self.auth, "listing branches") from None
        return [n for n in (h.name or "" for h in listed) if n.startswith("refs/heads/")]

    def gone(self) -> bool:
        return False  # a server that is down may come back: the writer retries

    def local_path(self) -> Path | None:
        return None

    def close(self) -> None:
        return None
