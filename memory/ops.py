"""Entry-level operations and their pure application to a tree.

A write is a list of operations applied to the newest tip. `apply_ops` reads files through a
callable and returns the new contents; it refuses secrets, tombstoned facts, protected paths,
paths that collide with a file or folder, text lint would reject, control characters, oversized
files and operations whose target is gone, and never guesses. `check_op` is the part of those
rules that needs no tree: the write path runs it before a request joins a group commit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from memory import format as fmt
from memory import tombstones, validate, version
from memory.errors import (
    AppendOnly,
    EntryConflict,
    InvalidMetadata,
    InvalidPath,
    InvalidText,
    MemoryStoreError,
    PathConflict,
    ProtectedPath,
    TargetGone,
)
from memory.lint import entry_problems as lint_entry

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
class AddTombstone(AddEntry):
    """Record in forgotten.md that an entry was removed on purpose: the only operation a door
    other than dreaming may apply to forgotten.md (forget and MCP deleteMemory build it; an
    agent's or a console's edit of forgotten.md is refused)."""


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
    try:
        validate.text("the path", path, one_line=True, path=path)
    except InvalidText:
        raise InvalidPath(path, "control characters and broken Unicode are not allowed") from None
    if len(path) > 1024:
        raise InvalidPath(path, "longer than 1,024 characters")
    return path


def check_op(op: Operation, *, dreamer: bool = False, restoring: bool = False) -> None:
    """The rules for one operation that need no tree: paths, protected files, and every text
    that becomes part of a file (Unicode, control characters, secrets, metadata, size).
    `restoring`: hippo's own revert puts back earlier text, so forgotten.md may change (undoing
    a forget) and lint's metadata rules are not applied again to what history held."""
    internal = dreamer or restoring
    for p in paths_of(op):
        check_path(p)
        if (p == ".dream" or p.startswith(".dream/")) and not dreamer:
            raise ProtectedPath(p)
        if p == tombstones.PATH and not internal and type(op) is not AddTombstone:
            raise ProtectedPath(
                p,
                "forgotten.md keeps what was removed on purpose: only forget (and dreaming) "
                "change it. To bring a fact back, save it again with force",
            )
    if isinstance(op, AddTombstone) and op.path != tombstones.PATH:
        raise InvalidPath(op.path, f"tombstones are kept in {tombstones.PATH}")
    if isinstance(op, AddEntry | ReplaceEntry):
        validate.entry(op.text, op.meta, path=op.path)
        if isinstance(op, AddEntry) and not internal:
            validate.lint_rules(op.text, op.meta, path=op.path)
    if isinstance(op, AddEntry) and op.title is not None:
        validate.text(f"the title of {op.path}", op.title, one_line=True, path=op.path)
        if len(op.title) > validate.MAX_NAME_CHARS:
            raise InvalidText(
                f"the title of {op.path}", f"is over {validate.MAX_NAME_CHARS} characters"
            )
    elif isinstance(op, ReplaceEntry):
        validate.unicode(f"the entry to replace in {op.path}", op.match)
    elif isinstance(op, RemoveEntry):
        validate.unicode(f"the entry to remove from {op.path}", op.match)
    elif isinstance(op, AppendLine):
        validate.text(f"a line for {op.path}", op.line.rstrip("\r\n"), one_line=True, path=op.path)
        validate.size(f"a line for {op.path}", op.line)
    elif isinstance(op, WriteFile):
        validate.size(op.path, op.content)
        validate.text(op.path, op.content, path=op.path)


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
        self._index.setdefault(_key(entry.text), []).append(entry)

    def find(self, path: str, match: str) -> fmt.Entry:
        for entry in self.index().get(_key(match), []):
            return entry
        raise EntryConflict(
            f"no entry in {path} reads {match!r} any more: another writer changed or removed "
            "it; read the file again and retry",
            path,
        )

    def has(self, text: str) -> bool:
        if self._index is None and not _might_contain(self.text(), text):
            return False  # skip parsing the whole file for a fact that cannot be there
        return bool(self.index().get(_key(text)))

    def _drop(self, entry: fmt.Entry) -> None:
        bucket = self.index()[_key(entry.text)]
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
    folder: Callable[[str], bool] | None = None,
    restoring: bool = False,
) -> Applied:
    """Apply `ops` in order on the tree `read` gives; raise a named error for any refusal.
    With `on_refused`, a refused operation is reported there and skipped instead (every check
    runs before an operation changes anything, so a skipped one leaves no trace). `folder`
    tells whether a path is a folder of that tree (so no file is written where one is)."""
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

    def collide(path: str) -> None:
        """PathConflict when a new file at `path` would sit under a file (git would drop that
        file to make room for the folder) or where a folder is (git would keep the folder)."""
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if current(parent) is not None:
                raise PathConflict(
                    path, f"{parent} is a file, and a path under it would delete that file"
                )
        if current(path) is None:
            inside = path + "/"
            if any(d is not None and p.startswith(inside) for p, d in docs.items()) or (
                folder is not None and folder(path)
            ):
                raise PathConflict(path, f"{path} is a folder; write a file inside it")

    def _apply_one(op: Operation) -> None:
        check_op(op, dreamer=dreamer, restoring=restoring)
        if isinstance(op, AddEntry | AppendLine | WriteFile):
            collide(op.path)
        elif isinstance(op, MoveFile):
            collide(op.dst)
        _check_append_only(op, current)
        if not force:
            _check_tombstones(op, current, forgotten)
        if isinstance(op, WriteFile) and not (dreamer or restoring):
            _check_new_entries(op, current(op.path))
        if isinstance(op, AddEntry):
            if current(op.path) is None:
                head = f"# {' '.join(op.title.split())}\n\n" if op.title else ""
                docs[op.path] = _Doc(head)
            doc = doc_of(op.path)
            # The same fact already there: two adds of one fact make one entry.
            if not (fmt.normalise(op.text) and doc.has(op.text)):
                line = fmt.render_entry(op.text, op.meta)
                validate.size(op.path, doc.text(), line)
                doc.append(line)
        elif isinstance(op, ReplaceEntry):
            doc = doc_of(op.path)
            entry = doc.find(op.path, op.match)
            if not (dreamer or restoring):
                _check_new_meta(op, entry)
            doc.replace(entry, fmt.render_entry(op.text, op.meta, indent=entry.indent))
        elif isinstance(op, RemoveEntry):
            doc = doc_of(op.path)
            entry = doc.find(op.path, op.match)
            out.removed.append((op.path, entry))
            doc.remove(entry)
        elif isinstance(op, AppendLine):
            if current(op.path) is None:
                docs[op.path] = _Doc("")
            doc = doc_of(op.path)
            validate.size(op.path, doc.text(), op.line)
            doc.append(op.line.rstrip("\r\n"), indexed=False)
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


