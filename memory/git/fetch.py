"""Fetching into the Store's bare cache: the one entry point (`fetch`), which chooses how.

Callers (the Mirror's sync and its behind-the-caller fetch, the cold archive) say what to fetch;
this module says how, from what the remote is and what the cache holds:

- A local remote (a path), the cache's first fetch of the branch, the whole memory: the git CLI
  (`git fetch`). Its upload-pack sends the remote's packs as they are, where libgit2's local
  transport walks every object and builds a new pack, deltas computed again: at 100,000 files
  (101 MB of text, a 47 MB pack) 36 s of CPU against git's 2.7 s (bench/growth.py).
- A local remote, any later fetch, or other refspecs (the cold archive's): libgit2, in-process.
  A few new objects: libgit2 costs nothing there, where git would cost a process and its
  start-up on every note's fetch (bench/notes.py --remote local).
- A git server (https, ssh): libgit2, in-process, with the transport's callbacks. As fast as
  git over smart HTTP and git daemon (measured in the same run); credentials stay in the
  process (never on a command line), and errors are classified (memory/git/credentials.py).

The git CLI is only ever a shortcut: git missing from PATH, failing or stuck (`TIMEOUT_S`)
falls back to libgit2, which reports any error in its own words.

When a fetch runs is the Mirror's (memory/git/mirror.py): on demand (`sync`), when the tip
known is older than `max_age` (`fresh`), or, for the note path, on a thread behind the caller
(`fresh(wait=False)`); every one of them comes here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from memory.errors import RemoteError
from memory.git.transport import FETCH_SPECS, HEAD_REF, TRACK_REF

if TYPE_CHECKING:
    from memory.git.transport import Transport

TIMEOUT_S = 600.0  # a local fetch this slow is stuck: libgit2 takes over


def fetch(repo: pygit2.Repository, transport: Transport, specs: list[str] | None = None) -> None:
    """Fetch the branch and refs/hippo/* (or `specs`) from `transport`'s remote into the bare
    cache `repo`, the cheapest way for the case (see the module's table). Raises a
    RemoteError."""
    local = transport.local_path()
    first = specs is None and local is not None and _first(repo, transport)
    if first and _with_git(repo.path, str(local), FETCH_SPECS):
        return
    transport.fetch(repo, specs)


def _first(repo: pygit2.Repository, transport: Transport) -> bool:
    """The cache's first fetch (nothing fetched yet) of a remote whose branch exists: the
    whole memory comes at once."""
    if repo.references.get(TRACK_REF) is not None:
        return False
    try:
        return HEAD_REF in transport.heads(repo)
    except (RemoteError, pygit2.GitError, OSError):
        return False  # libgit2's fetch says what is wrong


def _with_git(cache: str, remote: str, specs: list[str]) -> bool:
    """Fetch `specs` from the repository at path `remote` into the bare `cache` with the git
    CLI (`--git-dir` wins over a GIT_DIR the process may carry, from a hook say). False when
    git is not on PATH or the fetch failed: the caller fetches with libgit2."""
    git = shutil.which("git")
    if git is None:
        return False
    command = [
        git, "-c", "gc.auto=0", "-c", "maintenance.auto=false", "--git-dir", cache,
        "fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--",
        str(Path(remote).resolve()), *specs,
    ]  # fmt: skip
    try:
        done = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0
