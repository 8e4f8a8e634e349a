"""The word index of one tree, for ranked search: which lines hold which word stems.

Words are runs of letters and digits of the folded text (`memory.search.folded`), stemmed with
the Snowball English stemmer so deploy, deploys and deployed are one word. Only the entry text
counts (a line's trailing metadata bracket is left out: every entry has a source URL and a
date, which say nothing about its subject). A file's path and title form its context: their
stems count, at a lower weight, for every line of the file.

Like the folded text, the index grows by layers rather than being rebuilt: a full build is the
base layer; each commit after it copies and grows the small delta layer (the files appended
since the base) and counts what the replaced files held, so document frequencies, lengths and
the vocabulary stay those of the live lines and a ranked query answers as a fresh build would.
A delta past MERGE_LINES lines (and a quarter of the base) is merged: one base again.
"""

from __future__ import annotations

import re
import threading
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import snowballstemmer

from memory.search.folded import FoldedText

# Letters and digits; a byte of a multi-byte UTF-8 character counts as a letter here, and such
# a run is split again by Unicode's word characters (`tokens`), so “quoted” words come apart.
_RUN = re.compile(rb"[a-z0-9\x80-\xff]+")
_UWORD = re.compile(r"[^\W_]+")
_STEMMER = snowballstemmer.stemmer("english")
_STEMS: dict[bytes, str] = {}
_EMPTY = array("i")
MERGE_LINES = 5000  # a delta layer past this many lines (and a quarter of the base) is merged
_STEMS_MAX = 500_000  # a long-lived process serving many workspaces: start again past this
_STEM_LOCK = threading.Lock()
_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,8}$")


def tokens(text: bytes) -> Iterator[bytes]:
    """The words of folded UTF-8 `text`, in order."""
    for run in _RUN.findall(text):
        if run.isascii():
            yield run
        else:
            for word in _UWORD.findall(run.decode("utf-8", "ignore")):
                yield word.encode()


def stem(token: bytes) -> str:
    """The word's stem (cached: a memory's vocabulary is small next to its text)."""
    found = _STEMS.get(token)
    if found is None:
        word = token.decode()
        if word.isalpha():
            found = _STEMMER.stemWord(word)
        elif word[-1:] == "s" and word[:-1].isdigit():
            found = word[:-1]  # 504s, 1990s: the number's plural
        else:
            found = word
        with _STEM_LOCK:
            if len(_STEMS) >= _STEMS_MAX:
                _STEMS.clear()
            _STEMS[token] = found
    return found


def line_words(blob: FoldedText, k: int, title: int) -> set[bytes]:
    """The words of line k's entry text (metadata left out); none for its file's heading
    (line `title`), whose words are context for every line of the file instead."""
    if k == title and not blob.bullet[k]:
        return set()
    start = blob.lines[k]
    return set(tokens(blob.data[start : start + blob.body[k]]))


def context_text(path: str, title: bytes) -> bytes:
    """A file's context words: its path without the extension, then its folded title."""
    return _SUFFIX.sub("", path).lower().encode() + b" " + title


@dataclass
class Layer:
    """The word index of some consecutive lines and files; never changed once built."""

    # Arrays, not lists: the garbage collector has nothing to walk in them (a list of a
    # million line numbers is a million visits on every full collection).
    postings: dict[str, array[int]] = field(default_factory=dict)  # stem -> lines, ascending
    ctx: dict[str, list[int]] = field(default_factory=dict)  # stem -> files, ascending
    words: dict[bytes, int] = field(default_factory=dict)  # token -> lines holding it
    _sorted: list[bytes] | None = None

    def add(self, blob: FoldedText, files: Iterable[int], dl: list[int], offset: int = 0) -> None:
        """Index the lines and contexts of `files` (in line order); `dl[k - offset]` gets line
        k's number of distinct words."""
        postings, counts, cache = self.postings, Counter[bytes](), _STEMS
        data, at, body, bullet, firsts = blob.data, blob.lines, blob.body, blob.bullet, blob.firsts
        for f in files:
            title = blob.titles[f]
            for k in range(firsts[f], firsts[f + 1]):
                if k == title and not bullet[k]:
                    continue  # a heading's words are its file's context, for every line
                text = data[at[k] : at[k] + body[k]]
                seen = set(_RUN.findall(text) if text.isascii() else tokens(text))
                if not seen:
                    continue
                dl[k - offset] = len(seen)
                counts.update(seen)
                for s in {cache.get(t) or stem(t) for t in seen}:
                    found = postings.get(s)
                    if found is None:
                        postings[s] = array("i", (k,))
                    else:
                        found.append(k)
            context = context_text(blob.paths[f], blob.line(title))
            for s in {stem(t) for t in tokens(context)}:
                self.ctx.setdefault(s, []).append(f)
        for w, n in counts.items():
            self.words[w] = self.words.get(w, 0) + n

    def extended(self, blob: FoldedText, files: Iterable[int], dl: list[int], at: int) -> Layer:
        """A copy of this layer with `files` added (their posting lists copied, the rest
        shared): the older index keeps reading this one."""
        grown = Layer(dict(self.postings), dict(self.ctx), dict(self.words))
        fresh = Layer()
        fresh.add(blob, files, dl, at)
        for s, ks in fresh.postings.items():
            grown.postings[s] = grown.postings.get(s, _EMPTY) + ks
        for s, fs in fresh.ctx.items():
            grown.ctx[s] = grown.ctx.get(s, []) + fs
        for w, n in fresh.words.items():
            grown.words[w] = grown.words.get(w, 0) + n
        return grown

    def sorted_words(self) -> list[bytes]:
        """The layer's alphabetic words of 3+ letters, sorted (for prefixes), built once."""
        if self._sorted is None:
            self._sorted = sorted(w for w in self.words if len(w) >= 3 and w.isalpha())
        return self._sorted


