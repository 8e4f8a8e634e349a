"""Repository preferences: `preferences/repos/<owner>/<repo>.md`, how to work in one repository.

People set them from Slack ("@hippo in acme/shop, assess billing impact", `/hippo instructions
add --repo acme/shop …`) and from the console; briefings and the agent's prompt load them for that
repository. Pure: names, paths and the parsing of the words that name a repository.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memory.errors import MemoryStoreError
from memory.lessons.planner import conventions_path

PREFIX = "preferences/repos/"
CONVENTIONS = "conventions/"

# GitHub's rules: an owner is 1-39 letters, digits or single hyphens; a repository name is up to
# 100 letters, digits, '.', '_' or '-' and is neither '.' nor '..'.
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}"
_NAME = r"[A-Za-z0-9._-]{1,100}"
_REPO = re.compile(rf"^{_OWNER}/{_NAME}$")
# A repository named inside prose: not part of a URL or a longer path (no '/' or ':' around it).
_NAMED = re.compile(rf"(?<![\w./:@-])({_OWNER}/{_NAME})(?![\w/-])")


class BadRepo(MemoryStoreError, ValueError):
    """Not an `owner/name` repository name; the message says what one looks like."""


def check_repo(repo: str) -> str:
    """`owner/name` as GitHub spells it (surrounding spaces, a trailing `.git` or '/' dropped)."""
    name = repo.strip().removesuffix("/").removesuffix(".git")
    if not _REPO.match(name) or name.split("/")[1] in (".", ".."):
        raise BadRepo(f"{repo!r} is not a repository: write owner/name, e.g. acme/shop")
    return name


def is_repo(repo: str) -> bool:
    try:
        check_repo(repo)
    except BadRepo:
        return False
    return True


def path_for(repo: str) -> str:
    return f"{PREFIX}{check_repo(repo)}.md"


def conventions_for(repo: str) -> str:
    """The repository's lessons file (memory/lessons/planner.py writes it), for a checked name."""
    return conventions_path(check_repo(repo))


def title_for(repo: str) -> str:
    return f"Repository {check_repo(repo)}: how to work here"


def named(text: str) -> list[str]:
    """Every `owner/name` written in `text`, in order, once each (a trailing '.' or ',' of the
    sentence is not part of the name)."""
    found = [m.group(1).rstrip(".") for m in _NAMED.finditer(text)]
    return [r for r in dict.fromkeys(found) if is_repo(r)]


def known(text: str, exists: Callable[[str], bool]) -> list[str]:
    """The repositories named in `text` that the memory knows: it holds their conventions or
    their preferences (`exists(path)` answers for a path). 'and/or' in prose stays prose."""
    return [r for r in named(text) if exists(conventions_for(r)) or exists(path_for(r))]
