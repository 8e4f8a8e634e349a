"""`tag:` in a query: only entries carrying the tag, alone or with words.

`tag:deploy` (or `tag:"on call"`) keeps the entries whose `tags:` hold a tag with the same key
(memory/format/tags.py: case, `-`/`_`/space and plurals aside), every `tag:` of the query at
once. With words too, the words are searched as usual (ranked, or all-words) among those
entries only: an index of just their lines (each at its own line number, so hits point where the
entry is), built once per commit and set of tags; a query of tags alone lists every tagged
entry, newest `added` first. The entries carrying each tag are found once per commit.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import memory.format.tags as tags
from memory import format as fmt
from memory.search.hit import Hit, hit
from memory.search.index import SearchIndex
from memory.search.priors import ARCHIVE

_TAG = re.compile(r'(?i)(?<!\S)tag:(?:"([^"]*)"|(\S*))')
_KEEP = 4  # commits whose tagged entries are kept (the tip and a few a reader may still ask)


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
    commit: str,
    words: str,
    wanted: list[str],
    limit: int,
    index: dict[str, list[Tagged]],
    *,
    all_words: bool = False,
) -> list[Hit]:
    """The hits for `words` among the entries carrying every `wanted` tag key (`index`:
    `tag_index` of the tree of `commit`)."""
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
    key = f"{commit}:{','.join(sorted(wanted))}"
    with _LOCK:
        only = _ONLY.get(key)
    if only is None:
        only = SearchIndex.build(_only(carrying.values()))
        with _LOCK:
            _ONLY[key] = only
            while len(_ONLY) > _KEEP * 4:
                del _ONLY[next(iter(_ONLY))]
    return only.search(words, limit, all_words=all_words)


def _only(entries: Iterable[Tagged]) -> dict[str, bytes]:
    """A tree of just these entries' lines, each at its own line number (the rest blank)."""
    files: dict[str, dict[int, str]] = {}
    for t in entries:
        files.setdefault(t.path, {})[t.line] = t.raw.rstrip("\r\n")
    out: dict[str, bytes] = {}
    for path, lines in files.items():
        text = "\n".join(lines.get(i, "") for i in range(1, max(lines) + 1))
        out[path] = (text + "\n").encode("utf-8")
    return out


_LOCK = threading.Lock()
_ONLY: dict[str, SearchIndex] = {}  # commit and tag keys → the index of those entries' lines
Read = Callable[[list[str] | None], Mapping[str, bytes]]  # paths (None: all) → their bytes
Changes = Callable[[str, str], list[str] | None]  # (old, new) → paths changed, None: far apart
REBUILD_FILES = 256  # a diff touching more files than this reads the whole tree again


class TagCache:
    """One store's tag key → entries carrying it, per commit: the last few commits kept, and a
    new commit's made from the newest kept one by its tree diff (only the changed files read),
    as the search index follows commits."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by: dict[str, dict[str, list[Tagged]]] = {}

    def at(self, commit: str, read: Read, changes: Changes) -> dict[str, list[Tagged]]:
        with self._lock:
            known = self._by.get(commit)
            base = next(reversed(self._by.items()), None)
        if known is not None:
            return known
        changed = changes(base[0], commit) if base is not None else None
        if base is None or changed is None or len(changed) > REBUILD_FILES:
            built = _build(read(None))
        else:
            gone = set(changed)
            built = {k: [t for t in ts if t.path not in gone] for k, ts in base[1].items()}
            for k, ts in _build(read(changed)).items():
                built.setdefault(k, []).extend(ts)
        with self._lock:
            self._by[commit] = built
            while len(self._by) > _KEEP:
                del self._by[next(iter(self._by))]
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
