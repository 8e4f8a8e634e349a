"""Entry-level operations, and the rules for them that need no tree.

A write is a list of operations applied to the newest tip (memory/writes/apply.py:apply_ops).
`check_write` (its commit's strings, then `check_op` for each operation) is the part of the
rules that needs no tree: the write path runs it before a request joins a group commit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import memory.facts.tombstones as tombstones
import memory.writes.validate as validate
from memory import format as fmt
from memory.errors import InvalidPath, InvalidText, ProtectedPath

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


def check_write(
    ops: Sequence[Operation],
    *,
    message: str,
    key: str | None,
    trailers: Mapping[str, str],
    author_name: str,
    author_email: str,
    dreamer: bool = False,
) -> None:
    """A write's rules that need no tree: its commit's strings (message, idempotency key,
    trailers, author) and each operation's (`check_op`). Run before the write joins a group
    commit, so its bad text is its own error, never its neighbours'."""
    validate.commit(
        message=message,
        key=key,
        trailers=trailers,
        author_name=author_name,
        author_email=author_email,
    )
    for op in ops:
        check_op(op, dreamer=dreamer)


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
