"""The quality gate for what agents write: a kind, `status: tentative`, and the contradiction check.

Every entry an agent writes (the Slack agent's edits, an MCP client's writeMemory) passes
`Gate.apply` before it is written: it gets `kind:` (pattern, pitfall, win, stack-note or fact;
`fact` when the agent gave none or another word) and `status: tentative`, whatever status the
agent wrote (an agent never promotes itself). Then memory.facts.contradictions compares it with the
entries of its file:

- confirm: the new line is not added; the existing entry gains the new source as `evidence:`
  (a second independent source: the dream's outcomes step promotes it,
  memory/dream/consolidate_lessons.py);
- refine: added as tentative with `refines: <the older entry's text>`;
- contradict: added as tentative with `contradicts: <the older entry's text>`; the older entry is
  never overwritten, even when the agent edited it in place (the morning digest lists it);
- new: added as tentative.

People's own notes (Slack, the CLI, the console) never pass here: they start active, with no
`status` at all. Pure: operations in, operations out, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import memory.facts.contradictions as cx
import memory.trust.rules as trust
from memory import format as fmt
from memory.writes.operations import (
    AddEntry,
    AddTombstone,
    Meta,
    Operation,
    RemoveEntry,
    ReplaceEntry,
    WriteFile,
)
from memory.writes.validate import MAX_FILE_BYTES

MAX_COMPARISONS = 50_000  # ~2 µs each (cached word sets): a write's check stays under ~0.1 s

Read = Callable[[str], str | None]


def is_live(entry: fmt.Entry) -> bool:
    return (entry.get("status") or "").lower() != "revoked"


def is_active(entry: fmt.Entry) -> bool:
    """Active: confirmed, or a person's own (no status at all)."""
    return (entry.get("status") or "active").lower() == "active"


@dataclass(frozen=True)
class Landed:
    """What the check said of one entry an agent wrote: for counts and the agent's answer."""

    path: str
    text: str
    verdict: cx.Verdict
    other: str = ""  # the existing entry it confirms, refines or contradicts


