"""What the dream proposes for a person to accept or drop: lessons, titles, moves, merges, splits.

The dream writes each proposal as an entry of `proposals.md` (as the write path does for an
agent's deletion of a person's entry): `proposes: <kind>; path: <file>`, a `signature` naming
what it is about, the inputs it came from and their weakest standing (`status: tentative` when
any input is an agent's), `by: hippo-dream`. The digest shows each as one card with Accept and
Drop, the console's Proposals page lists them (memory/trust/proposals.py settles them); nothing
changes in the memory until a person accepts.

A proposal is made once: not while one with its signature waits, and never again once a person
settled it (accepted or dropped: its signature is gone from `proposals.md` since the last dream,
`settled`, and goes into the state's `apart` as `proposal:<signature>`), nor when its text
repeats a forgotten fact or holds a secret. Pure: the tree's text in, operations out.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import memory.facts.tombstones as tombstones
import memory.trust.rules as trust
from memory import format as fmt
from memory import secrets
from memory.dream.context import DREAM_BY, Context
from memory.errors import TombstoneConflict
from memory.writes.operations import AddEntry, Meta

KINDS = ("lesson", "title", "move", "merge", "split", "regroup")
APART = "proposal:"


def signature(kind: str, about: str) -> str:
    """A short stable name for what a proposal is about (safe as a metadata value)."""
    digest = hashlib.sha256(f"{kind}\0{about}".encode()).hexdigest()[:16]
    return f"{kind}-{digest}"


def signatures(text: str | None) -> set[str]:
    """The signatures of the dream's proposals in a `proposals.md` text."""
    out = set()
    for e in fmt.parse(text or "").entries:
        if (e.get("proposes") or "") in KINDS and e.get("signature"):
            out.add(str(e.get("signature")))
    return out


def settled(before: str | None, now: str | None) -> set[str]:
    """`apart` marks for the dream's proposals a person settled since the last dream (in
    `proposals.md` then, gone now): never proposed again."""
    return {APART + s for s in signatures(before) - signatures(now)}


@dataclass
class Proposer:
    """The proposals of one step tonight, checked before they are made, at most `limit`."""

    ctx: Context
    limit: int
    ops: list[AddEntry] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # why proposals were not made
    _waiting: set[str] | None = None
    _stones: tombstones.Stones | None = None

    @property
    def full(self) -> bool:
        return len(self.ops) >= self.limit

    def offer(self, kind: str, path: str, text: str, sig: str, meta: Meta = ()) -> bool:
        """Propose `text` (kind `kind`, about `path`) unless it was made or settled before,
        holds a secret or repeats a forgotten fact; True when it is proposed."""
        if self._waiting is None:
            self._waiting = signatures(self.ctx.tree.get(trust.PROPOSALS))
        text = " ".join(text.split()).replace("[", "(").replace("]", ")")
        why = self._refused(text, sig)
        if why:
            self.skipped[why] = self.skipped.get(why, 0) + 1
            return False
        self._waiting.add(sig)
        head = (("proposes", kind), ("path", path), ("signature", sig))
        tail = (("by", DREAM_BY), ("added", self.ctx.today.isoformat()))
        self.ops.append(AddEntry(trust.PROPOSALS, text, (*head, *meta, *tail), title=TITLE))
        return True

    def _refused(self, text: str, sig: str) -> str:
        assert self._waiting is not None
        if len(self.ops) >= self.limit:
            return "over tonight's limit"
        if sig in self._waiting:
            return "waiting for a person"
        if APART + sig in self.ctx.apart:
            return "settled by a person before"
        if not text or secrets.first(text):
            return "holds a secret"
        if self._stones is None:
            self._stones = tombstones.load(self.ctx.tree.get(tombstones.PATH))
        try:
            tombstones.check(text, self._stones)
        except TombstoneConflict:
            return "a forgotten fact"
        return ""


TITLE = "Proposals: agents' deletions and the dream's proposals, waiting for a person"
