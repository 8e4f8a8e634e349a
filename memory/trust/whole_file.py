"""An agent's whole-file write or file deletion, read line by line: what it may do to each.

Every line a person wrote stays byte for byte where it was, or becomes a proposal (docs/TRUST.md):

- an entry of the new text that was not there is the agent's, stamped (tentative, `by:`);
- the agent's own tentative entries (`status: tentative`) it may edit or leave out (removed);
- a person's entry (or an active one) stays as it was written, where the agent put it; one it
  left out stays where it was and is proposed for deletion (`proposals.md`);
- every other line that is not blank (prose, a heading, a line inside a code fence) has no
  author hippo can tell from the text: an agent never removes one, so one it left out stays
  where it was (a line it moved stays where it moved it);
- a text that leaves a code fence (``` or ~~~) open is refused: every line after it would be
  code, not entries (a person's reminders hidden, the next write dropping them); so is one that
  puts a person's entry inside a fence.

A deletion of a file removes the agent's own tentative entries and proposes each other entry;
the file goes only when nothing else is left in it (a prose-only file stays).

Pure: texts in, operations out; memory/trust/rules.py calls it for an agent's write.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Protocol

from memory import format as fmt
from memory.errors import ProtectedPath
from memory.trust.standing import is_agents
from memory.writes.operations import DeleteFile, Meta, Operation, RemoveEntry, WriteFile


class Writer(Protocol):
    """What this module needs of memory.trust.rules.Rules (which imports it)."""

    @property
    def current(self) -> Callable[[str], str | None]: ...

    def stamped(self, path: str, text: str, meta: Meta) -> Meta: ...
    def merged(self, old: fmt.Entry, meta: Meta) -> Meta: ...
    def linked(self, path: str, meta: Meta) -> Meta: ...
    def proposal(self, path: str, old: fmt.Entry, reason: str = "") -> Operation: ...


def write(r: Writer, op: WriteFile) -> list[Operation]:
    """An agent's whole file as hippo writes it, and the proposals it makes."""
    before = fmt.parse(r.current(op.path) or "")
    doc = fmt.parse(op.content)
    if doc.unclosed:
        raise ProtectedPath(op.path, _open_fence(op.path, doc.unclosed))
    lines, placed = _rewritten(r, op.path, before, doc)
    out, extra = _kept(r, op.path, before, doc, lines, placed)
    content = "".join(ln if ln.endswith("\n") or k == len(out) - 1 else ln + "\n"
                      for k, ln in enumerate(out))  # fmt: skip
    _check(op.path, before, content)
    return [WriteFile(op.path, content), *extra]


def _rewritten(
    r: Writer, path: str, before: fmt.Document, doc: fmt.Document
) -> tuple[list[str], set[int]]:
    """The new text's lines as hippo writes them (new entries stamped, the agent's own merged,
    a person's as written), and the lines of `before` whose entry the new text placed."""
    old = {fmt.fact_key(e.text): e for e in reversed(before.entries)}
    lines = list(doc.lines)
    placed: dict[str, int] = {}
    for e in doc.entries:
        key = fmt.fact_key(e.text)
        was = old.get(key)
        if was is None:
            meta = r.linked(path, r.stamped(path, e.text, e.meta))
            line: str | None = fmt.render_entry(e.text, meta, indent=e.indent, marker=e.marker)
        elif key in placed:
            line = None  # the same entry twice: it is written once
        elif is_agents(was):
            meta = r.linked(path, r.merged(was, e.meta))
            line = fmt.render_entry(e.text, meta, indent=e.indent, marker=e.marker)
        else:
            line = before.lines[was.line].rstrip("\r\n")
        placed.setdefault(key, was.line if was is not None else -1)
        raw = lines[e.line]
        lines[e.line] = "" if line is None else line + raw[len(raw.rstrip("\r\n")) :]
    return lines, {i for i in placed.values() if i >= 0}


def _kept(
    r: Writer,
    path: str,
    before: fmt.Document,
    doc: fmt.Document,
    lines: list[str],
    placed: set[int],
) -> tuple[list[str], list[Operation]]:
    """The new lines with every line of `before` the agent may not remove put back where it was
    (after the line before it that stayed), and a proposal for each person's entry among them."""
    entries = {e.line: e for e in before.entries}
    a = [ln.rstrip("\r\n") for ln in before.lines]
    b = [ln.rstrip("\r\n") for ln in doc.lines]
    codes = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    new_entries = {e.line for e in doc.entries}
    # prose the agent moved: an old line it left out, said again where no line matched
    moved = Counter(b[j] for t, _, _, j1, j2 in codes if t != "equal" for j in range(j1, j2)
                    if j not in new_entries)  # fmt: skip
    out: list[str] = []
    extra: list[Operation] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag != "equal":
            for i in range(i1, i2):
                entry = entries.get(i)
                if not a[i].strip() or i in placed or (entry is not None and is_agents(entry)):
                    continue  # blank, placed elsewhere, or the agent's own: its to leave out
                if entry is None and moved[a[i]] > 0:
                    moved[a[i]] -= 1
                    continue
                out.append(before.lines[i])
                if entry is not None:
                    extra.append(r.proposal(path, entry))
        out += lines[j1:j2]
    return out, extra


def _check(path: str, before: fmt.Document, content: str) -> None:
    """Refused when what is written hides a line: a fence left open, or a person's entry put
    inside a fence (it would no longer be an entry: never briefed, dropped by the next write)."""
    after = fmt.parse(content)
    if after.unclosed:
        raise ProtectedPath(path, _open_fence(path, after.unclosed))
    live = {fmt.fact_key(e.text) for e in after.entries}
    for e in before.entries:
        if not is_agents(e) and fmt.fact_key(e.text) not in live:
            raise ProtectedPath(
                path,
                f"{path}: this text puts a person's entry inside a code fence ({e.text!r}); "
                "leave people's entries outside fences",
            )


def _open_fence(path: str, fence: str) -> str:
    return (
        f"{path}: the text leaves a code fence ({fence}) open, so every line after it would "
        f"be code, not entries; close it with a line of {fence}"
    )


def delete(r: Writer, op: DeleteFile) -> list[Operation]:
    """An agent's deletion of a file: its own tentative entries go, each other entry is
    proposed for deletion; the file itself goes only when nothing else is in it."""
    doc = fmt.parse(r.current(op.path) or "")
    entry_lines = {e.line for e in doc.entries}
    others = [e for e in doc.entries if not is_agents(e)]
    prose = any(ln.strip() for i, ln in enumerate(doc.lines) if i not in entry_lines)
    if not others and not prose:
        return [op]
    mine = [RemoveEntry(op.path, e.text) for e in doc.entries if is_agents(e)]
    return [*mine, *(r.proposal(op.path, e) for e in others)]
