"""What a line is, for every text hippo gets from git, GitHub or the memory files.

A line ends at "\\n", and only there: git (diffs, hunk headers, `git log`, blame), GitHub (a pull
request file's `patch`, check run annotations' line numbers), grep and an editor's line numbers
all count that way. A "\\r" right before the "\\n" belongs to the line ending (a CRLF file); any
other character, a lone "\\r", a form feed, "\\x0b", "\\x1c"–"\\x1e", "\\x85", U+2028 or U+2029, is
part of the line. `str.splitlines()` also breaks at all of those, which shifts every later line
number (a form feed in a patch moved each later pitfall annotation down a line), so text from
those sources is split here and never with `splitlines()`.
"""

from __future__ import annotations


def split(text: str) -> list[str]:
    """The lines of `text` without their endings; text ending in "\\n" has no empty last line."""
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def split_keep(text: str) -> list[str]:
    """The lines of `text` with their endings ("\\n" or "\\r\\n"); "".join gives `text` back."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def first(text: str) -> str:
    """The first line of `text` ("" for no text): a commit message's subject."""
    line = text.split("\n", 1)[0]
    return line[:-1] if line.endswith("\r") else line


def count(text: str) -> int:
    """How many lines `text` has, as `wc -l` counts them plus an unterminated last line."""
    return len(split(text))