def _key(text: str) -> str:
    """An entry's index key (an entry with no words is found by its exact text only)."""
    return fmt.fact_key(text)


def _existing(current: Reader, path: str) -> str:
    text = current(path)
    if text is None:
        raise TargetGone(f"{path} does not exist (moved or deleted by another writer?)", path)
    return text


def _check_new_meta(op: ReplaceEntry, old: fmt.Entry) -> None:
    """Lint's metadata rules on what this edit brings in (an old entry's own problems, already
    in the file, do not block an edit of its text)."""
    before = set(lint_entry(old.text, old.meta))
    for code, message in lint_entry(op.text, op.meta):
        if (code, message) not in before:
            raise InvalidMetadata(message, op.path)


def _check_new_entries(op: WriteFile, before: str | None) -> None:
    """Lint's metadata rules on the entries a whole-file write adds or changes."""
    old = {(e.text, e.meta) for e in fmt.parse(before or "").entries}
    for e in fmt.parse(op.content).entries:
        if (e.text, e.meta) not in old:
            problems = lint_entry(e.text, e.meta)
            if problems:
                raise InvalidMetadata(f"line {e.line + 1}: {problems[0][1]}", op.path)


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
    if haystack.isascii():
        # Folding ASCII only lowers it, so a word missing from the lowered file is missing from
        # its words. (A file with other scripts may fold a look-alike into the word: no shortcut.)
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
    # Folding ASCII only lowers it; a file with other scripts is folded first (a look-alike
    # letter folds into another word), so the shortcut never hides a tombstone.
    lowered = haystack.lower() if haystack.isascii() else fmt.words(haystack)
    return any(w in lowered for w in set(fmt.normalise(text).split()))
