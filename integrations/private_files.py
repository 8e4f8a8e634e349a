"""Files that hold credentials, and their folder, readable by hippo's own user only.

`slack-installs.db` keeps every workspace's bot token, the embedded Redis's `redis.db` the
queued tasks and Slack state, `console-secret-key` the console's signing key: each is 0600 in a
0700 data folder, whatever the umask. A folder or file made earlier with looser bits (before
this rule, or by hand) is tightened when hippo opens it; one hippo does not own is left as it is,
with a warning naming the command to run.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600
UMASK = 0o077  # for processes hippo starts that write such files (the embedded redis-server)

log = logging.getLogger("hippo.files")


def private_dir(path: Path) -> Path:
    """`path` made if missing (parents as usual) and, it itself, 0700."""
    path.mkdir(parents=True, exist_ok=True)
    _tighten(path, FOLDER_MODE)
    return path


def private_file(path: Path) -> Path:
    """`path` made empty if missing, 0600 either way (its folder is made private too): a
    program that opens it next (SQLite) keeps the mode it finds."""
    private_dir(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    _tighten(path, FILE_MODE)
    return path


def _tighten(path: Path, mode: int) -> None:
    if path.stat().st_mode & 0o777 & ~mode == 0:
        return
    try:
        path.chmod(mode)
    except PermissionError:
        log.warning(
            "%s is readable by others and not hippo's to change: chmod %o %s", path, mode, path
        )
