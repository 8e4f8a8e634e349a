"""[[links]] in memory text: found, resolved to a path, written for a path (decision 9)."""

from __future__ import annotations

import re

LINK = re.compile(r"\[\[([^\[\]\n]*)\]\]")


def links_in(text: str) -> list[str]:
    return LINK.findall(text)


def link_target(link: str) -> str | None:
    """The repository path a [[link]] names, or None when it is invalid (decision 9)."""
    target = link.split("|", 1)[0].split("#", 1)[0].strip()
    if not target or target.startswith("/") or "\\" in target:
        return None
    parts = target.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    last = parts[-1]
    return target if "." in last else target + ".md"


def link_for(path: str) -> str:
    """The [[link]] text for a repository path: drop .md, keep other extensions."""
    return path[:-3] if path.endswith(".md") else path