class WordIndex:
    """The word index of one version of a `FoldedText`: a base layer, a delta layer of what
    later commits appended, and the counts of what dead (replaced or removed) files held."""

    def __init__(
        self,
        blob: FoldedText,
        base: Layer,
        delta: Layer,
        dl: list[int],
        dead_df: dict[str, int],
        dead_words: dict[bytes, int],
        dead_ctx: frozenset[int],
        docs: int,
        total: int,
    ) -> None:
        self.blob, self.base, self.delta, self.dl = blob, base, delta, dl
        self.dead_df, self.dead_words = dead_df, dead_words
        self.dead = dead_ctx  # dead files (their lines stay in the postings, skipped at ranking)
        self.base_lines = 0  # lines of the blob the base layer was built from
        self.docs, self.total = docs, total  # live lines holding a word; their words
        self.avgdl = total / docs if docs else 1.0

    @classmethod
    def build(cls, blob: FoldedText) -> WordIndex:
        base, dl = Layer(), [0] * blob.size_lines
        base.add(blob, sorted(blob.live.values(), key=blob.firsts.__getitem__), dl)
        docs = sum(1 for n in dl if n)
        dead = frozenset(blob.dead)
        index = cls(blob, base, Layer(), dl, {}, {}, dead, docs, sum(dl))
        index.base_lines = blob.size_lines
        return index

    def updated(self, blob: FoldedText, gone: Iterable[int]) -> WordIndex:
        """The index of `blob`, which grew from this index's blob: the `gone` files died and
        files were appended. The base layer is shared; the delta layer is copied and grown."""
        old = self.blob
        if blob.size_lines - self.base_lines > max(MERGE_LINES, self.base_lines // 4):
            return WordIndex.build(blob)  # the delta outgrew its use: one base again
        new = [0] * (blob.size_lines - old.size_lines)
        files = range(len(old.paths), len(blob.paths))
        delta = self.delta.extended(blob, files, new, old.size_lines)
        dl = _grown(self.dl, old.size_lines, new)
        dead_df, dead_words = dict(self.dead_df), dict(self.dead_words)
        docs, total = self.docs + sum(1 for n in new if n), self.total + sum(new)
        for f in gone:
            for k in range(old.firsts[f], old.firsts[f + 1]):
                docs, total = docs - (dl[k] > 0), total - dl[k]
                seen = line_words(old, k, old.titles[f])
                for t in seen:
                    dead_words[t] = dead_words.get(t, 0) + 1
                for s in {stem(t) for t in seen}:
                    dead_df[s] = dead_df.get(s, 0) + 1
        dead = frozenset(blob.dead)
        index = WordIndex(blob, self.base, delta, dl, dead_df, dead_words, dead, docs, total)
        index.base_lines = self.base_lines
        return index

    def lines(self, s: str) -> Iterator[array[int]]:
        """The posting lists of stem `s` (dead lines included)."""
        for layer in (self.base, self.delta):
            found = layer.postings.get(s)
            if found:
                yield found

    def df(self, s: str) -> int:
        """Live lines holding stem `s`."""
        n = sum(len(p) for p in self.lines(s))
        return n - self.dead_df.get(s, 0)

    def ctx_files(self, s: str) -> set[int]:
        """Live files whose path or title holds stem `s`."""
        out: set[int] = set()
        for layer in (self.base, self.delta):
            out.update(layer.ctx.get(s, ()))
        return out - self.dead

    def known(self, word: bytes) -> bool:
        """Whether `word` occurs in some live line."""
        n = self.base.words.get(word, 0) + self.delta.words.get(word, 0)
        return n - self.dead_words.get(word, 0) > 0

    def with_prefix(self, prefix: bytes) -> list[bytes]:
        """Live words that start with `prefix` (and are longer), sorted."""
        out: set[bytes] = set()
        for layer in (self.base, self.delta):
            words = layer.sorted_words()
            i = bisect_left(words, prefix)
            while i < len(words) and words[i].startswith(prefix):
                if words[i] != prefix:
                    out.add(words[i])
                i += 1
        return sorted(w for w in out if self.known(w))

    def near(self, word: bytes) -> list[bytes]:
        """Live words one edit from `word` (a letter changed, added or dropped, or two
        neighbours swapped), sorted: each such spelling looked up, a few hundred lookups."""
        out = set()
        for i in range(len(word) + 1):
            head, tail = word[:i], word[i:]
            if tail:
                out.add(head + tail[1:])
            if len(tail) > 1:
                out.add(head + tail[1:2] + tail[:1] + tail[2:])
            for c in _LETTERS:
                out.add(head + c + tail)
                if tail:
                    out.add(head + c + tail[1:])
        out.discard(word)
        seen = (out & self.base.words.keys()) | (out & self.delta.words.keys())
        return sorted(w for w in seen if self.known(w))


_LETTERS = [bytes([c]) for c in b"abcdefghijklmnopqrstuvwxyz0123456789"]


_GROW = threading.Lock()


def _grown(dl: list[int], size: int, fresh: list[int]) -> list[int]:
    """The first `size` of `dl` then `fresh`: appended in place when no other index grew from
    `dl` yet (an older index reads only its own lines), else on a copy."""
    with _GROW:
        if len(dl) == size:
            dl.extend(fresh)
            return dl
    return dl[:size] + fresh
