"""The file of the ranked search's FTS5 index (memory/search/fts.py): its tables, the version
of their layout, and opening it so that two processes never both create it."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

VERSION = "1"  # the schema and tokenization: another version is rebuilt
_BUSY_MS = 30_000  # how long a process waits for another's write
_WAL_BYTES = 8 << 20

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE files(path TEXT PRIMARY KEY, lo INTEGER, hi INTEGER, context BLOB, words BLOB);
CREATE TABLE words(word BLOB PRIMARY KEY, n INTEGER) WITHOUT ROWID;
CREATE VIRTUAL TABLE lines USING fts5(body, ctx, path UNINDEXED, line UNINDEXED, text UNINDEXED,
    folded UNINDEXED, prior UNINDEXED, dl UNINDEXED, entry UNINDEXED,
    tokenize="unicode61 remove_diacritics 0 tokenchars '_'");
CREATE VIRTUAL TABLE vocab USING fts5vocab(lines, col);
"""


def open_index(path: Path | None) -> sqlite3.Connection:
    """A connection to the index at `path` (None: in memory), its tables made if missing or of
    another VERSION. Creating takes the write lock first, so two processes never both create."""
    target = ":memory:" if path is None else str(path)
    db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
    db.execute(f"PRAGMA busy_timeout = {_BUSY_MS}")
    if path is not None:
        db.execute("PRAGMA journal_mode = WAL")
        # A crash may lose the last commits' rows, never corrupt them: the index is rebuilt
        # from git anyway, so no fsync on every commit.
        db.execute("PRAGMA synchronous = NORMAL")
        # A full build is one transaction as large as the index (400 MB at 100,000 files): the
        # WAL is cut back to this once checkpointed, not kept that size while a process is open.
        db.execute(f"PRAGMA journal_size_limit = {_WAL_BYTES}")
    if version(db) == VERSION:
        return db
    db.execute("BEGIN IMMEDIATE")
    try:
        if version(db) != VERSION:
            for table in ("vocab", "lines", "words", "files", "meta"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("INSERT INTO meta VALUES ('version', ?)", (VERSION,))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return db


def version(db: sqlite3.Connection) -> str | None:
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return None if row is None else str(row[0])


@contextlib.contextmanager
def immediate(db: sqlite3.Connection) -> Iterator[None]:
    """One transaction, taken before reading what it changes (no other writer between)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
