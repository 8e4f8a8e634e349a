"""The vocabulary a ranked query is parsed against (memory/search/ranked.py), read from the FTS5
index (memory/search/fts.py): how many lines hold a stem, whether a path or title names it, the
words a partial word begins and the words one typo away. What was looked up is kept while the
index holds the same rows: the words of questions recur, and each lookup is a SQL statement."""

from __future__ import annotations

import sqlite3

from memory.search.bounds import MAX_TYPO
from memory.search.words import edits, term

MAX_KEPT = 100_000  # looked-up words kept per kind before starting again
_CHUNK = 500  # spellings per SQL statement (well under SQLite's limit on parameters)


class Vocabulary:
    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None
        self._rows: object = None
        self._df: dict[str, int] = {}
        self._named: dict[str, bool] = {}
        self._prefix: dict[bytes, list[bytes]] = {}
        self._near: dict[bytes, list[bytes]] = {}

    def use(self, db: sqlite3.Connection, rows: object) -> None:
        """Read from `db`, whose rows are `rows` (any value that changes when they do)."""
        self._db = db
        kept = (self._df, self._named, self._prefix, self._near)
        if rows != self._rows or any(len(k) > MAX_KEPT for k in kept):
            self._rows = rows
            for k in kept:
                k.clear()

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None, "use() first"
        return self._db

    def df(self, s: str) -> int:
        """Live lines holding stem `s`."""
        if s not in self._df:
            sql = "SELECT doc FROM vocab WHERE term = ? AND col = 'body'"
            row = self.db.execute(sql, (term(s),)).fetchone()
            self._df[s] = int(row[0]) if row else 0
        return self._df[s]

    def named(self, s: str) -> bool:
        """Whether some file's path or title holds stem `s`."""
        if s not in self._named:
            sql = "SELECT 1 FROM vocab WHERE term = ? AND col = 'ctx'"
            self._named[s] = self.db.execute(sql, (term(s),)).fetchone() is not None
        return self._named[s]

    def with_prefix(self, prefix: bytes) -> list[bytes]:
        """Live words of 3+ letters that start with `prefix` (and are longer), sorted."""
        if prefix not in self._prefix:
            sql = "SELECT word FROM words WHERE word > ? AND word < ? ORDER BY word"
            rows = self.db.execute(sql, (prefix, prefix + b"\xff"))
            self._prefix[prefix] = [w for (w,) in rows if len(w) >= 3 and w.isalpha()]
        return self._prefix[prefix]

    def near(self, word: bytes) -> list[bytes]:
        """Live words one edit from `word`, sorted (none for a word longer than MAX_TYPO: its
        spellings grow with the square of its length)."""
        if len(word) > MAX_TYPO:
            return []
        if word not in self._near:
            spellings = sorted(edits(word))
            out: list[bytes] = []
            for i in range(0, len(spellings), _CHUNK):
                chunk = spellings[i : i + _CHUNK]
                sql = f"SELECT word FROM words WHERE word IN ({', '.join('?' * len(chunk))})"
                out += [w for (w,) in self.db.execute(sql, chunk)]
            self._near[word] = sorted(out)
        return self._near[word]
