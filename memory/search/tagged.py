"""`tag:` in a query: only entries carrying the tag, alone or with words.

`tag:deploy` (or `tag:"on call"`) keeps the entries whose `tags:` hold a tag with the same key
(memory/format/tags.py: case, `-`/`_`/space and plurals aside), every `tag:` of the query at
once. With words too, the words are searched as usual (ranked, or all-words) over the
best WIDEN × limit lines and the hits are those entries; a query of tags alone lists every
tagged entry, newest `added` first. The entries carrying each tag are found once per commit.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import memory.format.tags as tags
from memory import format as fmt
from memory.search.hit import Hit, hit
from memory.search.priors import ARCHIVE

WIDEN = 20  # words with tags: the words' best WIDEN × limit lines are filtered
MIN_WIDE = 500
_TAG = re.compile(r'(?i)(?<!\S)tag:(?:"([^"]*)"|(\S*))')
_KEEP = 4  # commits whose tagged entries are kept (the tip and a few a reader may still ask)

Where = tuple[str, int]  # (path, 1-based line)
Search = Callable[[str, int], list[Hit]]


@dataclass(frozen=True)
class Tagged:
    """One entry carrying tags: where it is, its line as written, its `added` date."""

    path: str
    line: int
    raw: str
    added: str


def split(query: str) -> tuple[str, list[str]]:
    """The query's words without its `tag:` terms, and the keys of those tags (an empty
    `tag:` is no filter)."""
    wanted: list[str] = []

    def take(m: re.Match[str]) -> str:
        # a sentence's own punctuation after the tag ("… tag:deploy?") is not the tag's
        raw = m.group(1) if m.group(1) is not None else m.group(2).rstrip("?!.,;:)")
        key = tags.key(raw)
        if key:
            wanted.append(key)
        return " "

    rest = _TAG.sub(take, query)
    return " ".join(rest.split()), list(dict.fromkeys(wanted))


def search(
    words: str, wanted: list[str], limit: int, index: dict[str, list[Tagged]], words_search: Search
) -> list[Hit]:
    """The hits for `words` among the entries carrying every `wanted` tag key (`index`:
    `tag_index` of the tree searched)."""
    if limit <= 0:
        return []
    sets = [index.get(k, []) for k in wanted]
    carrying = {(t.path, t.line): t for t in sets[0]} if sets else {}
    for other in sets[1:]:
        keep = {(t.path, t.line) for t in other}
        carrying = {w: t for w, t in carrying.items() if w in keep}
    if not carrying:
        return []
    if not words:
        newest = sorted(carrying.values(), key=lambda t: (t.added, t.path, -t.line), reverse=True)
        return [hit(t.path, t.line, t.raw, True, 0.0) for t in newest[:limit]]
    found = words_search(words, max(limit * WIDEN, MIN_WIDE))
    return [h for h in found if (h.path, h.line) in carrying][:limit]


_LOCK = threading.Lock()
_CACHE: dict[str, dict[str, list[Tagged]]] = {}


def tag_index(commit: str, tree: Callable[[], Mapping[str, bytes]]) -> dict[str, list[Tagged]]:
    """Tag key → the entries carrying it, in the tree of `commit` (built once, kept for the
    last few commits asked)."""
    with _LOCK:
        known = _CACHE.get(commit)
    if known is not None:
        return known
    built = _build(tree())
    with _LOCK:
        _CACHE[commit] = built
        while len(_CACHE) > _KEEP:
            del _CACHE[next(iter(_CACHE))]
    return built


def _build(tree: Mapping[str, bytes]) -> dict[str, list[Tagged]]:
    out: dict[str, list[Tagged]] = {}
    for path, data in tree.items():
        # Only markdown outside the archive holds entries; most files hold no tag at all.
        if not path.endswith(".md") or path.startswith(ARCHIVE) or b"tags:" not in data.lower():
            continue
        doc = fmt.parse(data.decode("utf-8", "replace"))
        for entry in doc.entries:
            found = tags.of(entry)
            if not found:
                continue
            t = Tagged(path, entry.line + 1, doc.lines[entry.line], entry.get("added") or "")
            for tag in found:
                out.setdefault(tags.key(tag), []).append(t)
    return out
