"""What every dreaming step reads (Context) and returns (StepResult). Pure data, no I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from memory import format as fmt
from memory.dream.judged import Judge
from memory.dream.state import State
from memory.facts.tombstones import Tombstone
from memory.writes.apply import apply_ops
from memory.writes.operations import Operation
from memory.writes.validate import MAX_MESSAGE_CHARS

# Files that are not topics: the index, the inbox, tombstones, daily notes, the archive, state,
# the team's settings for hippo (.hippo/tags.md: tag aliases), reminders (checked by their own
# dream check, memory/reminders/dream.py, never corrected, merged or filed as facts).
SPECIAL = frozenset({"MEMORY.md", "inbox.md", "forgotten.md", "proposals.md", fmt.REMINDERS})
NOT_TOPIC_DIRS = ("daily/", "archive/", ".dream/", ".hippo/")

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
    removed: int = 0  # entries removed tonight so far: every removal counts against the cap
    # where tidy found forgotten facts a plain push brought back tonight (removed or waiting
    # for the cap): looked at again the next night (memory/dream/state.py)
    resurrected: set[str] | None = None
    forgotten: str = ""  # forgotten.md as the night began (before tonight's own removals)
    # With Claude: (older, newer) entry texts → its judgment (memory/dream/judged.py), asked
    # once per possible duplicate
    confirm: Judge | None = None
    # (path, entry text) → the plain push that brought a forgotten fact back ("<sha> by <who>"),
    # or "" when hippo's write path did (memory/dream/plain_git.py)
    brought_back: Callable[[str, str], str] = lambda _p, _t: ""
    # the fact keys of every entry an earlier step wrote tonight, per path: later steps leave those
    # lines alone, so each step's commit can be undone alone with plain `git revert`
    touched: dict[str, set[str]] = field(default_factory=dict)  # path → fact keys
    # fact keys of entries a person un-merged (state `apart`): tidy never merges them on its own
    apart: frozenset[str] = frozenset()
    # the commit whose tree `tree` is (None once another writer moved the tip under the dream):
    # each step's result is committed as the dream applied it (memory/dream/commit.py)
    base: str | None = None
    # the tombstones forgotten.md shed into the cold store (memory/archive/forgotten.py), read
    # on first use: they refuse no one's note, but the dream never writes such a fact again
    cold_stones: Callable[[], Sequence[Tombstone]] = lambda: ()
    _docs: dict[str, tuple[str, fmt.Document]] = field(default_factory=dict, repr=False)
    _settled: dict[str, tuple[fmt.Document, set[int]]] = field(default_factory=dict, repr=False)

    def doc(self, path: str) -> fmt.Document:
        """The parsed file, cached for as long as its text is unchanged."""
        text = self.tree.get(path, "")
        hit = self._docs.get(path)
        if hit is not None and hit[0] is text:
            return hit[1]
        doc = fmt.parse(text)
        self._docs[path] = (text, doc)
        return doc

    def parsed(self, path: str) -> fmt.Document | None:
        """The parse kept for `path`'s text now, if there is one (never parses)."""
        hit = self._docs.get(path)
        return hit[1] if hit is not None and hit[0] is self.tree.get(path) else None

    def topics(self) -> list[str]:
        return sorted(p for p in self.tree if is_topic(p))

    def entries(self, paths: list[str]) -> Iterator[tuple[str, fmt.Entry]]:
        for path in paths:
            for entry in self.doc(path).entries:
                yield path, entry

    def settled(self, path: str, entry: fmt.Entry) -> bool:
        """An earlier step wrote this entry, or the line next to it, tonight: leave it until the
        next night (git takes edits on adjacent lines for one conflicting change)."""
        keys = self.touched.get(path)
        if not keys:
            return False
        doc = self.doc(path)
        hit = self._settled.get(path)
        if hit is None or hit[0] is not doc:
            lines = {e.line for e in doc.entries if fmt.fact_key(e.text) in keys}
            hit = (doc, lines)
            self._settled[path] = hit
        return bool(hit[1] & {entry.line - 1, entry.line, entry.line + 1})

    def apply(self, ops: list[Operation]) -> None:
        """Apply a step's operations to the working tree, as the store will (the same rules,
        one parse per file, the same checks)."""
        out = apply_ops(
            ops, self.tree.get, dreamer=True, parsed=self.parsed, folder=folder_test(self.tree)
        )
        self.take(out.changes)

    def take(self, changes: Mapping[str, str | None]) -> None:
        """Files as a step's operations left them (None: deleted)."""
        for path, text in changes.items():
            if text is None:
                self.tree.pop(path, None)
            else:
                self.tree[path] = text


def folder_test(tree: Mapping[str, str]) -> Callable[[str], bool]:
    """Whether a path is a folder of `tree` (as the store asks of its tip before a new file goes
    there); the folders are listed on the first question only (most steps write no new file)."""
    folders: set[str] = set()

    def is_folder(path: str) -> bool:
        if not folders:
            for p in tree:
                parts = p.split("/")
                folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
            folders.add("\x00")  # listed, even when the tree has no folder
        return path in folders

    return is_folder


@dataclass
class StepResult:
    """A step's operations and its commit message: `dream(<step>): <subject>` then `body` lines."""

    step: str
    ops: list[Operation] = field(default_factory=list)
    subject: str = "nothing to do"
    body: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)

    def message(self) -> str:
        """The commit message. A body longer than a commit message may be (a big night merges
        or deletes hundreds of entries) keeps its first lines and says how many more there
        are; the commit's diff holds every change. Unbounded, the step was refused whole."""
        text = f"dream({self.step}): {self.subject}"
        budget, kept = MAX_MESSAGE_CHARS - len(text) - 120, 0
        for line in self.body:
            budget -= len(line) + 1
            if budget < 0:
                break
            kept += 1
        body = self.body[:kept]
        if kept < len(self.body):
            body.append(f"- and {len(self.body) - kept} more lines: the commit's diff has them")
        return text + "\n\n" + "\n".join(body) if body else text
