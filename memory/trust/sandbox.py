"""A thread's working copy of the memory, and its edits turned into entry-level operations.

The agent edits plain files in a directory materialised from the store's tree; it holds no push
credentials. After a turn, hippo's code compares the directory with the tree it came from and
turns the differences into operations (a new line in a markdown file → AddEntry, a changed entry →
ReplaceEntry, a removed one → RemoveEntry, other files → WriteFile / DeleteFile), attributed to
the thread, checked against the newest tip one by one (secrets, tombstones, protected paths), and
written through `store.write` with the Slack event id as the idempotency key. The working copy is
kept until that write succeeds, so a failed turn loses nothing and pushes nothing half-done.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import memory.format.lines as textlines
import memory.trust.rules as trust
from memory import format as fmt
from memory.errors import InvalidPath, MemoryStoreError
from memory.trust.agent_gate import Gate, Landed
from memory.writes.apply import apply_ops
from memory.writes.operations import (
    AddEntry,
    AppendLine,
    DeleteFile,
    Operation,
    RemoveEntry,
    ReplaceEntry,
    WriteFile,
    check_path,
)

Meta = tuple[tuple[str, str], ...]
APPEND_ONLY = ("archive/",)


class SandboxStore(Protocol):
    def tree(self, commit: str | None = None) -> dict[str, bytes]: ...
    def head(self) -> str: ...
    def sync(self) -> str | None: ...
    def write(
        self,
        ops: Sequence[Operation],
        *,
        author: Any,
        message: str,
        key: str | None = None,
        source: str | None = None,
    ) -> Any: ...


@dataclass(frozen=True)
class Attribution:
    """Who an edit is for and where it came from: the thread's permalink, the asker, the day."""

    source: str
    by: str
    today: str

    def added(self, meta: Meta) -> Meta:
        """Metadata for a new entry: the agent's keys, the thread as a source, the day, `by`."""
        out = [(k, v) for k, v in meta if k.lower() != "by"]
        if self.source and self.source not in [v for k, v in out if k.lower() == "source"]:
            out.append(("source", self.source))
        if not any(k.lower() == "added" for k, _ in out):
            out.append(("added", self.today))
        out.append(("by", self.by))
        return tuple(out)

    def edited(self, meta: Meta) -> Meta:
        """Metadata for a changed entry: keep what is there, add the thread as a source."""
        out = list(meta)
        if self.source and self.source not in [v for k, v in out if k.lower() == "source"]:
            out.append(("source", self.source))
        return tuple(out)


@dataclass
class Plan:
    """The operations a working copy's changes become, and those refused with the reason."""

    ops: list[Operation] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    @property
    def paths(self) -> list[str]:
        seen: dict[str, None] = {}
        for op in self.ops:
            seen[getattr(op, "path", "")] = None
        return [p for p in seen if p]


