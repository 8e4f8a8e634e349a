"""The first fetch of a new cache from a local remote, by git's own fetch (upload-pack sends
the remote's packed objects as they are) rather than libgit2's local transport, which walks
every object and builds a new pack with deltas computed again: at 100,000 files (101 MB of
text, a 47 MB pack) 36 s of CPU against git's 2.7 s, measured by bench/growth.py. Later
fetches bring a few objects, where libgit2 costs nothing and needs no process. Over the
network libgit2 was as fast as git (smart HTTP and git daemon, the same run): those fetches
stay in-process.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

TIMEOUT_S = 600.0  # a local fetch this slow is stuck: libgit2 takes over


def fetch_with_git(cache: str, remote: str, specs: list[str]) -> bool:
    """Fetch `specs` from the repository at path `remote` into the bare `cache` with the git
    CLI (`--git-dir` wins over a GIT_DIR the process may carry, from a hook say). False
    when git is not on PATH or the fetch failed: the caller fetches with libgit2, which
    reports the error in its own words."""
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
