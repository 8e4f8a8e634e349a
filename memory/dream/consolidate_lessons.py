"""Step 2, outcomes: consolidate the pull-request lessons in `conventions/<owner>/<repo>.md`.

- lessons that say the same (same edit signature, or the same words) merge into the oldest one,
  keeping every source;
- a lesson seen in two or more pull requests (two sources) becomes `active`;
- a lesson that a newer one contradicts (it puts back what the old one removed) is `revoked`,
  with `reason` and `evidence`, and kept, not deleted.

The per-PR gate (memory/lessons/planner.py) does this for one pull request at a time; the night
catches what arrived out of order, in parallel, or by hand. Entries agents wrote elsewhere
(memory/trust/agent_gate.py) are promoted here too, by memory/dream/promote.py, and their open
contradictions listed.
"""

from __future__ import annotations

from dataclasses import replace

from memory import format as fmt
from memory.dream.context import Context, StepResult
from memory.dream.promote import promote
from memory.lessons.planner import ACTIVE, REVOKED, TENTATIVE
from memory.lessons.pull_requests import Signature
from memory.writes.operations import RemoveEntry, ReplaceEntry

PREFIX = "conventions/"


def _sig(e: fmt.Entry) -> Signature | None:
    raw = e.get("signature")
    return Signature.parse(raw) if raw else None


def _same(a: fmt.Entry, b: fmt.Entry) -> bool:
    sa, sb = _sig(a), _sig(b)
    if sa is not None and sb is not None:
        return sa.same(sb)
    return fmt.same_fact(a.text, b.text)


def _sources(entries: list[fmt.Entry]) -> list[str]:
    return list(dict.fromkeys(s for e in entries for s in e.get_all("source") if s))


def _age(e: fmt.Entry) -> tuple[str, int]:
    return (e.get("added") or "9999", e.line)


def _revoke_undone(
    path: str, keepers: list[fmt.Entry], today: str, out: StepResult, activated: list[str]
) -> None:
    """A newer lesson that undoes an older one revokes it (the newer evidence wins)."""
    for i, old in enumerate(keepers):
        s_old = _sig(old)
        if s_old is None:
            continue
        for new in keepers[i + 1 :]:
            s_new = _sig(new)
            if s_new is not None and _age(new) > _age(old) and s_old.contradicts(s_new):
                evidence = new.get("source") or path
                meta = old.with_meta(
                    status=REVOKED,
                    reason=f"a newer lesson puts the old way back ({today})",
                    evidence=evidence,
                ).meta
                out.ops = [
                    op
                    for op in out.ops
                    if not (isinstance(op, ReplaceEntry) and op.match == old.text)
                ]
                out.ops.append(ReplaceEntry(path, old.text, old.text, meta))
                out.body.append(f"- revoked in {path}: {old.text!r} (evidence: {evidence})")
                if old.text in activated:
                    activated.remove(old.text)
                break


def consolidate(path: str, doc: fmt.Document, today: str) -> tuple[StepResult, list[str]]:
    """Operations for one conventions file, and the lessons that became active."""
    out = StepResult("outcomes")
    activated: list[str] = []
    live = [e for e in doc.entries if e.get("status") != REVOKED and e.parent is None]
    groups: list[list[fmt.Entry]] = []
    for e in sorted(live, key=_age):
        home = next((g for g in groups if _same(g[0], e)), None)
        if home is None:
            groups.append([e])
        else:
            home.append(e)
    keepers: list[fmt.Entry] = []
    for group in groups:
        keep, extra = group[0], group[1:]
        sources = _sources(group)
        status = keep.get("status") or TENTATIVE
        new_status = ACTIVE if len(sources) >= 2 and status != ACTIVE else status
        if extra or new_status != status:
            kept = [(k, v) for k, v in keep.meta if k.lower() not in ("source", "status")]
            meta = tuple([("source", s) for s in sources] + kept + [("status", new_status)])
            out.ops.append(ReplaceEntry(path, keep.text, keep.text, meta))
            for e in extra:
                out.ops.append(RemoveEntry(path, e.text))
                out.body.append(f"- merged in {path}: {e.text!r} into {keep.text!r}")
            if new_status == ACTIVE and status != ACTIVE:
                activated.append(keep.text)
                out.body.append(f"- active in {path}: {keep.text!r} (seen in {len(sources)} PRs)")
            keep = replace(keep, meta=meta)
        keepers.append(keep)
    _revoke_undone(path, keepers, today, out, activated)
    return out, activated


def run(ctx: Context) -> StepResult:
    result = StepResult("outcomes")
    activated: list[str] = []
    for path in sorted(p for p in ctx.tree if p.startswith(PREFIX) and p.endswith(".md")):
        part, became = consolidate(path, ctx.doc(path), ctx.today.isoformat())
        result.ops.extend(part.ops)
        result.body.extend(part.body)
        activated.extend(became)
    merged = sum(1 for op in result.ops if isinstance(op, RemoveEntry))
    revoked = sum(1 for line in result.body if line.startswith("- revoked"))
    gate = promote(ctx, [p for p in sorted(ctx.tree) if not p.startswith(PREFIX)])
    result.ops += gate.ops
    result.body += gate.body
    activated += gate.activated
    result.facts = {"activated": activated, "merged": merged, "revoked": revoked}
    result.facts["revoked_entries"] = [  # (path, text) of each, for the operational log
        (op.path, op.match)
        for op in result.ops
        if isinstance(op, ReplaceEntry) and ("status", REVOKED) in op.meta
    ]
    result.facts["contradictions"] = gate.open
    if result.ops:
        result.subject = (
            f"{merged} lessons merged, {len(activated)} became active, {revoked} revoked"
        )
    return result
