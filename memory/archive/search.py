"""Searching the archive on purpose: the episodes still in the tree (`archive/*.jsonl`, ranked
search as before) and then the cold months (memory/git/cold.py), from an SQLite FTS5 index on
disk beside the store's cache.

The cold index is filled month by month from the cold ref's gzip files and follows the ref by
each month file's blob id, so a night's roll-up re-reads only the month it changed. A cold hit's
path is git's `<rev>:<path>` of the month file, `refs/hippo-cold/archive:months/2026-08.jsonl.gz`
(never a path of the tree, so no file an agent creates there can pass for it), and its line is
the line's number in that month; the tombstones forgotten.md shed (decision 19) are searched
too, `refs/hippo-cold/archive:forgotten/2026-01.md` at the record's line. Cold ranking is FTS5's
BM25 over Porter stems (deploy, deploys, deployed are one word; no typo tolerance, unlike the
ranked search): every word counts and a missing one costs rank; `all_words` keeps only lines
holding every word.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import memory.format.lines as textlines
from memory.git.cold import COLD_REF, FORGOTTEN, ColdStore, month_path
from memory.git.cold import Backing as Store
from memory.search import Hit, SearchIndex
from memory.search.fts_file import immediate

_WORD = re.compile(r"[^\W_]+")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS months(month TEXT PRIMARY KEY, blob TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS episodes USING fts5(
    text, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""
LINES_PER_MONTH = 10_000_000  # rowid = month number × this + line: a month's rows are a range
STONES = 10_000 * 12  # a tombstone month's number: past every archive month's


def search(store: Store, sha: str, query: str, limit: int, *, all_words: bool) -> list[Hit]:
    """Hits in the tree's archive at `sha` first, then in the cold months, at most `limit`."""
    hits = _hot(store, sha).search(query, limit=limit, all_words=all_words)
    if len(hits) < limit:
        hits += cold_index(store).search(query, limit - len(hits), all_words=all_words)
    return hits


_HOT: dict[Path, tuple[str, SearchIndex]] = {}  # cache path → the tree archive's index


def _hot(store: Store, sha: str) -> SearchIndex:
    """The ranked index of the archive files in the tree at `sha`, kept per store: built once,
    then brought to each new commit from the tree diff (a night's appends touch one file)."""
    warm = _HOT.get(store.cache)
    if warm is not None and warm[0] == sha:
        return warm[1]
    files = store.trees.some(sha, store.files("archive/", sha))
    changed = store.trees.changes(warm[0], sha) if warm is not None else None
    index = (
        warm[1].updated(files, changed)
        if warm is not None and changed is not None
        else SearchIndex.build(files, archive=True)
    )
    with _INDEXES_LOCK:
        _HOT[store.cache] = (sha, index)
    return index


_INDEXES: dict[Path, ColdIndex] = {}
_INDEXES_LOCK = threading.Lock()


def cold_index(store: Store) -> ColdIndex:
    """The store's cold index (one per cache path in this process)."""
    path = store.cache.with_suffix(".cold.sqlite")
    with _INDEXES_LOCK:
        found = _INDEXES.get(path)
        if found is None or found.cold.store is not store:
            found = _INDEXES[path] = ColdIndex(ColdStore(store), path)
        return found


class ColdIndex:
    """FTS5 rows of every cold month, kept to the cold ref's tip."""

    def __init__(self, cold: ColdStore, path: Path) -> None:
        self.cold, self.path = cold, path
        self._lock = threading.Lock()
        self.db = sqlite3.connect(str(path), check_same_thread=False, timeout=60)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.executescript(_SCHEMA)

    def sync(self) -> int:
        """Bring the rows to the cold tip (fetched at most every `max_age` seconds); the
        number of months read again."""
        tip = self.cold.fetch(max_age=self.cold.store.max_age)
        wanted = self.cold.months(tip)
        # the tombstones forgotten.md shed (decision 19), as "forgotten/<month>"
        stones = self.cold.folder(tip, FORGOTTEN, ".md")
        wanted |= {f"{FORGOTTEN}/{m}": b for m, b in stones.items()}
        with self._lock, immediate(self.db):
            have = dict(self.db.execute("SELECT month, blob FROM months").fetchall())
            changed = [m for m, b in wanted.items() if have.get(m) != b]
            for month in [*changed, *(m for m in have if m not in wanted)]:
                low = _number(month) * LINES_PER_MONTH
                self.db.execute(
                    "DELETE FROM episodes WHERE rowid BETWEEN ? AND ?",
                    (low, low + LINES_PER_MONTH - 1),
                )
                self.db.execute("DELETE FROM months WHERE month = ?", (month,))
            for month in changed:
                self._insert(month, wanted[month])
        return len(changed)

    def _insert(self, month: str, blob: str) -> None:
        low = _number(month) * LINES_PER_MONTH
        if month.startswith(f"{FORGOTTEN}/"):  # markdown: each record at its line in the file
            lines = enumerate(textlines.split(self.cold.text(blob)), 1)
            rows = ((low + n, line) for n, line in lines if line.startswith(("-", "*", "+")))
        else:
            rows = ((low + n, line) for n, line in enumerate(self.cold.lines(blob), 1))
        self.db.executemany("INSERT INTO episodes(rowid, text) VALUES (?, ?)", rows)
        self.db.execute("INSERT INTO months(month, blob) VALUES (?, ?)", (month, blob))

    def search(self, query: str, limit: int, *, all_words: bool = False) -> list[Hit]:
        self.sync()
        words = list(dict.fromkeys(w.lower() for w in _WORD.findall(query)))
        if not words or limit <= 0:
            return []
        joiner = " AND " if all_words else " OR "
        match = joiner.join(f'"{w}"' if all_words else f'"{w}"*' for w in words)
        with self._lock:
            rows = self.db.execute(
                "SELECT rowid, text, bm25(episodes) FROM episodes WHERE episodes MATCH ? "
                "ORDER BY bm25(episodes) LIMIT ?",
                (match, limit),
            ).fetchall()
        return [_hit(rowid, text, -score) for rowid, text, score in rows]

    def count(self) -> int:
        with self._lock:
            (n,) = self.db.execute("SELECT count(*) FROM episodes").fetchone()
        return int(n)


def _number(month: str) -> int:
    """The month's number (its rows are a range of rowids); a tombstone month is past them all."""
    stones = month.startswith(f"{FORGOTTEN}/")
    year, mon = month.removeprefix(f"{FORGOTTEN}/").split("-")
    return int(year) * 12 + int(mon) - 1 + (STONES if stones else 0)


def _hit(rowid: int, text: str, score: float) -> Hit:
    number, line = divmod(rowid, LINES_PER_MONTH)
    year, mon = divmod(number % STONES, 12)
    month = f"{year:04d}-{mon + 1:02d}"
    where = f"{FORGOTTEN}/{month}.md" if number >= STONES else month_path(month)
    return Hit(f"{COLD_REF}:{where}", line, text, {}, round(score, 3), entry=False)
