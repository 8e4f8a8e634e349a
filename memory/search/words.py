"""Words as ranked search sees them: tokens of the folded text, their stems, a file's context
words, and the spellings one typo away.

Words are runs of letters and digits of the folded text (`memory.search.folded`), stemmed with
the Snowball English stemmer so deploy, deploys and deployed are one word. Only the entry text
counts (a line's trailing metadata bracket is left out: every entry has a source URL and a
date, which say nothing about its subject). A file's path and title form its context: their
stems count, at a lower weight, for every line of the file. The index of these words is SQLite
FTS5's (memory/search/fts.py).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator

import snowballstemmer

from memory.search.folded import FoldedText

# Letters and digits; a byte of a multi-byte UTF-8 character counts as a letter here, and such
# a run is split again by Unicode's word characters (`tokens`), so “quoted” words come apart.
_RUN = re.compile(rb"[a-z0-9\x80-\xff]+")
_UWORD = re.compile(r"[^\W_]+")
_STEMMER = snowballstemmer.stemmer("english")
_STEMS: dict[bytes, str] = {}
_TERMS: dict[bytes, str] = {}  # token -> its FTS5 term, see index_terms
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
    text = blob.data[start : start + blob.body[k]]
    return set(_RUN.findall(text) if text.isascii() else tokens(text))


def index_terms(words: Iterable[bytes]) -> set[str]:
    """`term(stem(w))` of each word: what an index build stores, a million lines at 100,000
    files, so each word's term is looked up once rather than stemmed and encoded each time."""
    get, out = _TERMS.get, set()
    for w in words:
        found = get(w)
        if found is None:
            found = term(stem(w))
            with _STEM_LOCK:
                if len(_TERMS) >= _STEMS_MAX:
                    _TERMS.clear()
                _TERMS[w] = found
        out.add(found)
    return out


def context_text(path: str, title: bytes) -> bytes:
    """A file's context words: its path without the extension, then its folded title."""
    return _SUFFIX.sub("", path).lower().encode() + b" " + title


def term(s: str) -> str:
    """Stem `s` as one FTS5 token (memory/search/fts.py): ASCII stems as they are, others as
    `_` and their UTF-8 in hex, so SQLite's tokenizer never splits or folds a stem differently
    from ours (a stem holds letters and digits only, never `_`)."""
    return s if s.isascii() else "_" + s.encode().hex()


def edits(word: bytes) -> set[bytes]:
    """Spellings one edit from `word`: a letter changed, added or dropped, or two neighbours
    swapped (a few hundred, each then looked up)."""
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
    return out


_LETTERS = [bytes([c]) for c in b"abcdefghijklmnopqrstuvwxyz0123456789"]
