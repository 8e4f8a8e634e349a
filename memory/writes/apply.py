"""The pure application of entry-level operations to a tree.

A write is a list of operations (memory/writes/operations.py) applied to the newest tip.
`apply_ops` reads files through a callable and returns the new contents; it refuses secrets,
tombstoned facts, protected paths, paths that collide with a file or folder, text lint would
reject, control characters, oversized files and operations whose target is gone, and never
guesses. The part of those rules that needs no tree (`check_op`, in operations.py) the write path
runs before a request joins a group commit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import memory.facts.tombstones as tombstones
import memory.format.version as version
import memory.trust.rules as trust
import memory.writes.validate as validate
from memory import format as fmt
from memory.errors import (
    AppendOnly,
    InvalidMetadata,
    MemoryStoreError,
    PathConflict,
    TargetGone,
)
from memory.format.lint import entry_problems as lint_entry
from memory.writes.edited_file import EditedFile
from memory.writes.operations import (
    AddEntry,
    AddTombstone,
    AppendLine,
    Applied,
    DeleteFile,
    MoveFile,
    Operation,
    Reader,
    RemoveEntry,
    ReplaceEntry,
    WriteFile,
    check_op,
    paths_of,
)

Refused = Callable[[Operation, MemoryStoreError], None]


def apply_ops(
    ops: Sequence[Operation],
    read: Reader,
    *,
    dreamer: bool = False,
    force: bool = False,
    on_refused: Refused | None = None,
    folder: Callable[[str], bool] | None = None,
    restoring: bool = False,
    agent: trust.Agent | None = None,
    parsed: Callable[[str], fmt.Document | None] | None = None,
) -> Applied:
    """Apply `ops` in order on the tree `read` gives; raise a named error for any refusal.
    With `on_refused`, a refused operation is reported there and skipped instead (every check
    runs before an operation changes anything, so a skipped one leaves no trace). `folder`
    tells whether a path is a folder of that tree (so no file is written where one is).
    `agent`: the write is an agent's, and each operation first becomes what memory/trust/rules.py
    lets it be (stamped, merged, or a proposal) on this very tree. `parsed`: a path's text as
    `read` gives it, already parsed (or None), so a file is not parsed again here."""
    if ops:
        version.check(read(version.STATE))  # a newer hippo's memory: write nothing to it
    edit = _Edit(read, dreamer=dreamer, force=force, folder=folder, restoring=restoring)
    edit.parsed = parsed
    rules = trust.Rules(agent, edit.current, edit.entry) if agent is not None else None
    edit.by_agent = rules is not None
    for op in ops:
        try:
            if rules is None:
                edit.apply(op)
            else:
                edit.apply_as_agent(op, rules)
        except MemoryStoreError as exc:
            if on_refused is None:
                raise
            on_refused(op, exc)
    edit.out.changes = {p: (None if d is None else d.text()) for p, d in edit.docs.items()}
    return edit.out


class _Docs(dict[str, EditedFile | None]):
    """The batch's files by path (None: deleted by an earlier operation), counting the folders
    the live ones sit in, so whether a new path is a folder of the batch is one lookup: a scan of
    every file per new file made a 10,000-file write quadratic (tens of seconds)."""

    def __init__(self, docs: Mapping[str, EditedFile | None] | None = None) -> None:
        super().__init__()
        self.folders: Counter[str] = Counter()
        for path, doc in (docs or {}).items():
            self[path] = doc

    def __setitem__(self, path: str, doc: EditedFile | None) -> None:
        if self.get(path) is not None:
            self._count(path, -1)
        super().__setitem__(path, doc)
        if doc is not None:
            self._count(path, 1)

    def _count(self, path: str, n: int) -> None:
        parts = path.split("/")
        for i in range(1, len(parts)):
            self.folders["/".join(parts[:i])] += n


class _Edit:
    """The tree as a batch of operations changes it: files read once, edited in memory."""

    def __init__(
        self,
        read: Reader,
        *,
        dreamer: bool,
        force: bool,
        folder: Callable[[str], bool] | None,
        restoring: bool,
    ) -> None:
        self.read, self.folder = read, folder
        self.dreamer, self.force, self.restoring = dreamer, force, restoring
        self.out = Applied()
        self.docs = _Docs()  # None: deleted by an earlier operation
        self.base: dict[str, str | None] = {}  # what the tree held before, read once
        self.stones: list[tuple[str, list[tombstones.Tombstone]]] = []
        self.gone: set[str] = set()  # fact keys of the entries this write removed

    @property
    def internal(self) -> bool:
        """Dreaming, or hippo's own revert: lint's rules for new text do not apply."""
        return self.dreamer or self.restoring

    def current(self, path: str) -> str | None:
        if path in self.docs:
            doc = self.docs[path]
            return None if doc is None else doc.text()
        if path not in self.base:
            self.base[path] = self.read(path)
        return self.base[path]

    def doc_of(self, path: str) -> EditedFile:
        doc = self.docs.get(path)
        if doc is None:
            text = _existing(self.current, path)
            known = self.parsed(path) if self.parsed is not None and path not in self.docs else None
            doc = self.docs[path] = EditedFile(text, known)
        return doc

    def forgotten(self) -> list[tombstones.Tombstone]:
        text = self.current(tombstones.PATH) or ""
        if not self.stones or self.stones[0][0] != text:
            self.stones[:] = [(text, tombstones.load(text))]
        return self.stones[0][1]

    def collide(self, path: str) -> None:
        """PathConflict when a new file at `path` would sit under a file (git would drop that
        file to make room for the folder) or where a folder is (git would keep the folder)."""
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if self.current(parent) is not None:
                raise PathConflict(
                    path, f"{parent} is a file, and a path under it would delete that file"
                )
        if self.current(path) is None and (
            self.docs.folders.get(path, 0) > 0 or (self.folder is not None and self.folder(path))
        ):
            raise PathConflict(path, f"{path} is a folder; write a file inside it")

    def apply(self, op: Operation) -> None:
        """Every check first, then the change: a refused operation leaves no trace."""
        check_op(op, dreamer=self.dreamer, restoring=self.restoring)
        if isinstance(op, AddEntry | AppendLine | WriteFile):
            self.collide(op.path)
        elif isinstance(op, MoveFile):
            self.collide(op.dst)
        _check_append_only(op, self.current, dreamer=self.dreamer)
        if not self.force:
            _check_tombstones(op, self.current, self.forgotten, person=not self.by_agent)
        if isinstance(op, WriteFile) and not self.internal:
            _check_new_entries(op, self.current(op.path))
        _APPLY[type(op)](self, op)

    def entry(self, path: str, match: str) -> fmt.Entry | None:
        """The entry of `match`'s fact in `path` now, from the file's kept index (no parse)."""
        if self.current(path) is None:
            return None
        found = self.doc_of(path).index().get(fmt.fact_key(match))
        return found[0] if found else None

    by_agent = False  # set while an agent's write applies: tombstones of agents bind it
    parsed: Callable[[str], fmt.Document | None] | None = None  # see apply_ops

    def apply_as_agent(self, op: Operation, rules: trust.Rules) -> None:
        """An agent's operation as the trust rules rewrite it; its parts apply together or
        not at all. A tombstone records only what this write removed (an agent's own entry):
        a person's entry it asked to delete is a proposal, and stays."""
        if type(op) is AddTombstone:
            if fmt.fact_key(op.text) not in self.gone:
                self._reason(op)
                return
            # an agent's removal binds agents, never a person saving the fact again
            meta = tuple((k, v) for k, v in op.meta if k.lower() != "status")
            op = AddTombstone(op.path, op.text, (*meta, ("status", trust.TENTATIVE)), op.title)
        parts = rules.rewrite(op)
        if len(parts) == 1:
            self.apply(parts[0])
            return
        texts = {p: None if d is None else d.text() for p, d in self.docs.items()}
        removed = len(self.out.removed)
        try:
            for part in parts:
                self.apply(part)
        except MemoryStoreError:
            self.docs = _Docs({p: None if t is None else EditedFile(t) for p, t in texts.items()})
            del self.out.removed[removed:]
            raise

    def _reason(self, stone: AddTombstone) -> None:
        """The reason an agent gave for a deletion that became a proposal, on that proposal."""
        reason = next((v for k, v in stone.meta if k.lower() == "reason" and v.strip()), "")
        found = self.entry(trust.PROPOSALS, stone.text) if reason else None
        if found is not None and not found.get("reason"):
            meta = (*found.meta, ("reason", reason))
            self.apply(ReplaceEntry(trust.PROPOSALS, found.text, found.text, meta))

    def add_entry(self, op: AddEntry) -> None:
        if self.current(op.path) is None:
            head = f"# {' '.join(op.title.split())}\n\n" if op.title else ""
            self.docs[op.path] = EditedFile(head)
        doc = self.doc_of(op.path)
        # The same fact already there: two adds of one fact make one entry.
        if not (fmt.normalise(op.text) and doc.has(op.text)):
            line = fmt.render_entry(op.text, op.meta)
            full = tombstones.FULL if op.path == tombstones.PATH else ""
            text = doc.text()
            validate.size(op.path, text, line, hint=full)
            if "```" in text or "~~~" in text:
                fence = fmt.parse(text).unclosed
                if fence:  # a code fence left open: an entry appended inside it would be code
                    doc.append(fence, indexed=False)
            doc.append(line)

    def replace_entry(self, op: ReplaceEntry) -> None:
        doc = self.doc_of(op.path)
        entry = doc.find(op.path, op.match)
        if not self.internal:
            _check_new_meta(op, entry)
        doc.replace(entry, fmt.render_entry(op.text, op.meta, indent=entry.indent))

    def remove_entry(self, op: RemoveEntry) -> None:
        doc = self.doc_of(op.path)
        entry = doc.find(op.path, op.match)
        self.out.removed.append((op.path, entry))
        self.gone.add(fmt.fact_key(entry.text))
        doc.remove(entry)

    def append_line(self, op: AppendLine) -> None:
        if self.current(op.path) is None:
            self.docs[op.path] = EditedFile("")
        doc = self.doc_of(op.path)
        validate.size(op.path, doc.text(), op.line)
        doc.append(op.line.rstrip("\r\n"), indexed=False)

    def write_file(self, op: WriteFile) -> None:
        self.docs[op.path] = EditedFile(op.content)

    def move_file(self, op: MoveFile) -> None:
        text = _existing(self.current, op.src)
        if self.current(op.dst) is not None:
            raise TargetGone(f"cannot move {op.src} to {op.dst}: it exists", op.dst)
        self.docs[op.src] = None
        self.docs[op.dst] = EditedFile(text)

    def delete_file(self, op: DeleteFile) -> None:
        text = _existing(self.current, op.path)
        self.gone.update(fmt.fact_key(e.text) for e in fmt.parse(text).entries)
        self.docs[op.path] = None


# Each operation's change, by its type (every check ran before in _Edit.apply).
_APPLY: dict[type[Any], Callable[[_Edit, Any], None]] = {
    AddEntry: _Edit.add_entry,
    AddTombstone: _Edit.add_entry,
    ReplaceEntry: _Edit.replace_entry,
    RemoveEntry: _Edit.remove_entry,
    AppendLine: _Edit.append_line,
    WriteFile: _Edit.write_file,
    MoveFile: _Edit.move_file,
    DeleteFile: _Edit.delete_file,
}


def _existing(current: Reader, path: str) -> str:
    text = current(path)
    if text is None:
        raise TargetGone(f"{path} does not exist (moved or deleted by another writer?)", path)
    return text


def _check_new_meta(op: ReplaceEntry, old: fmt.Entry) -> None:
    """Lint's metadata rules on what this edit brings in (an old entry's own problems, already
    in the file, do not block an edit of its text)."""
    before = set(lint_entry(old.text, old.meta))
    for code, message in lint_entry(*validate.read_back(op.text, op.meta)):
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


def _check_append_only(op: Operation, current: Reader, *, dreamer: bool = False) -> None:
    """archive/ takes appends only, through every door: AppendLine, or a WriteFile that creates
    a file or keeps every byte it had and adds lines after them. One exception: the dreaming
    identity deletes a month's day files once the roll-up put them in the cold archive
    (memory/archive/rollup.py checks every episode arrived there first)."""
    if not any(p.startswith(ARCHIVE) for p in paths_of(op)):
        return
    if isinstance(op, AppendLine) or (dreamer and isinstance(op, DeleteFile)):
        return
    if isinstance(op, WriteFile):
        before = current(op.path)
        if before is None or (
            op.content.startswith(before) and before.endswith("\n" if before else "")
        ):
            return
    raise AppendOnly(next(p for p in paths_of(op) if p.startswith(ARCHIVE)))


def _check_tombstones(
    op: Operation,
    current: Reader,
    forgotten: Callable[[], list[tombstones.Tombstone]],
    *,
    person: bool = False,
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
        if not might_repeat(haystack, t):
            continue  # cheap: forgotten.md lacks this fact's longest word, so no tombstone
        stones = stones if stones is not None else forgotten()
        tombstones.check(t, stones, person=person)


def might_repeat(haystack: str, text: str) -> bool:
    """False only when forgotten.md (`haystack`) cannot hold a tombstone that `text` repeats:
    one of the tombstone's words would have to be among `text`'s words, and the file holds
    none of them (a substring search per word is far cheaper than parsing the file)."""
    if not haystack:
        return False
    # Folding ASCII only lowers it; a file with other scripts is folded first (a look-alike
    # letter folds into another word), so the shortcut never hides a tombstone.
    lowered = haystack.lower() if haystack.isascii() else fmt.words(haystack)
    return any(w in lowered for w in set(fmt.normalise(text).split()))
