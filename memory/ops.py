"""Entry-level operations and their pure application to a tree.

A write is a list of operations applied to the newest tip. `apply_ops` reads files through a
callable and returns the new contents; it refuses secrets, tombstoned facts, protected paths and
operations whose target is gone, and never guesses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memory import format as fmt
from memory import secrets, tombstones
from memory.errors import (
    EntryConflict,
    InvalidPath,
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


def apply_ops(
    ops: Sequence[Operation],
    read: Reader,
    *,
    dreamer: bool = False,
    force: bool = False,
) -> Applied:
    """Apply `ops` in order on the tree `read` gives; raise a named error for any refusal."""
    out = Applied()

    def current(path: str) -> str | None:
        return out.changes[path] if path in out.changes else read(path)

    for op in ops:
        for p in paths_of(op):
            check_path(p)
            if (p == ".dream" or p.startswith(".dream/")) and not dreamer:
                raise ProtectedPath(p)
        _scan(op)
        if not force:
            _check_tombstones(op, current)
        if isinstance(op, AddEntry):
            out.changes[op.path] = _add(current(op.path), op)
        elif isinstance(op, ReplaceEntry):
            text = _existing(current, op.path)
            line, _ = _find(text, op.path, op.match)
            new = fmt.render_entry(op.text, op.meta, indent=_indent(text, line))
            out.changes[op.path] = fmt.replace_line(text, line, new)
        elif isinstance(op, RemoveEntry):
            text = _existing(current, op.path)
            line, entry = _find(text, op.path, op.match)
            out.removed.append((op.path, entry))
            out.changes[op.path] = fmt.delete_line(text, line)
        elif isinstance(op, AppendLine):
            out.changes[op.path] = fmt.append_line(current(op.path) or "", op.line.rstrip("\r\n"))
        elif isinstance(op, WriteFile):
            out.changes[op.path] = op.content
        elif isinstance(op, MoveFile):
            text = _existing(current, op.src)
            if current(op.dst) is not None:
                raise TargetGone(f"cannot move {op.src} to {op.dst}: it exists", op.dst)
            out.changes[op.src] = None
            out.changes[op.dst] = text
        elif isinstance(op, DeleteFile):
            _existing(current, op.path)
            out.changes[op.path] = None
    return out


def _existing(current: Reader, path: str) -> str:
    text = current(path)
    if text is None:
        raise TargetGone(f"{path} does not exist (moved or deleted by another writer?)", path)
    return text


def _find(text: str, path: str, match: str) -> tuple[int, fmt.Entry]:
    want = fmt.normalise(match)
    for entry in fmt.parse(text).entries:
        if fmt.normalise(entry.text) == want:
            return entry.line, entry
    raise EntryConflict(
        f"no entry in {path} reads {match!r} any more: another writer changed or removed it; "
        "read the file again and retry",
        path,
    )


def _indent(text: str, line: int) -> int:
    entry = fmt.parse_entry(text.splitlines()[line], line)
    return entry.indent if entry else 0


def _add(text: str | None, op: AddEntry) -> str:
    line = fmt.render_entry(op.text, op.meta)
    if text is None:
        head = f"# {op.title}\n\n" if op.title else ""
        return head + line + "\n"
    want = fmt.normalise(op.text)
    if want and any(fmt.normalise(e.text) == want for e in fmt.parse(text).entries):
        return text  # the same fact is already there: two adds of one fact make one entry
    return fmt.append_line(text, line)


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


def _check_tombstones(op: Operation, current: Reader) -> None:
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
    stones = tombstones.load(current(tombstones.PATH))
    for t in texts:
        tombstones.check(t, stones)
