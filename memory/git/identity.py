"""Who is at the command line, as git itself says: `git var GIT_AUTHOR_IDENT` run where the
command runs, so the answer is the one `git commit` would use there (GIT_AUTHOR_NAME and
GIT_AUTHOR_EMAIL, then `user.name` and `user.email` from the repository's, the global and the
system configuration, GIT_CONFIG_GLOBAL included). None when git is not installed or knows
nobody ("Please tell me who you are")."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

TIMEOUT_S = 5.0
_IDENT = re.compile(r"^(?P<name>.*?) <(?P<email>[^<>]*)> \d+ [+-]\d{4}$")


@dataclass(frozen=True)
class Person:
    name: str
    email: str


def person(cwd: str | None = None) -> Person | None:
    """The author git would write in `cwd` (the current directory when None), or None."""
    git = shutil.which("git")
    if git is None:
        return None
    try:
        done = subprocess.run(
            [git, "var", "GIT_AUTHOR_IDENT"],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _IDENT.match(done.stdout.strip()) if done.returncode == 0 else None
    if found is None or not found["name"].strip():
        return None
    return Person(found["name"].strip(), found["email"].strip())