@dataclass
class Gate:
    """The gate for one write by an agent. `kind` is the kind for entries that name none;
    `origin` is what this writer's confirmation counts as (hippo's record: the Slack thread's
    permalink, or `by <token name>`; memory/trust/rules.py), never a source the agent wrote."""

    kind: str = trust.DEFAULT_KIND
    judge: cx.Judge | None = None
    origin: str = ""
    landed: list[Landed] = field(default_factory=list)
    budget: int = MAX_COMPARISONS  # entry pairs compared in one write, at most

    @property
    def contradictions(self) -> int:
        return sum(1 for x in self.landed if x.verdict == cx.CONTRADICT)

    def stamp(self, meta: Meta) -> Meta:
        """The agent's metadata with a known kind and `status: tentative`, without the keys
        only hippo writes (verified, evidence; `by` is the door's, and the write path sets it
        again). A status that is no status at all is left for the write path to refuse with
        its message, as lint would."""
        kind = trust.kind_of(
            dict((k.lower(), v) for k, v in meta).get("kind"), trust.kind_of(self.kind)
        )
        if any(k.lower() == "status" and v.strip().lower() not in fmt.STATUSES for k, v in meta):
            return (*[(k, v) for k, v in meta if k.lower() != "kind"], ("kind", kind))
        drop = ("kind", "status", "verified", "evidence")
        out = [(k, v) for k, v in meta if k.lower() not in drop]
        return (*out, ("kind", kind), ("status", trust.TENTATIVE))

    def apply(self, ops: Sequence[Operation], read: Read) -> list[Operation]:
        """The agent's operations, gated against the files as `read` gives them now."""
        docs: dict[str, list[fmt.Entry]] = {}

        def entries(path: str) -> list[fmt.Entry]:
            if path not in docs:
                docs[path] = [e for e in fmt.parse(read(path) or "").entries if is_live(e)]
            return docs[path]

        out: list[Operation] = []
        for op in ops:
            # Every file of entries, whatever its name ends in: a `.txt` is read as entries too.
            if isinstance(op, AddTombstone) or getattr(op, "path", "").startswith(
                trust.NOT_ENTRIES
            ):
                out.append(op)
            elif isinstance(op, AddEntry):
                out += self._add(op, entries(op.path))
            elif isinstance(op, ReplaceEntry):
                out += self._replace(op, entries(op.path))
            elif isinstance(op, WriteFile):
                out.append(self._write(op, read(op.path) or ""))
            else:
                out.append(op)
        return self._keep_disputed(out)

    def _keep_disputed(self, ops: list[Operation]) -> list[Operation]:
        """An agent removing the entry its new line contradicts (a delete and an add, not an
        edit in place) would overwrite it all the same: the removal is dropped."""
        disputed = {
            (x.path, fmt.normalise(x.other)) for x in self.landed if x.verdict == cx.CONTRADICT
        }
        return [
            op
            for op in ops
            if not (isinstance(op, RemoveEntry) and (op.path, fmt.normalise(op.match)) in disputed)
        ]

    def _add(
        self, op: AddEntry, known: list[fmt.Entry], replaced: fmt.Entry | None = None
    ) -> list[Operation]:
        found = cx.check(op.text, self._within_budget(known), judge=self.judge)
        if found.verdict == cx.NEW and replaced is not None:
            found = cx.Finding(cx.CONTRADICT, replaced, "edited in place")
        other = found.entry
        self.landed.append(Landed(op.path, op.text, found.verdict, other.text if other else ""))
        if found.verdict == cx.CONFIRM and other is not None:
            return _confirm(op.path, other, self.origin or _by(op.meta))
        meta = self.stamp(op.meta)
        if other is not None and found.verdict in (cx.CONTRADICT, cx.REFINE):
            key = "contradicts" if found.verdict == cx.CONTRADICT else "refines"
            # The older entry, cut at trust.MAX_QUOTE.
            meta = (*meta, (key, trust.quote(other.text)))
        return [AddEntry(op.path, op.text, meta, title=op.title)]

    def _replace(self, op: ReplaceEntry, known: list[fmt.Entry]) -> list[Operation]:
        old = next((e for e in known if fmt.same_fact(e.text, op.match)), None)
        if old is None:
            return [op]  # the store refuses it with its own message (no such entry)
        if fmt.normalise(old.text) == fmt.normalise(op.text):
            # a metadata edit: the agent keeps the entry's status and kind as they are
            meta = [(k, v) for k, v in op.meta if k.lower() not in ("status", "kind")]
            meta += [(k, v) for k, v in old.meta if k.lower() in ("kind", "status")]
            return [ReplaceEntry(op.path, op.match, op.text, tuple(meta))]
        if is_active(old):
            # an active entry is never overwritten by an agent: its new text lands beside it,
            # and an edit in place the words cannot relate still means to replace it
            others = [e for e in known if e is not old]
            return self._add(AddEntry(op.path, op.text, op.meta), [old, *others], old)
        found = cx.check(op.text, [e for e in known if e is not old], judge=self.judge)
        self.landed.append(Landed(op.path, op.text, found.verdict, _text(found.entry)))
        return [ReplaceEntry(op.path, op.match, op.text, self.stamp(op.meta))]

    def _write(self, op: WriteFile, old: str) -> WriteFile:
        """A whole file: each entry not in the old text is gated (against the old entries)."""
        if len(op.content) > MAX_FILE_BYTES:
            return op  # the write path refuses it with its limit: nothing worth gating
        before = [e for e in fmt.parse(old).entries if is_live(e)]
        known = {fmt.normalise(e.text) for e in before}
        doc = fmt.parse(op.content)
        lines = list(doc.lines)  # with their line endings: one pass, however long the file
        for e in doc.entries:
            if fmt.normalise(e.text) in known:
                continue
            gated = self._add(AddEntry(op.path, e.text, e.meta), before)
            # a confirmation keeps the agent's own line here: the file is written whole
            meta = gated[0].meta if gated and isinstance(gated[0], AddEntry) else None
            line = fmt.render_entry(
                e.text, meta or self.stamp(e.meta), indent=e.indent, marker=e.marker
            )
            raw = lines[e.line]
            lines[e.line] = line + raw[len(raw.rstrip("\r\n")) :]
        return WriteFile(op.path, "".join(lines))

    def _within_budget(self, known: list[fmt.Entry]) -> list[fmt.Entry]:
        """The entries to compare a new one with, while the write's budget of comparisons
        lasts (a whole file of new lines against a long file); past it, entries land as new."""
        if len(known) > self.budget:
            return []
        self.budget -= len(known)
        return known


def _text(entry: fmt.Entry | None) -> str:
    return entry.text if entry is not None else ""


def _by(meta: Meta) -> str:
    by = next((v for k, v in meta if k.lower() == "by"), "")
    return f"by {by}" if by else ""


def _confirm(path: str, entry: fmt.Entry, origin: str) -> list[Operation]:
    """The agent said again what `entry` says: the writer's origin (hippo's record of where
    this write came from, never a source the agent typed) becomes evidence on that entry,
    when it is a place the entry has not been seen from yet."""
    if not origin or trust.origin_of(origin) in trust.seen(entry) or is_active(entry):
        return []  # nothing independent to add, or nothing left to confirm
    return [ReplaceEntry(path, entry.text, entry.text, (*entry.meta, ("evidence", origin)))]
