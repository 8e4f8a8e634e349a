"""Errors of the memory core. Each says what happened and what to do.

MemoryStoreError
├── InvalidPath            a path outside the repository, '..', absolute, or inside .git
├── PathConflict           a file under an existing file, or a file where a folder is
├── ProtectedPath          .dream/ or forgotten.md written by a door not allowed to
├── InvalidText            control characters, broken Unicode, a multi-line title, a bad key
├── InvalidMetadata        entry metadata lint would reject (a bad date, status, empty value)
├── TooLarge               a file or entry over the size cap (the same for every door)
├── SecretFound            a write holds a credential (names the kind)
├── TombstoneConflict      a write re-adds a forgotten fact (cites the tombstone)
├── NoteRejected           a note that is empty or too long
├── TargetGone             an operation's file or entry is not there (any more)
│   └── EntryConflict      the entry was changed or removed by another writer
├── NotFound               a file or commit that does not exist
├── RemoteError            the remote cannot be reached or keeps moving (retried by tasks)
│   └── RemoteUnreachable  a refused, dropped or timed-out connection
├── RemoteAuthError        the remote refused hippo's credentials or host key (not retried)
├── PushRejected           the remote refused the push itself: a hook, a protected branch
├── NotMemoryRepository    `hippo init` on a repository that holds something else
└── LockTimeout            another writer held the workspace lock too long
"""

from __future__ import annotations


class MemoryStoreError(Exception):
    """Base class: a write or read the memory core refused, with a message a person can act on."""

    code = "memory_error"


class InvalidPath(MemoryStoreError):
    code = "invalid_path"

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        super().__init__(f"invalid path {path!r}: {why}; use a relative path inside the memory")


class PathConflict(MemoryStoreError):
    code = "path_conflict"

    def __init__(self, path: str, why: str) -> None:
        self.path = path
        super().__init__(f"refused: {path}: {why}; choose another path")


class ProtectedPath(MemoryStoreError):
    code = "protected_path"

    def __init__(self, path: str, why: str = "") -> None:
        self.path = path
        super().__init__(why or f"{path} is under .dream/, which only the dreaming job may write")


class InvalidText(MemoryStoreError):
    code = "invalid_text"

    def __init__(self, what: str, why: str) -> None:
        self.what = what
        super().__init__(f"refused: {what} {why}")


class InvalidMetadata(MemoryStoreError):
    code = "invalid_metadata"

    def __init__(self, problem: str, path: str = "") -> None:
        self.path = path
        where = f" in {path}" if path else ""
        super().__init__(f"refused: entry metadata{where}: {problem}; fix it and save again")


class TooLarge(MemoryStoreError):
    code = "too_large"

    def __init__(
        self,
        what: str,
        size: int,
        limit: int,
        unit: str = "bytes",
        hint: str = "Keep memory to short facts and link to the rest",
    ) -> None:
        self.size = size
        self.limit = limit
        super().__init__(f"refused: {what} is {size:,} {unit}; the limit is {limit:,}. {hint}")


class AppendOnly(MemoryStoreError):
    code = "append_only"

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"{path} is in archive/, which is append-only: episodes are never edited, moved or "
            "deleted; add new lines at the end (or write the file whole only to create it)"
        )


class FormatTooNew(MemoryStoreError):
    code = "format_too_new"

    def __init__(self, found: int, known: int) -> None:
        self.found, self.known = found, known
        super().__init__(
            f"this memory is in format version {found}, written by a newer hippo; this hippo "
            f"knows versions up to {known} and will not write to it: upgrade hippo"
        )


class SecretFound(MemoryStoreError):
    code = "secret"

    def __init__(self, kind: str, path: str = "") -> None:
        self.kind = kind
        self.path = path
        where = f" in {path}" if path else ""
        super().__init__(
            f"refused: the text{where} contains what looks like a secret ({kind}); "
            "remove the secret (rotate it if it was real) and save again"
        )


class TombstoneConflict(MemoryStoreError):
    code = "tombstoned"

    def __init__(self, text: str, tombstone: str) -> None:
        self.text = text
        self.tombstone = tombstone
        super().__init__(
            f"refused: this fact was forgotten on purpose ({tombstone}); "
            "force the write if it is true again"
        )


class NoteRejected(MemoryStoreError):
    code = "note_rejected"


class TargetGone(MemoryStoreError):
    code = "target_gone"

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(message)


class EntryConflict(TargetGone):
    code = "conflict"


class NotFound(MemoryStoreError):
    code = "not_found"


class RemoteError(MemoryStoreError):
    code = "remote"


class RemoteUnreachable(RemoteError):
    code = "remote_unreachable"

    def __init__(self, url: str, doing: str, why: str) -> None:
        self.url = url
        super().__init__(
            f"cannot reach the memory remote {url} ({doing}): {why}; nothing was saved there. "
            "Check the network and HIPPO_MEMORY_REMOTE (queued writes retry by themselves)"
        )


_AUTH_HELP = {
    "token": "check HIPPO_MEMORY_TOKEN (and HIPPO_MEMORY_USERNAME); it needs write access "
    "(Contents: read and write) to the memory repository",
    "none": "set HIPPO_MEMORY_TOKEN (or configure the GitHub App) for an HTTPS remote",
    "ssh-key": "check HIPPO_MEMORY_SSH_KEY (and HIPPO_MEMORY_SSH_PASSPHRASE) and that its "
    "public key has write access",
    "ssh-agent": "set HIPPO_MEMORY_SSH_KEY, or add a key with write access to the ssh-agent",
    "host-key": "the server's host key is not in HIPPO_MEMORY_KNOWN_HOSTS; add it "
    "(ssh-keyscan, checked against the host's published fingerprint)",
}


class RemoteAuthError(MemoryStoreError):
    code = "remote_auth"

    def __init__(self, url: str, method: str, detail: str = "") -> None:
        self.url = url
        self.method = method
        what = "host key" if method == "host-key" else "credentials"
        super().__init__(
            f"the memory remote {url} refused hippo's {what}; "
            f"{_AUTH_HELP.get(method, _AUTH_HELP['none'])}. Nothing was written"
            + (f" ({detail})" if detail and method == "host-key" else "")
        )


class PushRejected(MemoryStoreError):
    code = "push_rejected"

    def __init__(self, url: str, ref: str, message: str) -> None:
        self.url = url
        self.ref = ref
        self.reason = message
        super().__init__(
            f"the memory remote {url} refused hippo's push to {ref}: {message}. "
            "A protected branch, a pre-receive hook or missing write permission stops hippo: "
            "let hippo's account push to that branch; nothing was saved"
        )


class NotMemoryRepository(MemoryStoreError):
    code = "not_memory"


class LockTimeout(MemoryStoreError):
    code = "lock_timeout"
