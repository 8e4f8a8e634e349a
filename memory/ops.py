"""Entry-level operations and their pure application to a tree.

A write is a list of operations applied to the newest tip. `apply_ops` reads files through a
callable and returns the new contents; it refuses secrets, tombstoned facts, protected paths and
operations whose target is gone, and never guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from memory import format as fmt
from memory import secrets, tombstones, version
from memory.errors import (
    AppendOnly,
    EntryConflict,
    InvalidPath,
    MemoryStoreError,
    ProtectedPath,
    SecretFound,
    TargetGone,
)

Meta = tuple[tuple[str, str], ...]
Reader = Callable[[str], str | None]


@dataclass(frozen=True)
class AddEntry:
    """Append one entry to `path` (created with `title` as its first line when missing)."""

    path: str
    text: str
    meta: Meta = ()
    title: str | None = None


@dataclass(frozen=True)
class ReplaceEntry:
    """Replace the entry whose text is `match` (compared normalised) with `text` and `meta`."""

    path: str
    match: str
    text: str
    meta: Meta = ()


@dataclass(frozen=True)
class RemoveEntry:
    """Remove the entry whose text is `match` (compared normalised)."""

    path: str
    match: str


@dataclass(frozen=True)
class AppendLine:
    """Append one raw line to an append-only file such as archive/YYYY-MM-DD.jsonl."""

    path: str
    line: str


@dataclass(frozen=True)
class WriteFile:
    path: str
    content: str


@dataclass(frozen=True)
class MoveFile:
    src: str
    dst: str


@dataclass(frozen=True)
class DeleteFile:
    path: str


Operation = AddEntry | ReplaceEntry | RemoveEntry | AppendLine | WriteFile | MoveFile | DeleteFile


@dataclass
class Applied:
    """The outcome of applying operations: new contents (None = deleted) and removed entries."""

    changes: dict[str, str | None] = field(default_factory=dict)
    removed: list[tuple[str, fmt.Entry]] = field(default_factory=list)


def check_path(path: str) -> str:
    """`path` if it is a safe relative path inside the repository, else InvalidPath."""
    if not path or not path.strip():
        raise InvalidPath(path, "empty")
    if path.startswith("/") or "\\" in path or (len(path) > 1 and path[1] == ":"):
        raise InvalidPath(path, "absolute paths are not allowed")
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise InvalidPath(path, "'..', '.' and empty segments are not allowed")
    if parts[0] == ".git" or ".git" in parts:
        raise InvalidPath(path, ".git is not part of the memory")
    if "\x00" in path or "\n" in path:
        raise InvalidPath(path, "control characters are not allowed")
    return path


def paths_of(op: Operation) -> list[str]:
    if isinstance(op, MoveFile):
        return [op.src, op.dst]
    return [op.path]


class _Doc:
    """One file being edited by a batch of operations. Removed lines become holes (None), so
    line numbers stay stable, and an index of entries by normalised text is kept up to date:
    each operation costs O(1) after the first parse instead of a parse of the whole file."""

    def __init__(self, text: str) -> None:
        self.lines: list[str | None] = list(text.splitlines(keepends=True))
        self._index: dict[str, list[fmt.Entry]] | None = None
        self._text: str | None = text

    def text(self) -> str:
        if self._text is None:
            self._text = "".join(x for x in self.lines if x is not None)
        return self._text

    def index(self) -> dict[str, list[fmt.Entry]]:
        if self._index is None:
            self._index = {}
            alive = [i for i, x in enumerate(self.lines) if x is not None]
            for e in fmt.parse(self.text()).entries:
                self._add_to_index(replace(e, line=alive[e.line]))
        return self._index

    def _add_to_index(self, entry: fmt.Entry) -> None:
        assert self._index is not None
        self._index.setdefault(fmt.normalise(entry.text), []).append(entry)

    def find(self, path: str, match: str) -> fmt.Entry:
        for entry in self.index().get(fmt.normalise(match), []):
            return entry
        raise EntryConflict(
            f"no entry in {path} reads {match!r} any more: another writer changed or removed "
            "it; read the file again and retry",
            path,
        )

    def has(self, text: str) -> bool:
        if self._index is None and not _might_contain(self.text(), text):
            return False  # skip parsing the whole file for a fact that cannot be there
        return bool(self.index().get(fmt.normalise(text)))

    def _drop(self, entry: fmt.Entry) -> None:
        bucket = self.index()[fmt.normalise(entry.text)]
        bucket.remove(entry)

    def remove(self, entry: fmt.Entry) -> None:
        self._drop(entry)
        self.lines[entry.line] = None
        self._text = None

    def replace(self, entry: fmt.Entry, new_line: str) -> None:
        self._drop(entry)
        self._text = None
        old = self.lines[entry.line] or ""
        self.lines[entry.line] = new_line + old[len(old.rstrip("\r\n")) :]
        parsed = fmt.parse_entry(new_line, entry.line)
        if parsed is not None:
            self._add_to_index(parsed)

    def append(self, new_line: str, *, indexed: bool = True) -> None:
        if self._text is not None:
            sep = "" if not self._text or self._text.endswith("\n") else "\n"
            self._text = self._text + sep + new_line + "\n"
        at = next((i for i in range(len(self.lines) - 1, -1, -1) if self.lines[i] is not None), -1)
        last = self.lines[at] if at >= 0 else None
        if last is not None and not last.endswith("\n"):
            self.lines[at] = last + "\n"
        self.lines.append(new_line + "\n")
        if indexed and self._index is not None:
            parsed = fmt.parse_entry(new_line, len(self.lines) - 1)
            if parsed is not None:
                self._add_to_index(parsed)


def apply_ops(
    ops: Sequence[Operation],
    read: Reader,
    *,
    dreamer: bool = False,
    force: bool = False,
    on_refused: Callable[[Operation, MemoryStoreError], None] | None = None,
) -> Applied:
    """Apply `ops` in order on the tree `read` gives; raise a named error for any refusal.
    With `on_refused`, a refused operation is reported there and skipped instead (every check
    runs before an operation changes anything, so a skipped one leaves no trace)."""
    out = Applied()
    if ops:
        version.check(read(version.STATE))  # a newer hippo's memory: write nothing to it
    docs: dict[str, _Doc | None] = {}  # None: deleted by an earlier operation
    stones: list[tuple[str, list[tombstones.Tombstone]]] = []

    base: dict[str, str | None] = {}  # what the tree held before these operations, read once

    def current(path: str) -> str | None:
        if path in docs:
            doc = docs[path]
            return None if doc is None else doc.text()
        if path not in base:
            base[path] = read(path)
        return base[path]

    def doc_of(path: str) -> _Doc:
        doc = docs.get(path)
        if doc is None:
            doc = docs[path] = _Doc(_existing(current, path))
        return doc

    def forgotten() -> list[tombstones.Tombstone]:
        text = current(tombstones.PATH) or ""
        if not stones or stones[0][0] != text:
            stones[:] = [(text, tombstones.load(text))]
        return stones[0][1]

    def _apply_one(op: Operation) -> None:
        for p in paths_of(op):
            check_path(p)
            if (p == ".dream" or p.startswith(".dream/")) and not dreamer:
                raise ProtectedPath(p)
        _check_append_only(op, current)
        _scan(op)
        if not force:
            _check_tombstones(op, current, forgotten)
        if isinstance(op, AddEntry):
            if current(op.path) is None:
                head = f"# {op.title}\n\n" if op.title else ""
                docs[op.path] = _Doc(head)
            doc = doc_of(op.path)
            # The same fact already there: two adds of one fact make one entry.
            if not (fmt.normalise(op.text) and doc.has(op.text)):
                doc.append(fmt.render_entry(op.text, op.meta))
        elif isinstance(op, ReplaceEntry):
            doc = doc_of(op.path)
            entry = doc.find(op.path, op.match)
            doc.replace(entry, fmt.render_entry(op.text, op.meta, indent=entry.indent))
        elif isinstance(op, RemoveEntry):
            doc = doc_of(op.path)
            entry = doc.find(op.path, op.match)
            out.removed.append((op.path, entry))
            doc.remove(entry)
        elif isinstance(op, AppendLine):
            if current(op.path) is None:
                docs[op.path] = _Doc("")
            doc_of(op.path).append(op.line.rstrip("\r\n"), indexed=False)
        elif isinstance(op, WriteFile):
            docs[op.path] = _Doc(op.content)
        elif isinstance(op, MoveFile):
            text = _existing(current, op.src)
            if current(op.dst) is not None:
                raise TargetGone(f"cannot move {op.src} to {op.dst}: it exists", op.dst)
            docs[op.src] = None
            docs[op.dst] = _Doc(text)
        elif isinstance(op, DeleteFile):
            _existing(current, op.path)
            docs[op.path] = None

    for op in ops:
        try:
            _apply_one(op)
        except MemoryStoreError as exc:
            if on_refused is None:
                raise
            on_refused(op, exc)
    out.changes = {p: (None if d is None else d.text()) for p, d in docs.items()}
    return out


def _existing(current: Reader, path: str) -> str:
    text = current(path)
    if text is None:
        raise TargetGone(f"{path} does not exist (moved or deleted by another writer?)", path)
    return text


ARCHIVE = "archive/"


def _check_append_only(op: Operation, current: Reader) -> None:
    """archive/ takes appends only, through every door: AppendLine, or a WriteFile that creates
    a file or keeps every byte it had and adds lines after them."""
    if not any(p.startswith(ARCHIVE) for p in paths_of(op)):
        return
    if isinstance(op, AppendLine):
        return
    if isinstance(op, WriteFile):
        before = current(op.path)
        if before is None or (
            op.content.startswith(before) and before.endswith("\n" if before else "")
        ):
            return
    raise AppendOnly(next(p for p in paths_of(op) if p.startswith(ARCHIVE)))


def _scan(op: Operation) -> None:
    texts: list[str] = []
    if isinstance(op, AddEntry):
        texts = [op.text, *(v for _, v in op.meta), op.title or ""]
    elif isinstance(op, ReplaceEntry):
        texts = [op.text, *(v for _, v in op.meta)]
    elif isinstance(op, WriteFile):
        texts = [op.content]
    elif isinstance(op, AppendLine):
        texts = [op.line]
    for t in texts:
        hit = secrets.first(t)
        if hit is not None:
            raise SecretFound(hit, paths_of(op)[0])


def _check_tombstones(
    op: Operation, current: Reader, forgotten: Callable[[], list[tombstones.Tombstone]]
) -> None:
    if isinstance(op, AddEntry | ReplaceEntry):
        if op.path == tombstones.PATH:
            return  # writing the tombstone itself
        texts = [op.text]
        if isinstance(op, ReplaceEntry) and fmt.normalise(op.text) == fmt.normalise(op.match):
            return  # an edit of metadata on an existing entry re-adds nothing
    elif isinstance(op, WriteFile) and op.path != tombstones.PATH:
        before = current(op.path) or ""
        old = {fmt.normalise(e.text) for e in fmt.parse(before).entries}
        texts = [e.text for e in fmt.parse(op.content).entries if fmt.normalise(e.text) not in old]
    else:
        return
    stones: list[tombstones.Tombstone] | None = None
    haystack = current(tombstones.PATH) or ""
    for t in texts:
        if not _might_repeat(haystack, t):
            continue  # cheap: forgotten.md lacks this fact's longest word, so no tombstone
        stones = stones if stones is not None else forgotten()
        tombstones.check(t, stones)


def _might_contain(haystack: str, text: str) -> bool:
    """False only when the file `haystack` cannot hold an entry whose normalised text equals
    `text`'s: an entry's normalised words stand contiguously among the file's words."""
    phrase = fmt.normalise(text)
    if not phrase:
        return False
    lowered = haystack.lower()
    if not all(w in lowered for w in set(phrase.split())):
        return False  # a substring search per word is far cheaper than normalising the file
    return f" {phrase} " in f" {fmt.words(haystack)} "


def _might_repeat(haystack: str, text: str) -> bool:
    """False only when forgotten.md (`haystack`) cannot hold a tombstone that `text` repeats:
    one of the tombstone's words would have to be among `text`'s words, and the file holds
    none of them (a substring search per word is far cheaper than parsing the file)."""
    if not haystack:
        return False
    lowered = haystack.lower()
    return any(w in lowered for w in set(fmt.normalise(text).split()))
