"""Search over history: the commits that added, changed or removed memory entries.

"When did we stop believing X, and who changed it?" Each commit is diffed against its first
parent, entry by entry (memory/format.py), for the markdown files it touched; a commit is a hit
when one of those entries (before or after) holds the query. It carries who made it, why (the
commit message's body as hippo writes it: a forget's reason, a dream step's lines) and the
evidence (the entries' `source:`, the `Hippo-Source:` trailer, the commit it reverts).

Deterministic (newest first, in the order git walks them) and bounded: at most `limit` hits,
no commit older than `since`, and at most `scan` commits read. It reads the local mirror only.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pygit2
from pygit2.enums import SortMode

from memory import format as fmt
from memory.errors import NoteRejected
from memory.git.history import CommitInfo, info
from memory.search.bounds import bound

MAX_SCAN = 5000  # commits read per search: a year of a busy team's memory
MAX_ENTRIES = 50  # entry changes shown per commit (a dream step may touch hundreds)
_PAIR_WORK = 400  # removed × added entries of one file compared for "changed" pairs
_SIMILAR = 0.6  # difflib ratio above which a removed and an added entry are one edit
_PHRASE = re.compile(r'"([^"]+)"|(\S+)')
_OWN_TRAILER = re.compile(r"^Hippo-[\w-]+: ")
_EVIDENCE = re.compile(r"^\s+evidence: (.+)$")  # a dream step's line under the change it backs
Meta = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class EntryChange:
    path: str
    action: str  # added | changed | removed
    text: str  # the entry's text after the commit (removed: before it)
    meta: tuple[tuple[str, str], ...] = ()
    before: str = ""  # changed: the text before
    before_meta: tuple[tuple[str, str], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "action": self.action, "text": self.text}
        out["meta"] = dict(self.meta)
        if self.action == "changed":
            out["before"] = self.before
            out["before_meta"] = dict(self.before_meta)
        return out


@dataclass(frozen=True)
class Change:
    """One commit of the history, with the entry changes that matched."""

    commit: CommitInfo
    paths: list[str]
    entries: list[EntryChange]
    more: int = 0  # matching entry changes left out (beyond MAX_ENTRIES)
    words: tuple[str, ...] = ()  # the search's, to keep a long body's lines about the hits

    def _body(self) -> list[str]:
        """The message's body without hippo's own trailers (Hippo-Key, Hippo-Request: bookkeeping,
        not a reason). When the search had words, a body that lists changes (a dream step's
        `- deleted path: 'text'` items, each with indented `evidence:` lines) keeps only the
        items about the matching entries."""
        rest = self.commit.message.strip().split("\n", 1)[1:]
        lines = [x for x in "".join(rest).splitlines() if not _OWN_TRAILER.match(x)]
        if not self.words:
            return lines
        texts = [t.casefold()[:40] for e in self.entries for t in (e.text, e.before) if t]
        out, keep = [], True
        for line in lines:
            low = line.casefold()
            if line.startswith("- "):
                keep = all(w in low for w in self.words) or any(t in low for t in texts)
            elif not line.startswith(" "):
                keep = True
            if keep:
                out.append(line)
        return out

    @property
    def reason(self) -> str:
        """Why, as the commit says it (its body, see `_body`), and the `reason:` of entries it
        changed (a forget records one on its tombstone)."""
        lines = ["\n".join(self._body()).strip()]
        lines += [v for e in self.entries for k, v in e.meta if k.lower() == "reason"]
        return "\n".join(dict.fromkeys(x for x in lines if x))

    @property
    def evidence(self) -> list[str]:
        found = [v for e in self.entries for k, v in (*e.meta, *e.before_meta) if k == "source"]
        found += [m.group(1).strip() for x in self._body() if (m := _EVIDENCE.match(x))]
        trailers = self.commit.trailers
        if "Hippo-Source" in trailers:
            found.append(trailers["Hippo-Source"])
        if "Hippo-Reverts" in trailers:
            found.append(f"reverts {trailers['Hippo-Reverts']}")
        return list(dict.fromkeys(found))

    def as_dict(self) -> dict[str, Any]:
        c = self.commit
        return {
            "commit": c.sha,
            "time": c.time.isoformat(),
            "author": c.author,
            "email": c.email,
            "summary": c.summary,
            "reason": self.reason,
            "evidence": self.evidence,
            "trailers": c.trailers,
            "paths": self.paths,
            "entries": [e.as_dict() for e in self.entries],
            "more": self.more,
        }


@dataclass(frozen=True)
class Found:
    changes: list[Change] = field(default_factory=list)
    scanned: int = 0
    complete: bool = True  # False when the walk stopped at `scan` before `since` or the root


def needles(query: str, *, exact: bool = False) -> list[str]:
    """What every matching entry holds (case-insensitive): the whole text with `exact` (like
    `git log -S`), else each word and "quoted phrase"."""
    if exact:
        return [query.strip().casefold()] if query.strip() else []
    asked = bound(query).query  # memory/search/bounds.py: 1,000 characters, 32 words
    return [(a or b).casefold() for a, b in _PHRASE.findall(asked) if (a or b).strip()]


def parse_since(text: str) -> datetime:
    """A date (2026-11-01) or an ISO time; a naive one is UTC. Bad text is a clear refusal."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise NoteRejected(
            f"{text!r} is not a date: give YYYY-MM-DD or an ISO time (2026-11-01T09:00)"
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def search(
    repo: pygit2.Repository,
    head: str,
    words: list[str],
    *,
    limit: int = 20,
    since: datetime | None = None,
    path: str | None = None,
    scan: int = MAX_SCAN,
) -> Found:
    """Commits newest first whose entry changes hold every one of `words` (with no words: every
    commit, or with `path` every commit that changed that file, as recent activity)."""
    out: list[Change] = []
    scanned = 0
    for commit in repo.walk(pygit2.Oid(hex=head), SortMode.TOPOLOGICAL | SortMode.TIME):
        if since is not None and commit.commit_time < since.timestamp():
            return Found(out, scanned)  # a write path's history is linear and in time order
        if scanned >= scan:
            return Found(out, scanned, complete=False)
        scanned += 1
        change = _change(repo, commit, words, path)
        if change is not None:
            out.append(change)
            if len(out) >= limit:
                break
    return Found(out, scanned)