class WorkingCopy:
    """A directory holding the files of one commit (`base`), edited by the agent."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self.root = self.folder / "tree"
        self._base_file = self.folder / "base"

    @property
    def exists(self) -> bool:
        return self._base_file.exists() and self.root.is_dir()

    @property
    def base(self) -> str:
        return self._base_file.read_text().strip()

    def create(self, tree: Mapping[str, bytes], commit: str) -> None:
        """Materialise `tree` (the files of `commit`) as plain files, replacing what was here."""
        self.discard()
        self.root.mkdir(parents=True)
        for path, data in tree.items():
            target = self.root / check_path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        self._base_file.write_text(commit + "\n")  # last: a half-made copy has no base

    def files(self) -> dict[str, bytes]:
        """Every regular file under the root as repository path → bytes (symlinks skipped)."""
        out: dict[str, bytes] = {}
        for p in sorted(self.root.rglob("*")):
            if p.is_file() and not p.is_symlink():
                out[p.relative_to(self.root).as_posix()] = p.read_bytes()
        return out

    def discard(self) -> None:
        if self.folder.exists():
            shutil.rmtree(self.folder)


def plan(base: Mapping[str, bytes], work: Mapping[str, bytes], who: Attribution) -> Plan:
    """Turn the differences between `base` and `work` into attributed operations."""
    out = Plan()
    for path in sorted(set(base) | set(work)):
        old, new = base.get(path), work.get(path)
        if old == new:
            continue
        try:
            check_path(path)
        except InvalidPath as exc:
            out.refused.append((path, str(exc)))
            continue
        # Written by people only (Slack instructions, the console, git): the agent may not change
        # its own instructions, whatever its tools let through (the write path refuses them too).
        if path.startswith(trust.PEOPLE_ONLY):
            out.refused.append(
                (
                    path,
                    "preferences, conventions and .hippo/ settings are written by people "
                    "(Slack, console, git)",
                )
            )
            continue
        if new is None:
            out.ops.append(DeleteFile(path))
            continue
        try:
            new_text = new.decode("utf-8")
            old_text = None if old is None else old.decode("utf-8")
        except UnicodeDecodeError:
            out.refused.append((path, "not UTF-8 text; memory holds text files only"))
            continue
        if path.startswith(APPEND_ONLY):
            _append_only(out, path, old_text or "", new_text)
        elif path.endswith(".md"):
            out.ops.extend(_markdown_ops(path, old_text, new_text, who))
        else:
            out.ops.append(WriteFile(path, new_text))
    return out


def _append_only(out: Plan, path: str, old: str, new: str) -> None:
    if not new.startswith(old):
        out.refused.append((path, "append-only file: lines may be added at the end, not changed"))
        return
    for line in textlines.split(new[len(old) :]):
        if line.strip():
            out.ops.append(AppendLine(path, line))


def _skeleton(doc: fmt.Document) -> list[str]:
    """The non-entry lines (headings, prose), blank lines ignored."""
    entry_lines = {e.line for e in doc.entries}
    return [ln.strip() for i, ln in enumerate(doc.lines) if i not in entry_lines and ln.strip()]


def _markdown_ops(path: str, old: str | None, new: str, who: Attribution) -> list[Operation]:
    if old is None:
        return [WriteFile(path, _attribute_new_entries("", new, who))]
    a, b = fmt.parse(old), fmt.parse(new)
    if _skeleton(a) != _skeleton(b):
        # The agent restructured the file (headings, prose): entry operations cannot say that.
        return [WriteFile(path, _attribute_new_entries(old, new, who))]
    ops: list[Operation] = []
    matcher = difflib.SequenceMatcher(
        a=[e.render() for e in a.entries], b=[e.render() for e in b.entries], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        olds, news = a.entries[i1:i2], b.entries[j1:j2]
        for o, n in zip(olds, news, strict=False):
            meta = who.added(n.meta) if _text_changed(o, n) else who.edited(n.meta)
            ops.append(ReplaceEntry(path, o.text, n.text, meta))
        ops.extend(RemoveEntry(path, o.text) for o in olds[len(news) :])
        ops.extend(AddEntry(path, n.text, who.added(n.meta)) for n in news[len(olds) :])
    return ops


def _text_changed(old: fmt.Entry, new: fmt.Entry) -> bool:
    return fmt.normalise(old.text) != fmt.normalise(new.text)


def _attribute_new_entries(old: str, new: str, who: Attribution) -> str:
    """`new` with each entry that is not in `old` carrying the thread's attribution."""
    known = {fmt.normalise(e.text) for e in fmt.parse(old).entries}
    text = new
    for e in fmt.parse(new).entries:
        if fmt.normalise(e.text) not in known:
            line = fmt.render_entry(e.text, who.added(e.meta), indent=e.indent, marker=e.marker)
            text = fmt.replace_line(text, e.line, line)
    return text


def check(
    ops: Sequence[Operation], read: Callable[[str], str | None], agent: trust.Agent | None = None
) -> Plan:
    """Keep the operations the tree `read` gives accepts, one by one; refuse the rest with why.
    One pass of the write path's own rules (one parse per file, an agent's trust rules
    included), refusals skipped."""
    out = Plan()
    refused: set[int] = set()

    def refuse(op: Operation, exc: MemoryStoreError) -> None:
        refused.add(id(op))
        out.refused.append((getattr(op, "path", ""), str(exc)))

    apply_ops(ops, read, on_refused=refuse, agent=agent)
    out.ops.extend(op for op in ops if id(op) not in refused)
    return out


@dataclass(frozen=True)
class Pushed:
    """What a working copy's write did: the commit (None when nothing changed) and refusals."""

    commit: str | None
    paths: tuple[str, ...]
    refused: tuple[tuple[str, str], ...]
    landed: tuple[Landed, ...] = ()  # the gate's verdicts on the agent's entries


def push(
    store: SandboxStore,
    copy: WorkingCopy,
    who: Attribution,
    *,
    author: Any,
    message: str,
    key: str,
    gate: Gate | None = None,
) -> Pushed:
    """Write the working copy's changes as one commit on the newest tip, then drop the copy.

    A MemoryStoreError from the write (remote down, lock timeout, a race) propagates and the
    copy stays on disk for the retry; refusals found beforehand are reported, never pushed.
    With a `gate` (an agent's edits) each entry passes memory.trust.agent_gate on the newest tip
    first."""
    base, work = store.tree(copy.base), copy.files()
    wanted = plan(base, work, who)
    store.sync()
    tip = store.tree()
    ops = wanted.ops
    if gate is not None:
        ops = gate.apply(ops, lambda p: _decoded(tip.get(p)))
    checked = check(ops, lambda p: _decoded(tip.get(p)), getattr(author, "agent", None))
    refused = tuple(wanted.refused + checked.refused)
    landed = tuple(gate.landed) if gate is not None else ()
    if not checked.ops:
        copy.discard()
        return Pushed(None, (), refused, landed)
    result = store.write(checked.ops, author=author, message=message, key=key, source=who.source)
    copy.discard()
    # with the paths hippo added for the agent (proposals.md: a person's entry it deleted)
    paths = tuple(dict.fromkeys([*checked.paths, *result.paths]))
    return Pushed(str(result.commit), paths, refused, landed)


def _decoded(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", errors="replace")
