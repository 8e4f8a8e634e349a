"""Part of the outcomes step: what agents wrote becomes active once a second source confirms it.

A tentative entry with a `kind` (an agent's, memory/trust/agent_gate.py) becomes `active` when, in
order:

1. it was seen from two independent places: its sources and `evidence:` (another Slack thread,
   another agent) name two origins (memory.trust.rules.origins: one thread counts once);
2. a verifier found every claim in it true (the corrections step wrote `verified: <date>`);
3. a person's own entry (no `status`, no `kind`) in the same file or in inbox.md, where notes
   land that name no topic, states the same fact;
4. a lesson of a pull request outcome (`conventions/`, citing the pull request) states it.

The evidence is recorded on the entry (`evidence:`) and in the step's commit message. An entry
that `contradicts:` another is never promoted here: a person settles it, and every night's
digest lists it until then. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import memory.facts.contradictions as cx
from memory import format as fmt
from memory.dream.context import Context
from memory.trust.agent_gate import is_live
from memory.trust.rules import origins
from memory.writes.operations import Operation, ReplaceEntry

CONVENTIONS = "conventions/"
INBOX = "inbox.md"
_NOT_HERE = ("archive/", ".dream/", "daily/")


@dataclass(frozen=True)
class Contradiction:
    """A tentative entry that contradicts another, waiting for a person."""

    path: str
    text: str
    contradicts: str
    source: str


@dataclass
class Promotions:
    ops: list[Operation] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    activated: list[str] = field(default_factory=list)
    open: list[Contradiction] = field(default_factory=list)


def is_agents(entry: fmt.Entry) -> bool:
    return (entry.get("status") or "").lower() == "tentative" and bool(entry.get("kind"))


def is_persons(entry: fmt.Entry) -> bool:
    return not entry.get("status") and not entry.get("kind") and entry.parent is None


def evidence(entry: fmt.Entry, same_file: list[fmt.Entry], lessons: list[fmt.Entry]) -> str:
    """The second source that confirms an agent's entry, or '' (not confirmed yet)."""
    seen = origins(entry)
    if len(seen) >= 2:
        return seen[1]
    if entry.get("verified"):
        return f"verified {entry.get('verified')}"
    for other in same_file:
        if other is not entry and is_persons(other) and _confirms(other, entry):
            return other.get("source") or f"by {other.get('by') or 'a person'}"
    for lesson in lessons:
        pulls = [s for s in lesson.get_all("source") if "/pull/" in s]
        if pulls and _confirms(lesson, entry):
            return pulls[-1]
    return ""


def _confirms(existing: fmt.Entry, entry: fmt.Entry) -> bool:
    return cx.compare(existing.text, entry.text)[0] == cx.CONFIRM


def _lessons(ctx: Context) -> list[fmt.Entry]:
    paths = sorted(
        p
        for p, text in ctx.tree.items()
        if p.startswith(CONVENTIONS) and p.endswith(".md") and "/pull/" in text
    )
    return [e for p in paths for e in ctx.doc(p).entries if (e.get("status") or "") == "active"]


def _inbox(ctx: Context, path: str) -> list[fmt.Entry]:
    return [] if path == INBOX or INBOX not in ctx.tree else ctx.doc(INBOX).entries


def promote(ctx: Context, paths: Iterable[str] | None = None) -> Promotions:
    """The promotions of tonight, and the contradictions still open, over `paths` (default:
    every markdown file outside the archive, state and daily notes)."""
    out = Promotions()
    lessons: list[fmt.Entry] | None = None
    wanted = paths if paths is not None else sorted(ctx.tree)
    for path in wanted:
        if not path.endswith(".md") or path.startswith(_NOT_HERE):
            continue
        if "kind:" not in ctx.tree[path] or "tentative" not in ctx.tree[path]:
            continue  # most files: nothing an agent wrote waits there (no parse needed)
        live = [e for e in ctx.doc(path).entries if is_live(e)]
        # an edit names its entry by its words: where two entries of the file read the same,
        # it would land on the first, a person's perhaps; tidy merges them first
        keys = Counter(fmt.fact_key(e.text) for e in ctx.doc(path).entries)
        for entry in (e for e in live if is_agents(e) and keys[fmt.fact_key(e.text)] == 1):
            if entry.get("contradicts"):
                out.open.append(_open(path, entry))
                continue
            lessons = _lessons(ctx) if lessons is None else lessons
            found = evidence(entry, [*live, *_inbox(ctx, path)], lessons)
            if found:
                _promote(out, path, entry, found)
    return out


def _open(path: str, entry: fmt.Entry) -> Contradiction:
    source = entry.get("source") or entry.get("by") or ""
    return Contradiction(path, entry.text, entry.get("contradicts") or "", source)


def _promote(out: Promotions, path: str, entry: fmt.Entry, found: str) -> None:
    meta = entry.with_meta(status="active").meta
    recorded = entry.get_all("source") + entry.get_all("evidence")
    if found not in recorded and found not in origins(entry):
        meta = (*meta, ("evidence", found))
    out.ops.append(ReplaceEntry(path, entry.text, entry.text, meta))
    out.activated.append(entry.text)
    out.body.append(f"- active in {path}: {entry.text!r} (evidence: {found})")
