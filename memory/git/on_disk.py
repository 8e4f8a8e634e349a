"""A search answered from files alone, without git: when the memory remote is a repository on
this host and the search index beside the cache (memory/search/fts.py) holds its branch's tip,
or a commit the few since can be read from loose objects (memory/git/loose.py: a note since),
the hits are the index's, exactly what the Store's search would give after its fetch (`hippo
search` on a warm cache, bot/cli/memory.py). Importing pygit2 and the store cost
that command ~100 ms of CPU; reading a ref file and the index costs a few.

Whatever this cannot tell for sure (another kind of remote, a symbolic or unusual ref, an index
absent, damaged or behind by what loose objects do not tell, a query the index alone does not
answer) is None, and the
caller asks the Store, which fetches, brings the index to the tip and repairs it.
"""

from __future__ import annotations

import re
import sqlite3
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from memory.git.loose import Loose, Unreadable
from memory.git.transport import HEAD_REF, is_local

if TYPE_CHECKING:
    from memory.search import Hit

_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def cache_path(data_dir: Path | str, workspace: str) -> Path:
    """The Store's bare cache of one workspace's memory (Store.open)."""
    return Path(data_dir) / "workspaces" / workspace / "cache.git"


def index_path(cache: Path) -> Path:
    """The search index beside the cache (Store.search)."""
    return cache.with_suffix(".search.sqlite")


def ref(git_dir: Path, refname: str) -> str | None:
    """The commit `refname` names in the repository at `git_dir`, read where git keeps it: its
    own file (written whole and renamed into place, never seen half-written), else the line of
    packed-refs. None when it is not found that way: absent, symbolic, or kept otherwise."""
    try:
        return _sha((git_dir / refname).read_text())
    except (FileNotFoundError, NotADirectoryError):
        pass  # packed, or kept in another form
    except OSError:
        return None
    try:
        packed = (git_dir / "packed-refs").read_text()
    except OSError:
        return None
    for line in packed.splitlines():
        sha, _, name = line.partition(" ")
        if name == refname:
            return _sha(sha)
    return None


def _sha(text: str) -> str | None:
    text = text.strip()
    return text if _SHA.match(text) else None


def search_at_tip(remote: str, cache: Path, query: str, limit: int) -> list[Hit] | None:
    """The ranked hits for `query` from the index beside `cache`, when `remote` is a
    repository on this host whose branch's tip the index holds or is brought to from loose
    objects; else None (ask the Store). A `tag:` query is the Store's (its entries are found
    per commit from the tree)."""
    if not is_local(remote) or "tag:" in query.lower():
        return None
    path = index_path(cache)
    tip = ref(Path(remote), HEAD_REF)
    if tip is None or not path.is_file():
        return None
    from memory.search.fts import FtsIndex

    loose = Loose(Path(remote))
    try:
        index = FtsIndex(path)
        try:
            # A few commits behind (a note since): brought up from the loose objects they left.
            changes = partial(loose.changes, new=tip)
            return index.answer(tip, changes, partial(loose.files, tip), query, limit)
        finally:
            index.close()
    except (sqlite3.DatabaseError, Unreadable):
        return None  # the Store fetches, and brings the index up (or makes it again)
