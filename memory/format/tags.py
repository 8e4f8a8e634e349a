"""Tags: the `tags:` metadata key, its spelling rules and the key near-duplicates share.

Decision 16 (memory/format/decisions.py): `tags:` holds tags separated by commas
(`[tags: deploy, billing]`); a comma never belongs to a tag, so no escape is needed beyond the
bracket's own (`;` `[` `]`). A tag is letters and digits, joined by single `-`, `_`, `.`, `/`
or spaces, at most MAX_TAG characters; an entry has at most MAX_TAGS. Repeated `tags:` keys
add up. Two tags are the same tag when their `key` is: case, separators and plurals aside
(`Deploys`, `deploy`; `on_call`, `on-call`, `on call`), which is what `tag:` in a search
matches and what the dream merges into one spelling.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from memory.format.document import Entry

KEY = "tags"
MAX_TAG = 40
MAX_TAGS = 20
_TAG = re.compile(r"^[^\W_]+(?:[-_./ ][^\W_]+)*$")
_SEPARATORS = re.compile(r"[-_ ]+")


def split(value: str) -> list[str]:
    """The tags of one `tags:` value, as written (spaces around each trimmed, empties left)."""
    return [t.strip() for t in value.split(",") if t.strip()]


def of(entry: Entry) -> list[str]:
    """Every tag of `entry` (all its `tags:` values), as written, first spelling of each kept."""
    seen: dict[str, str] = {}
    for value in entry.get_all(KEY):
        for tag in split(value):
            seen.setdefault(key(tag), tag)
    return list(seen.values())


def join(tags: Iterable[str]) -> str:
    """A `tags:` value for `tags` (order kept, same-key repeats dropped)."""
    out: dict[str, str] = {}
    for tag in tags:
        if tag.strip():
            out.setdefault(key(tag), tag.strip())
    return ", ".join(out.values())


def problem(value: str) -> str | None:
    """Why a `tags:` value breaks the spelling rules (decision 16), or None."""
    parts = [t.strip() for t in value.split(",")]
    if any(not p for p in parts):
        return f"'tags: {value}' has an empty tag; separate tags with one comma"
    if len(parts) > MAX_TAGS:
        return f"'tags: {value[:60]}…' has {len(parts)} tags; at most {MAX_TAGS}"
    for tag in parts:
        if len(tag) > MAX_TAG or not _TAG.match(tag):
            return (
                f"tag {tag[:60]!r} is not a tag: letters and digits joined by single '-', '_', "
                f"'.', '/' or spaces, at most {MAX_TAG} characters"
            )
    return None


def key(tag: str) -> str:
    """What makes two tags the same tag: case-folded, `-` `_` and spaces one separator, each
    word's plural ending dropped (deploys → deploy, policies → policy, caches → cache)."""
    folded = unicodedata.normalize("NFKC", tag).casefold().strip()
    return "-".join(_singular(w) for w in _SEPARATORS.split(folded) if w)


def canonical(tag: str) -> str:
    """A tag as the dream prefers to write it when no spelling is in use more: lower case,
    words joined by '-'."""
    folded = unicodedata.normalize("NFKC", tag).casefold().strip()
    return "-".join(w for w in _SEPARATORS.split(folded) if w)


def _singular(word: str) -> str:
    """`word` without a plural ending, and without a final 'e', so that both spellings of a
    plural meet: caches and cache → cach, boxes and box → box, policies and policy → policy."""
    if len(word) <= 3 or not word.isalpha():
        return word  # short words and versions (k8s, v2, bus) are left as written
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word
