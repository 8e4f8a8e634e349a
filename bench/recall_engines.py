"""The engines bench/recall.py compares, behind one small interface: build from a tree, search,
apply a one-file commit. Every engine indexes the same lines (the entry text without its
metadata bracket, with the file's path and title as a second, lighter field) and answers with
(path, line) pairs, best first.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from memory.search import FtsIndex

_META = re.compile(r"\s*\[[^\[\]]*\]\s*$")
_WORD = re.compile(r"[^\W_]+")


class Engine(Protocol):
    name: str

    def search(self, query: str, limit: int) -> list[tuple[str, int]]: ...

    def update(self, tree: Mapping[str, bytes], path: str) -> None: ...


def lines_of(tree: Mapping[str, bytes]) -> list[tuple[str, int, str, str]]:
    """(path, line number, entry text, path and title) for every non-blank line."""
    out = []
    for path, raw in sorted(tree.items()):
        text = raw.decode()
        rows = text.split("\n")
        title = next((r for r in rows if r.strip()), "")
        ctx = f"{path.rsplit('.', 1)[0]} {title}"
        for i, row in enumerate(rows):
            if row.strip():
                out.append((path, i + 1, _META.sub("", row), ctx))
    return out


def words(query: str) -> list[str]:
    return _WORD.findall(query.lower())


class Indexed:
    """An in-memory `SearchIndex` from git history (bench/baseline.py): the search before
    issue 25 (every word required), or issue 25's hand-written word index (ranked)."""

    def __init__(self, name: str, module: ModuleType, tree: Mapping[str, bytes]) -> None:
        self.name = name
        self.index = module.SearchIndex.build(dict(tree))
        if hasattr(self.index, "words"):
            self.index.words()  # the hand-written word index is built on first search

    def search(self, query: str, limit: int) -> list[tuple[str, int]]:
        return [(h.path, h.line) for h in self.index.search(query, limit)]

    def update(self, tree: Mapping[str, bytes], path: str) -> None:
        self.index = self.index.updated(tree, [path])


class Hippo:
    """What hippo runs now: memory.search.FtsIndex in a file (as the store keeps it beside its
    cache), brought to each commit by the paths it changed."""

    name = "hippo on FTS5 (chosen)"

    def __init__(self, tree: Mapping[str, bytes], path: Path) -> None:
        self.fts = FtsIndex(path)
        self.commit = 0
        self.fts.sync("0", lambda old: None, lambda paths: tree)

    def search(self, query: str, limit: int) -> list[tuple[str, int]]:
        return [(h.path, h.line) for h in self.fts.search(query, limit)]

    def update(self, tree: Mapping[str, bytes], path: str) -> None:
        self.commit += 1
        self.fts.sync(str(self.commit), lambda old: [path], lambda paths: {path: tree[path]})


class Fts5:
    """SQLite FTS5 (standard library): porter stemmer, bm25() over body and context (weight
    1 and 0.5), the query's words OR-ed, as basic-memory queries it; with `prefix`, each word
    also matches longer words it begins (FTS5's own `word*`)."""

    def __init__(self, tree: Mapping[str, bytes], *, prefix: bool = False) -> None:
        self.name = "sqlite fts5 bm25" + (" prefix" if prefix else "")
        self.prefix = "*" if prefix else ""
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(body, ctx, path UNINDEXED, line UNINDEXED,"
            " tokenize='porter unicode61')"
        )
        self.rows: dict[str, list[int]] = {}
        self._insert(lines_of(tree))

    def _insert(self, rows: list[tuple[str, int, str, str]]) -> None:
        cur = self.db.cursor()
        for path, line, body, ctx in rows:
            cur.execute("INSERT INTO docs VALUES (?, ?, ?, ?)", (body, ctx, path, line))
            self.rows.setdefault(path, []).append(int(cur.lastrowid or 0))
        self.db.commit()

    def search(self, query: str, limit: int) -> list[tuple[str, int]]:
        ws = words(query)
        if not ws:
            return []
        match = " OR ".join(f'"{w}"{self.prefix}' for w in dict.fromkeys(ws))
        sql = "SELECT path, line FROM docs WHERE docs MATCH ? ORDER BY bm25(docs, 1.0, 0.5) LIMIT ?"
        return [(p, int(n)) for p, n in self.db.execute(sql, (match, limit))]

    def update(self, tree: Mapping[str, bytes], path: str) -> None:
        for rowid in self.rows.pop(path, []):
            self.db.execute("DELETE FROM docs WHERE rowid = ?", (rowid,))
        self._insert(lines_of({path: tree[path]}) if path in tree else [])


class Tantivy:
    """tantivy (Rust, BM25): the en_stem tokenizer, body and context (boost 0.5), the query's
    words OR-ed; in RAM, one writer thread."""

    name = "tantivy bm25"

    def __init__(self, tree: Mapping[str, bytes]) -> None:
        import tantivy  # only the benchmark needs it

        self.tv = tantivy
        b = tantivy.SchemaBuilder()
        b.add_text_field("body", stored=False, tokenizer_name="en_stem")
        b.add_text_field("ctx", stored=False, tokenizer_name="en_stem")
        b.add_text_field("path", stored=True, tokenizer_name="raw")
        b.add_integer_field("line", stored=True)
        self.index = tantivy.Index(b.build())
        self.writer = self.index.writer(heap_size=50_000_000, num_threads=1)
        self._add(lines_of(tree))
        self.writer.commit()
        self.index.reload()

    def _add(self, rows: list[tuple[str, int, str, str]]) -> None:
        for path, line, body, ctx in rows:
            doc = self.tv.Document(body=body, ctx=ctx, path=path, line=line)
            self.writer.add_document(doc)

    def search(self, query: str, limit: int) -> list[tuple[str, int]]:
        ws = words(query)
        if not ws:
            return []
        q = self.index.parse_query(" ".join(ws), ["body", "ctx"], field_boosts={"ctx": 0.5})
        searcher = self.index.searcher()
        found = searcher.search(q, limit).hits
        out = []
        for _, addr in found:
            doc: Any = searcher.doc(addr)
            out.append((doc["path"][0], int(doc["line"][0])))
        return out

    def update(self, tree: Mapping[str, bytes], path: str) -> None:
        self.writer.delete_documents("path", path)
        self._add(lines_of({path: tree[path]}) if path in tree else [])
        self.writer.commit()
        self.index.reload()
