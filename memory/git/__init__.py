"""The git store: `Store` owns its parts (transport, mirror, writer, trees, keys, lock); see
memory/README.md. Only this package imports pygit2."""

from memory.git.batch import DREAMER, HIPPO, Author, WriteRequest, WriteResult
from memory.git.credentials import RemoteAuth
from memory.git.store import Store
from memory.git.transport import BRANCH, is_local

__all__ = [
    "BRANCH",
    "DREAMER",
    "HIPPO",
    "Author",
    "RemoteAuth",
    "Store",
    "WriteRequest",
    "WriteResult",
    "is_local",
]
