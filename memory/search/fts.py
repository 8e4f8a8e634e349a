"""The ranked search's index: SQLite FTS5 (standard library) over the lines of one tree, on disk
beside the store's cache (one file per workspace, shared by its processes) or in memory.

Chosen by measurement over the hand-written word index it replaced (bench/recall.py; the
figures are in memory/README.md): FTS5 searched as fast, an on-disk index keeps the process
flat as the memory grows and answers a cold start without reading the tree, and SQLite gives
transactions and readers beside one writer for free. tantivy was faster still but is a new
native dependency with a commit-and-reload per write.

Each row is a line: its stems (`body`, one FTS5 term each, see `words.term`) and its file's
path and title stems (`ctx`), with what ranking and the hit need. FTS5's own BM25 picks the
CANDIDATES best lines for the query's stems (every line, when few match); ranked.py scores
them exactly (binary term frequency, prefix and typo weights, priors, the words-side-by-side
bonus), so the ranking is ours and deterministic. A commit deletes the rows of the files it
changed and inserts their new lines, in one transaction; the commit the rows hold is recorded
with them.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from memory.search.folded import FoldedText
from memory.search.fts_file import immediate, open_index
from memory.search.hit import Hit, hit
from memory.search.priors import ARCHIVE, ENTRY_BONUS, priors
from memory.search.ranked import Line, Ranked, best, idf, parse
from memory.search.vocabulary import Vocabulary
from memory.search.words import context_text, index_terms, line_words, stem, term, tokens

ALL_MATCHES = 500  # a query matching at most this many lines has them all scored exactly
CANDIDATES = 200  # else FTS5's BM25 picks this many for the exact scoring (the most returned)
RARE = 0.02  # ... among the lines holding a word at most this share of lines hold, if enough
# A diff past this many files (and an eighth of them) rebuilds: a file's rows cost about 5 times
# as much to replace as to build afresh (after a dream changed 2,013 of 10,106 files, applying
# the diff took 1.8 s of CPU, a rebuild with its tree read 1.9 s), so an applied diff of an
# eighth stays well under a rebuild's cost.
REBUILD_FILES = 256
REBUILD_SHARE = 8
BATCH_BYTES = 4 << 20  # text folded and inserted at once by a build (its memory is this, not all)

_ROW = "INSERT INTO lines(rowid, body, ctx, path, line, text, folded, prior, dl, entry)"
_ROW += " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

Tree = Mapping[str, bytes]
# rowid, body, ctx, path, line, text, folded, prior, dl, entry
Row = tuple[int, str, str, str, int, str, bytes, float, int, bool]


class FtsIndex:
    """The FTS5 index of one tree: `path` on disk, or None for one in memory. Thread-safe; on
    disk, several processes share it (WAL: readers go on while one process writes)."""

    def __init__(self, path: Path | None = None, *, batch_bytes: int = BATCH_BYTES) -> None:
        self.path = path
        self.batch_bytes = batch_bytes  # text a build folds and inserts at once
        self._lock = threading.RLock()
        self.db = self._connect()
        self.vocabulary = Vocabulary()

    def _connect(self) -> sqlite3.Connection:
        """Open (and if need be create) the index; a file that is not one is made again."""
        try:
            return open_index(self.path)
        except sqlite3.DatabaseError:
            self._remove()
            return open_index(self.path)

    def _remove(self) -> None:
        if self.path is not None:
            for suffix in ("", "-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    @property
    def commit(self) -> str | None:
        """The commit whose tree the rows hold (None: none yet)."""
        with self._lock:
            return self._meta("commit")

    def sync(
        self,
        commit: str,
        changes: Callable[[str], list[str] | None],
        read: Callable[[list[str] | None], Tree],
    ) -> None:
        """Bring the rows to `commit`: `changes(old)` names the paths changed since commit
        `old` (None: too far apart), `read(paths)` gives those files at `commit` (all, for
        None). A corrupt index is made again and filled from the whole tree."""
        try:
            self._sync(commit, changes, read)
        except sqlite3.DatabaseError:
            self.reset()
            self._sync(commit, changes, read)

    def answer(
        self,
        commit: str,
        changes: Callable[[str], list[str] | None],
        read: Callable[[list[str] | None], Tree],
        query: str,
        limit: int,
    ) -> list[Hit]:
        """`sync` to `commit`, then `search`: a file found damaged on the way (a page the
        sync did not read) is made again from the whole tree, and the search asked again."""
        try:
            self.sync(commit, changes, read)
            return self.search(query, limit)
        except sqlite3.DatabaseError:
            self.reset()
            self.sync(commit, changes, read)
            return self.search(query, limit)

    def reset(self) -> None:
        """Start again from an empty index (the file removed and made anew)."""
        with self._lock:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self._remove()
            self.db = open_index(self.path)

    def _sync(
        self,
        commit: str,
        changes: Callable[[str], list[str] | None],
        read: Callable[[list[str] | None], Tree],
    ) -> None:
        if self.commit == commit:
            return
        with self._lock, immediate(self.db):
            old = self._meta("commit")  # another process may have brought it here meanwhile
            if old == commit:
                return
            changed = None if old is None else changes(old)
            if changed is not None:
                mine = [p for p in dict.fromkeys(changed) if not p.startswith(ARCHIVE)]
                (n,) = self.db.execute("SELECT count(*) FROM files").fetchone()
                if len(mine) > max(REBUILD_FILES, n // REBUILD_SHARE):
                    changed = None
            if changed is None:
                self._clear()
                self._insert(_live(read(None)))
            else:
                for path in mine:
                    self._delete(path)
                self._insert(_live(read(mine)))
            self._set("commit", commit)

    def build(self, tree: Tree | FoldedText) -> FtsIndex:
        """Fill the index with every file of `tree` (or the live files of a folded text already
        built from one), replacing what it held."""
        with self._lock, immediate(self.db):
            self._clear()
            if isinstance(tree, FoldedText):
                self._insert_folded(tree)
            else:
                self._insert(tree)
        return self

    @contextlib.contextmanager
    def _read(self) -> Iterator[None]:
        """One read transaction: every statement of a search sees the same commit's rows,
        whatever another process writes meanwhile (WAL keeps the snapshot)."""
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def _clear(self) -> None:
        for table in ("lines", "files", "words"):
            self.db.execute(f"DELETE FROM {table}")
        for key in ("docs", "total", "next"):
            self._set(key, "0")

    def _delete(self, path: str) -> None:
        """Drop the rows of `path` and what its lines counted."""
        row = self.db.execute("SELECT lo, hi, words FROM files WHERE path = ?", (path,)).fetchone()
        if row is None:
            return
        lo, hi, words = row
        span = (lo, hi)
        dls = [
            n for (n,) in self.db.execute("SELECT dl FROM lines WHERE rowid BETWEEN ? AND ?", span)
        ]
        self.db.execute("DELETE FROM lines WHERE rowid BETWEEN ? AND ?", span)
        self.db.execute("DELETE FROM files WHERE path = ?", (path,))
        counts = Counter(words.split())
        less = [(n, w) for w, n in counts.items()]
        self.db.executemany("UPDATE words SET n = n - ? WHERE word = ?", less)
        self.db.executemany("DELETE FROM words WHERE word = ? AND n <= 0", [(w,) for w in counts])
        self._add("docs", -sum(1 for dl in dls if dl))
        self._add("total", -sum(dls))

    def _insert(self, tree: Tree) -> None:
        """Add the lines of every file of `tree` (none of them in the index yet), folded and
        inserted `batch_bytes` of text at a time in path order: the rows are those of one fold
        of the whole tree (every line's features are its file's own), but the per-line lists
        of a whole fold took 6 bytes per byte of text (730 MB at 100,000 files)."""
        batch: dict[str, bytes] = {}
        size = 0
        for path in sorted(tree):
            batch[path] = tree[path]
            size += len(batch[path])
            if size >= self.batch_bytes:
                self._insert_folded(FoldedText.build(batch))
                batch, size = {}, 0
        if batch:
            self._insert_folded(FoldedText.build(batch))

    def _insert_folded(self, blob: FoldedText) -> None:
        pri = priors(blob)
        at = int(self._meta("next") or 0)
        docs = total = 0
        counts: Counter[bytes] = Counter()
        for path, f in sorted(blob.live.items()):
            rows, words = _rows(blob, f, pri, at)
            if not rows:
                continue
            self.db.executemany(_ROW, rows)
            context = blob.ctx[blob.ctx_starts[f] : blob.ctx_starts[f + 1] - 1]
            self.db.execute(
                "INSERT INTO files VALUES (?, ?, ?, ?, ?)",
                (path, at, at + len(rows) - 1, context, b" ".join(words)),
            )
            at += len(rows)
            docs += sum(1 for r in rows if r[8])
            total += sum(r[8] for r in rows)
            counts.update(words)
        self.db.executemany(
            "INSERT INTO words VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET n = n + excluded.n",
            counts.items(),
        )
        self._set("next", str(at))
        self._add("docs", docs)
        self._add("total", total)

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def _add(self, key: str, n: int) -> None:
        self._set(key, str(int(self._meta(key) or 0) + n))

    def search(self, query: str, limit: int = 20) -> list[Hit]:
        """The best `limit` hits for `query` (memory/search/ranked.py). Never raises on any
        query text."""
        if limit <= 0:
            return []
        with self._lock, self._read():
            # What queries looked up is kept while the rows stay those of one commit.
            self.vocabulary.use(self.db, (self._meta("commit"), self._meta("next")))
            q = parse(query, self.vocabulary)
            match = _match(q)
            if match is None:
                return []
            docs = int(self._meta("docs") or 0)
            found = self._candidates(match, _match(q, self.vocabulary.df, docs * RARE))
            contexts = self._contexts({row[3] for row in found})
            avgdl = int(self._meta("total") or 0) / docs if docs else 1.0
            weights: dict[str, float] = {}

            def weight(s: str) -> float:
                if s not in weights:
                    weights[s] = idf(docs, self.vocabulary.df(s))
                return weights[s]

            rowids: dict[tuple[str, int], int] = {}
            lines = []
            for rowid, body, ctx, path, no, folded, prior, dl in found:
                rowids[path, no] = rowid
                terms = (f" {body} ", f" {ctx} ")
                lines.append(Line(path, no, *terms, folded, contexts[path], prior, dl))
            top = best(q, lines, weight, avgdl, limit)
            shown = self._shown([rowids[ln.path, ln.line] for _, ln in top])
        return [hit(ln.path, ln.line, *shown[rowids[ln.path, ln.line]], score) for score, ln in top]

    def _candidates(
        self, match: str, rare: str | None
    ) -> list[tuple[int, str, str, str, int, bytes, float, int]]:
        """The lines ranked.best scores: every match when there are at most ALL_MATCHES, else
        the CANDIDATES best by FTS5's own BM25, among the lines holding a rarer word (`rare`:
        `match` without the words of more than RARE of the lines) when there are that many.
        Which ones never depends on the limit asked, so any top k is the head of the longest
        ranking."""
        cols = "SELECT rowid, body, ctx, path, line, folded, prior, dl FROM lines"
        count = "SELECT count(*) FROM lines WHERE lines MATCH ?"
        (n,) = self.db.execute(count, (match,)).fetchone()
        if n <= ALL_MATCHES:
            return self.db.execute(f"{cols} WHERE lines MATCH ?", (match,)).fetchall()
        # FTS5 scores every line it ranks: a word on thousands of lines costs more than the
        # rest of the search, and a line holding only such words rarely makes the top.
        if rare is not None and rare != match:
            (m,) = self.db.execute(count, (rare,)).fetchone()
            match = rare if m >= CANDIDATES else match
        # The best rowids first, then their columns: selected with the ranking, every
        # matching row's columns would be read before the sort.
        sql = (
            f"{cols} WHERE rowid IN (SELECT rowid FROM lines WHERE lines MATCH ?"
            " ORDER BY bm25(lines, 1.0, 0.5) LIMIT ?)"
        )
        return self.db.execute(sql, (match, CANDIDATES)).fetchall()

    def _shown(self, rowids: list[int]) -> dict[int, tuple[str, bool]]:
        """The lines as written, and whether each is an entry: only for the hits."""
        sql = (
            f"SELECT rowid, text, entry FROM lines WHERE rowid IN ({', '.join('?' * len(rowids))})"
        )
        return {r: (text, bool(entry)) for r, text, entry in self.db.execute(sql, rowids)}

    def _contexts(self, paths: set[str]) -> dict[str, bytes]:
        """Each file's folded path and title (quoted phrases may match there)."""
        found = sorted(paths)
        sql = f"SELECT path, context FROM files WHERE path IN ({', '.join('?' * len(found))})"
        out = dict.fromkeys(found, b"")
        out.update(self.db.execute(sql, found).fetchall())
        return out


