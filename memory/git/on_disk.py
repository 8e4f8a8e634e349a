"""A search answered from files alone, without git: when the memory remote is a repository on
this host and the search index beside the cache (memory/search/fts.py) holds its branch's tip,
or a commit the few since can be read from loose objects (memory/git/loose.py: a note since),
the hits are the index's, exactly what the Store's search would give after its fetch (`hippo
search` on a warm cache, bot/cli/memory.py).

Whatever this cannot tell for sure is None, and the caller asks the Store (pygit2), which
fetches, brings the index to the tip and repairs it; the reason is logged at DEBUG
(`hippo.search`, HIPPO_LOG_LEVEL=DEBUG where logging is set up): another kind of remote, a
`tag:` query, a branch that is not a plain ref (symbolic; a reftable repository), an index
absent or damaged, or an index behind by what loose objects do not tell (objects packed, by
`git gc`, a push of 100 objects or more, or hippo's maintenance; a submodule; a name that is
not UTF-8; more than FAR_APART files changed). The Store's answer brings the index to the
tip, so the next search is this module's again.

What it reads, and why no more: a ref (its own file, else packed-refs, as git looks) and, for
the few commits since the index's, loose commits, trees and blobs. Packs are left to the
Store: after a repack the index is behind at most once, and reading packs (delta chains, the
.idx fan-out, two versions) would double the code for that one search.

Decision (issue 30's review): kept, not replaced by pygit2. Importing pygit2 alone costs ~80 ms
of CPU, about what the whole `hippo search` on a warm cache costs on a quiet machine (73 ms).
Measured in one run (bench/cli.py --runs 7, a note before every search, so the loose path each
time; load 2.9 on 2 cores): this module 110 ms CPU p50 (wall 179), the same search with pygit2
opening the remote and diffing the trees 170 ms (wall 233), against the 200 ms target. The two
modules are ~200 lines, checked against repositories git itself wrote (tests/memory/git/
test_on_disk.py: a person's `git push`, `git gc`, a pushed pack, packed refs).
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

# SHA-1 names only: loose.py reads 20-byte ids in trees (a SHA-256 repository is the Store's,
# whose libgit2 says what it cannot read)
_SHA = re.compile(r"^[0-9a-f]{40}$")


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
    objects; else None (ask the Store), the reason logged. A `tag:` query is the Store's (its
    entries are found per commit from the tree)."""
    if not is_local(remote):
        return None  # a server: only a fetch tells its tip (not worth a line: always so)
    if "tag:" in query.lower():
        return _ask_the_store("a tag: query is answered from the tree")
    path = index_path(cache)
    tip = ref(Path(remote), HEAD_REF)
    if tip is None:
        return _ask_the_store(f"{remote}: {HEAD_REF} is not a plain ref here")
    if not path.is_file():
        return _ask_the_store(f"no search index at {path} yet")
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
    except Unreadable as exc:
        return _ask_the_store(
            f"the index is behind {tip[:12]} by what loose objects do not tell: {exc}"
        )
    except sqlite3.DatabaseError as exc:
        return _ask_the_store(f"the search index is unreadable: {exc}")


def _ask_the_store(reason: str) -> list[Hit] | None:
    """None, saying why: the caller asks the Store (pygit2), which fetches and brings the index
    to the tip. logging is imported here alone: the answered search never needs it."""
    import logging

    logging.getLogger("hippo.search").debug("searching through git: %s", reason)
    return None