def _change(
    repo: pygit2.Repository, commit: pygit2.Commit, words: list[str], path: str | None
) -> Change | None:
    parent = commit.parents[0].tree if commit.parents else None
    diff = parent.diff_to_tree(commit.tree) if parent else commit.tree.diff_to_tree(swap=True)
    paths: list[str] = []
    entries: list[EntryChange] = []
    for delta in diff.deltas:
        new, old = delta.new_file, delta.old_file
        name = new.path if delta.status_char() != "D" else old.path
        paths.append(name)
        if path is not None and path not in (new.path, old.path):
            continue
        if name.endswith(".md"):
            before = _text(repo, old.id) if delta.status_char() != "A" else ""
            after = _text(repo, new.id) if delta.status_char() != "D" else ""
            if _holds(before, words) or _holds(after, words):
                entries += [e for e in entry_changes(name, before, after) if _matches(e, words)]
    if path is not None and path not in paths:
        return None
    if words and not entries:
        return None
    more = max(0, len(entries) - MAX_ENTRIES)
    return Change(info(commit), paths, entries[:MAX_ENTRIES], more, tuple(words))


def _text(repo: pygit2.Repository, oid: pygit2.Oid) -> str:
    blob = repo.get(oid)
    return bytes(blob.data).decode("utf-8", "replace") if isinstance(blob, pygit2.Blob) else ""


def _holds(text: str, words: list[str]) -> bool:
    folded = text.casefold()
    return all(w in folded for w in words)


def _matches(e: EntryChange, words: list[str]) -> bool:
    return _holds(e.text, words) or (bool(e.before) and _holds(e.before, words))


def entry_changes(path: str, before: str, after: str) -> list[EntryChange]:
    """The entries of one file that a commit added, changed or removed. An added entry is a
    change of a removed one when it states the same fact (a new status, a source) or reads
    nearly the same (a corrected word); entries only moved are no change."""
    old = [(e.text, e.meta) for e in fmt.parse(before).entries] if before else []
    new = [(e.text, e.meta) for e in fmt.parse(after).entries] if after else []
    gone_count, came_count = Counter(old) - Counter(new), Counter(new) - Counter(old)
    gone = [x for x in dict.fromkeys(old) if gone_count[x]]
    came = [x for x in dict.fromkeys(new) if came_count[x]]
    out: list[EntryChange] = []
    for text, meta in came:
        match = _partner(text, gone, fuzzy=len(gone) * len(came) <= _PAIR_WORK)
        if match is None:
            out.append(EntryChange(path, "added", text, meta))
            continue
        gone.remove(match)
        out.append(EntryChange(path, "changed", text, meta, match[0], match[1]))
    out += [EntryChange(path, "removed", text, meta) for text, meta in gone]
    return out


def _partner(text: str, gone: list[tuple[str, Meta]], *, fuzzy: bool) -> tuple[str, Meta] | None:
    for old in gone:
        if fmt.same_fact(old[0], text):
            return old
    if not fuzzy:
        return None
    best, score = None, _SIMILAR
    for old in gone:
        ratio = difflib.SequenceMatcher(None, old[0], text, autojunk=False).ratio()
        if ratio > score:
            best, score = old, ratio
    return best