def _match(q: Ranked, df: Callable[[str], int] | None = None, most: float = 0.0) -> str | None:
    """The FTS5 query that finds every line the ranking can score: any stem of any word (with
    `df`, only those held by at most `most` lines), and each +word and the words of each
    phrase (ranked.best then checks phrases as written)."""
    quoted = [[f'"{term(s)}"' for s, _ in g.stems] for g in q.groups]
    parts = []
    some = [f'"{term(s)}"' for g in q.groups for s, _ in g.stems if df is None or df(s) <= most]
    anything = list(dict.fromkeys(some))
    if anything:
        parts.append("(" + " OR ".join(anything) + ")")
    for g, ts in zip(q.groups, quoted, strict=True):
        if g.required:
            if not ts:
                return None  # a +word no line holds: nothing can match
            parts.append("(" + " OR ".join(ts) + ")")
    for p in q.phrases:
        ts = [f'"{term(stem(t))}"' for t in dict.fromkeys(tokens(p))]
        if ts:
            parts.append("(" + " AND ".join(ts) + ")")
    return " AND ".join(parts) or None


def _rows(blob: FoldedText, f: int, pri: list[float], at: int) -> tuple[list[Row], list[bytes]]:
    """The rows of file f (numbered from `at`) and the words of its lines (once per line)."""
    path, title = blob.paths[f], blob.titles[f]
    ctx = " ".join(sorted(index_terms(tokens(context_text(path, blob.line(title))))))
    raw = blob.raws[f].split(b"\n")
    rows: list[Row] = []
    words: list[bytes] = []
    for k in range(blob.firsts[f], blob.firsts[f + 1]):
        seen = line_words(blob, k, title)
        if not seen and k != title:
            continue  # no words: nothing can find it (a file's title is found by its context)
        words += seen
        body = " ".join(sorted(index_terms(seen)))
        entry = blob.is_entry(k, f)
        prior = pri[k] - (ENTRY_BONUS if blob.bullet[k] and not entry else 0.0)
        no = blob.line_no(k, f)
        text = raw[no - 1].decode("utf-8").rstrip("\r")
        rows.append(
            (at + len(rows), body, ctx, path, no, text, blob.line(k), prior, len(seen), entry)
        )
    return rows, words


def _live(tree: Tree) -> dict[str, bytes]:
    """The files search reads by default: all but the archive."""
    return {p: b for p, b in tree.items() if not p.startswith(ARCHIVE)}
