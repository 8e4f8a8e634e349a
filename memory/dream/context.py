"""What every dreaming step reads (Context) and returns (StepResult). Pure data, no I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memory import format as fmt
from memory.dream.state import State
from memory.errors import EntryConflict
from memory.ops import AddEntry, Operation, RemoveEntry, ReplaceEntry, apply_ops

# Files that are not topics: the index, the inbox, tombstones, daily notes, the archive, state.
SPECIAL = frozenset({"MEMORY.md", "inbox.md", "forgotten.md"})
NOT_TOPIC_DIRS = ("daily/", "archive/", ".dream/")

DREAM_BY = "hippo-dream"  # the `by:` value of what dreaming writes


def is_topic(path: str) -> bool:
    """A topic file: markdown, not MEMORY.md/inbox/forgotten, not a daily note, archive or state."""
    return path.endswith(".md") and path not in SPECIAL and not path.startswith(NOT_TOPIC_DIRS)


@dataclass
class Context:
    """One dream's view of the memory: the working tree as text, the previous state, inputs."""

    run_id: str
    today: date
    tree: dict[str, str]
    state: State
    changed: frozenset[str] = frozenset()
    recall: Mapping[str, int] = field(default_factory=dict)
    renamed: Callable[[str], str | None] = lambda _p: None
    _docs: dict[str, tuple[str, fmt.Document]] = field(default_factory=dict, repr=False)

    def doc(self, path: str) -> fmt.Document:
        """The parsed file, cached for as long as its text is unchanged."""
        text = self.tree.get(path, "")
        hit = self._docs.get(path)
        if hit is not None and hit[0] is text:
            return hit[1]
        doc = fmt.parse(text)
        self._docs[path] = (text, doc)
        return doc

    def topics(self) -> list[str]:
        return sorted(p for p in self.tree if is_topic(p))

    def entries(self, paths: list[str]) -> Iterator[tuple[str, fmt.Entry]]:
        for path in paths:
            for entry in self.doc(path).entries:
                yield path, entry

    def apply(self, ops: list[Operation]) -> None:
        """Apply a step's operations to the working tree, as the store will.

        Entry operations are applied file by file with one parse per file (apply_ops parses
        the file again for every operation, which a night with thousands of them cannot afford);
        anything else goes through apply_ops itself. The store re-checks everything on write.
        """
        if not all(isinstance(op, AddEntry | ReplaceEntry | RemoveEntry) for op in ops):
            out = apply_ops(ops, self.tree.get, dreamer=True)
            for path, text in out.changes.items():
                if text is None:
                    self.tree.pop(path, None)
                else:
                    self.tree[path] = text
            return
        by_path: dict[str, list[Operation]] = {}
        for op in ops:
            by_path.setdefault(op.path, []).append(op)  # type: ignore[union-attr]
        for path, mine in by_path.items():
            self.tree[path] = _apply_entries(path, self.tree.get(path), mine)


@dataclass
class StepResult:
    """A step's operations and its commit message: `dream(<step>): <subject>` then `body` lines."""

    step: str
    ops: list[Operation] = field(default_factory=list)
    subject: str = "nothing to do"
    body: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def message(self) -> str:
        text = f"dream({self.step}): {self.subject}"
        if self.body:
            text += "\n\n" + "\n".join(self.body)
        return text


def today_str(ctx: Context) -> str:
    return ctx.today.isoformat()


def meta_with(entry: fmt.Entry, **kv: str | None) -> tuple[tuple[str, str], ...]:
    return entry.with_meta(**kv).meta


def _apply_entries(path: str, text: str | None, ops: list[Operation]) -> str:
    """Add, replace and remove entries of one file in one pass (the rules of memory.ops)."""
    if text is None:
        first = ops[0]
        assert isinstance(first, AddEntry)
        text = f"# {first.title}\n\n" if first.title else ""
    lines: list[str | None] = list(text.splitlines(keepends=True))
    live: list[tuple[int, str, int]] = [
        (e.line, fmt.normalise(e.text), e.indent) for e in fmt.parse(text).entries
    ]

    def find(match: str) -> int:
        want = fmt.normalise(match)
        for pos, (line, key, _indent) in enumerate(live):
            if key == want and lines[line] is not None:
                return pos
        raise EntryConflict(f"no entry in {path} reads {match!r}", path)

    for op in ops:
        if isinstance(op, AddEntry):
            key = fmt.normalise(op.text)
            if key and any(k == key and lines[n] is not None for n, k, _ in live):
                continue
            if lines and lines[-1] is not None and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines.append(fmt.render_entry(op.text, op.meta) + "\n")
            live.append((len(lines) - 1, key, 0))
        elif isinstance(op, ReplaceEntry):
            pos = find(op.match)
            line, _key, indent = live[pos]
            ending = (lines[line] or "")[len((lines[line] or "").rstrip("\r\n")) :]
            lines[line] = fmt.render_entry(op.text, op.meta, indent=indent) + ending
            live[pos] = (line, fmt.normalise(op.text), indent)
        elif isinstance(op, RemoveEntry):
            lines[live[find(op.match)][0]] = None
    return "".join(x for x in lines if x is not None)
