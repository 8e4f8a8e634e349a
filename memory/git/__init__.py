"""The git store: `Store` owns its parts (transport, mirror, writer, trees, keys, lock); see
memory/README.md. Only this package imports pygit2."""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.git.batch import DREAMER, HIPPO, Author, WriteRequest, WriteResult
    from memory.git.credentials import RemoteAuth
    from memory.git.store import Store
    from memory.git.transport import BRANCH, is_local

# Each name is imported from its module when first used (memory/lazy.py): a module of this
# package that needs no git (memory/git/on_disk.py) is imported without pygit2.
__getattr__, __dir__ = exports(
    __name__,
    {
        "batch": ("DREAMER", "HIPPO", "Author", "WriteRequest", "WriteResult"),
        "credentials": ("RemoteAuth",),
        "store": ("Store",),
        "transport": ("BRANCH", "is_local"),
    },
)

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
