"""One file being edited by a batch of operations (memory/writes/apply.py:apply_ops)."""

from __future__ import annotations

from dataclasses import replace

import memory.format.lines as textlines
from memory import format as fmt
from memory.errors import EntryConflict


class EditedFile:
    """One file being edited by a batch of operations. Removed lines become holes (None), so
    line numbers stay stable, and an index of entries by normalised text is kept up to date:
    each operation costs O(1) after the first parse instead of a parse of the whole file."""

    def __init__(self, text: str, parsed: fmt.Document | None = None) -> None:
        """`parsed`: `text` already parsed (dreaming keeps each file's parse for the night), used
        for the index if it is built before any edit."""
        self.lines: list[str | None] = list(textlines.split_keep(text))
        self._index: dict[str, list[fmt.Entry]] | None = None
        self._joined: str | None = text
        self._probed = False
        self._parsed = parsed

    def text(self) -> str:
        if self._joined is None:
            self._joined = "".join(x for x in self.lines if x is not None)
        return self._joined

    def index(self) -> dict[str, list[fmt.Entry]]:
        if self._index is None:
            self._index = {}
            if self._parsed is not None:  # unedited: its lines are the parse's lines
                for e in self._parsed.entries:
                    self._add_to_index(e)
                return self._index
            alive = [i for i, x in enumerate(self.lines) if x is not None]
            for e in fmt.parse(self.text()).entries:
                self._add_to_index(replace(e, line=alive[e.line]))
        return self._index

    def _add_to_index(self, entry: fmt.Entry) -> None:
        assert self._index is not None
        self._index.setdefault(entry_key(entry.text), []).append(entry)

    def find(self, path: str, match: str) -> fmt.Entry:
        for entry in self.index().get(entry_key(match), []):
            return entry
        raise EntryConflict(
            f"no entry in {path} reads {match!r} any more: another writer changed or removed "
            "it; read the file again and retry",
            path,
        )

    def has(self, text: str) -> bool:
        # One probe skips parsing a file for a fact that cannot be there; a file asked again
        # (forgotten.md taking a night's tombstones one by one) is parsed once and indexed, not
        # searched whole for each fact.
        if self._index is None and not self._probed:
            self._probed = True
            if not might_contain(self.text(), text):
                return False
        return bool(self.index().get(entry_key(text)))

    def _drop(self, entry: fmt.Entry) -> None:
        bucket = self.index()[entry_key(entry.text)]
        bucket.remove(entry)

    def remove(self, entry: fmt.Entry) -> None:
        self._parsed = None
        self._drop(entry)
        self.lines[entry.line] = None
        self._joined = None

    def replace(self, entry: fmt.Entry, new_line: str) -> None:
        self._parsed = None
        self._drop(entry)
        self._joined = None
        old = self.lines[entry.line] or ""
        self.lines[entry.line] = new_line + old[len(old.rstrip("\r\n")) :]
        parsed = fmt.parse_entry(new_line, entry.line)
        if parsed is not None:
            self._add_to_index(parsed)

    def append(self, new_line: str, *, indexed: bool = True) -> None:
        self._parsed = None
        if self._joined is not None:
            sep = "" if not self._joined or self._joined.endswith("\n") else "\n"
            self._joined = self._joined + sep + new_line + "\n"
        at = next((i for i in range(len(self.lines) - 1, -1, -1) if self.lines[i] is not None), -1)
        last = self.lines[at] if at >= 0 else None
        if last is not None and not last.endswith("\n"):
            self.lines[at] = last + "\n"
        self.lines.append(new_line + "\n")
        if indexed and self._index is not None:
            parsed = fmt.parse_entry(new_line, len(self.lines) - 1)
            if parsed is not None:
                self._add_to_index(parsed)


def entry_key(text: str) -> str:
    """An entry's index key (an entry with no words is found by its exact text only)."""
    return fmt.fact_key(text)


def might_contain(haystack: str, text: str) -> bool:
    """False only when the file `haystack` cannot hold an entry whose normalised text equals
    `text`'s: an entry's normalised words stand contiguously among the file's words."""
    phrase = fmt.normalise(text)
    if not phrase:
        return False
    if haystack.isascii():
        # Folding ASCII only lowers it, so a word missing from the lowered file is missing from
        # its words. (A file with other scripts may fold a look-alike into the word: no shortcut.)
        lowered = haystack.lower()
        if not all(w in lowered for w in set(phrase.split())):
            return False  # a substring search per word is far cheaper than normalising the file
    return f" {phrase} " in f" {fmt.words(haystack)} "
