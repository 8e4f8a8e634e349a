"""What agents proposed for a person to settle: deletions and edits of entries they may not change.

memory/trust/rules.py turns an agent's deletion of a person's entry into an entry of `proposals.md`
(`proposes: delete; path: <file>; by: <agent>`), and its edit of one into a tentative entry beside
it that `contradicts:` it. `pending` lists both, each with a short stable id (for a Slack button's
value or a console form); `settle` gives the operations a person's click applies:

- accept a deletion: the entry is removed and tombstoned (as forget does), the proposal dropped;
- drop a deletion: the proposal is dropped, the entry stays;
- accept an edit: the agent's line takes the old entry's place as the person's (no status,
  `by:` the person), the old entry is removed; the old entry is the one entry of the file whose
  quote (memory/trust/rules.py: `quote`) is exactly the `contradicts:` value, as the write path
  recorded it: a quote matching none, or several, is no proposal (never a prefix match);
- drop an edit: the agent's line is removed;
- the dream's own proposals (memory/dream/proposing.py: a lesson no one wrote down, a title, a
  merge, split or regroup of files) are entries of `proposals.md` too: accepting one applies it
  as the person's commit (memory/dream/reorganise.py), dropping it removes the proposal, and the
  dream never proposes it again.

Pure: a tree (path → text) in, operations out.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import memory.facts.tombstones as tombstones
import memory.trust.rules as trust
from memory import format as fmt
from memory.dream import reorganise
from memory.errors import NotFound
from memory.trust.standing import is_agents
from memory.writes.operations import AddTombstone, Operation, RemoveEntry, ReplaceEntry

Kind = Literal["delete", "edit", "lesson", "title", "merge", "split", "regroup"]
DREAMS = ("lesson", "title", "merge", "split", "regroup")  # memory/dream/proposing.py
_SKIP = ("archive/", ".dream/", "daily/", tombstones.PATH, trust.PROPOSALS)


@dataclass(frozen=True)
class Proposal:
    """`delete`: remove `text` from `path`. `edit`: `text` (an agent's line in `path`) in place
    of the entry `about` quotes."""

    kind: Kind
    path: str
    text: str
    by: str
    about: str = ""
    reason: str = ""
    meta: tuple[tuple[str, str], ...] = ()  # a dream's proposal: its metadata (into, episodes…)

    @property
    def id(self) -> str:
        raw = "\0".join((self.kind, self.path, fmt.fact_key(self.text)))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:16]

    def describe(self) -> str:
        if self.kind == "delete":
            return f"delete “{self.text}” from {self.path}"
        if self.kind == "lesson":
            cited = dict(self.meta).get("episodes", "")
            return f"a lesson for {self.path}: “{self.text}” (episodes {cited})"
        if self.kind == "title":
            return f"title {self.path} “{self.text}”"
        if self.kind in DREAMS:
            return self.text
        return f"in {self.path}, “{self.text}” in place of “{self.about}”"


def pending(tree: Mapping[str, str]) -> list[Proposal]:
    """Every proposal waiting for a person: deletions first, then edits, in file order."""
    out: list[Proposal] = []
    dreamt: list[Proposal] = []
    for e in fmt.parse(tree.get(trust.PROPOSALS, "")).entries:
        path, kind = e.get("path") or "", e.get("proposes") or ""
        if kind == "delete" and path:
            out.append(
                Proposal("delete", path, e.text, e.get("by") or "", "", e.get("reason") or "")
            )
        elif kind in DREAMS and path:
            meta = tuple((k.lower(), fmt.unescape_value(v)) for k, v in e.meta)
            why = e.get("reason") or ""
            dreamt.append(Proposal(kind, path, e.text, e.get("by") or "", "", why, meta))  # type: ignore[arg-type]
    for path in sorted(tree):
        text = tree[path]
        if path.startswith(_SKIP) or "contradicts:" not in text:
            continue
        doc = fmt.parse(text)
        quotes = Counter(trust.quote(e.text) for e in doc.entries)
        for e in doc.entries:
            about = e.get("contradicts")
            # an edit names the entry it replaces exactly, as hippo quotes it, and only one:
            # a quote an agent typed ("Checkout…") settles nothing (nor a plain push's)
            if about and is_agents(e) and quotes[about] == 1:
                out.append(Proposal("edit", path, e.text, e.get("by") or "", about))
    return out + dreamt


def find(tree: Mapping[str, str], proposal_id: str) -> Proposal:
    for p in pending(tree):
        if p.id == proposal_id:
            return p
    raise NotFound("that proposal was settled already (or its entry changed); nothing to do")


def settle(
    tree: Mapping[str, str], p: Proposal, *, accept: bool, by: str, today: str
) -> list[Operation]:
    """The operations a person's accept or drop of `p` applies."""
    if p.kind in DREAMS:
        proposal = RemoveEntry(trust.PROPOSALS, p.text)
        if not accept:
            return [proposal]
        done = reorganise.accept(tree, p.kind, p.path, p.text, dict(p.meta), by=by, today=today)
        return [*done, proposal]
    if p.kind == "delete":
        ops: list[Operation] = [RemoveEntry(trust.PROPOSALS, p.text)]
        entry = _entry(tree, p.path, lambda e: fmt.same_fact(e.text, p.text))
        if accept and entry is not None:
            reason = p.reason or f"an agent ({p.by}) proposed it; {by} accepted"
            stone, meta = tombstones.entry_for(
                entry, path=p.path, removed=today, by=by, reason=reason
            )
            ops = [
                RemoveEntry(p.path, entry.text),
                AddTombstone(tombstones.PATH, stone, meta, title=tombstones.TITLE),
                *ops,
            ]
        return ops
    new = _entry(tree, p.path, lambda e: fmt.same_fact(e.text, p.text))
    if new is None:
        raise NotFound(f"the proposed line is gone from {p.path}; nothing to do")
    if not accept:
        return [RemoveEntry(p.path, new.text)]
    named = [e for e in fmt.parse(tree.get(p.path, "")).entries if trust.quote(e.text) == p.about]
    if len(named) > 1:
        raise NotFound(
            f"“{p.about}” names {len(named)} entries of {p.path}: edit the file by hand, or drop"
        )
    old = next((e for e in named if e.line != new.line), None)
    drop = {"status", "kind", "contradicts", "refines", "by", "evidence"}
    meta = (*[(k, v) for k, v in new.meta if k.lower() not in drop], ("by", by))
    ops = [ReplaceEntry(p.path, new.text, new.text, meta)]
    return ops if old is None else [RemoveEntry(p.path, old.text), *ops]


def _entry(
    tree: Mapping[str, str], path: str, match: Callable[[fmt.Entry], bool]
) -> fmt.Entry | None:
    return next((e for e in fmt.parse(tree.get(path, "")).entries if match(e)), None)
