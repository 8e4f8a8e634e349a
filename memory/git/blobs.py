"""Files read at a commit from any local git repository (a clone, bare or not): how lessons
read a pull request's files without API calls (integrations/github_pulls.py:git_reader).
"""

from __future__ import annotations

from collections.abc import Callable

import pygit2

BlobReader = Callable[[str, str], bytes | None]


def clone_reader(path: str) -> BlobReader:
    """`read(sha, file)`: the file's bytes at commit `sha`, None when absent or not a file."""
    repo = pygit2.Repository(path)

    def read(sha: str, file: str) -> bytes | None:
        try:
            tree = repo.revparse_single(sha).peel(pygit2.Commit).tree
            obj = repo[tree[file].id]
        except (KeyError, ValueError):
            return None
        if not isinstance(obj, pygit2.Blob):
            return None
        return bytes(obj.data)

    return read
