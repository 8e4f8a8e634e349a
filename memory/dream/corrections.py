"""Step 3, corrections: check every claim in tonight's files against ground truth.

The files are chosen in code (select.py). A `Checker` turns an entry into (claim, verdict) pairs:
the deterministic one recognises claims (checkable_claims.py) and asks the verifiers; with Claude,
the model
reads the entry and calls the same verifiers as tools. Then, per entry:

- every claim true → keep it, `verified: <today>`;
- a claim wrong and fixable → rewrite that part from what the verifier saw (evidence in the
  commit message), `verified: <today>`;
- a claim wrong and not fixable → delete the entry and tombstone it in forgotten.md, evidence in
  the commit message; at most max(3, 15% of topic files) a night, the rest wait (`deferred`);
- nothing checkable → keep it; the file is listed as unverified.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

import memory.dream.checkable_claims as cl
import memory.facts.tombstones as tombstones
from memory import format as fmt
from memory.dream.context import DREAM_BY, Context, StepResult
from memory.dream.loose import Known
from memory.dream.select import deletion_cap, select
from memory.dream.verifiers import FIXABLE, NOT_CHECKABLE, TRUE, UNFIXABLE, Verdict, Verifiers
from memory.errors import TombstoneConflict
from memory.writes.validate import MAX_FILE_BYTES

if TYPE_CHECKING:  # pydantic and yaml load with the first dream, not with every process
    from memory.dream.declared_checks import Declared
from memory.notes import INBOX
from memory.writes.operations import AddEntry, Operation, RemoveEntry, ReplaceEntry

Checked = list[tuple[cl.Claim, Verdict]]
MAX_QUOTE = 120
FAILED = "- failed check"  # the digest lists these lines (memory/dream/digest.py)
RECHECK_CALLS = 2000  # verifier calls a night for re-checking claims beyond the 25 files
# Cheap signs that a file may hold a claim the verifiers check (a repository, a URL, a link).
_CLAIMISH = ("/", "slack.com", "[[")


class Checker(Protocol):
    """Finds the claims in one entry and verdicts on each (Claude, or the deterministic path)."""

    def check(self, path: str, entry: fmt.Entry) -> Checked: ...


class ClaimChecker:
    """Without an LLM: claims recognised by how people write them, verified by the verifiers."""

    def __init__(
        self,
        verifiers: Verifiers,
        allowed_hosts: Iterable[str] = (),
        *,
        repos: Iterable[str] = (),
        declared: Declared | None = None,
    ) -> None:
        self.verifiers = verifiers
        self.hosts = tuple(allowed_hosts)
        self.repos = Known(repos)  # repositories the memory names: bare names may mean them
        if declared is None:
            from memory.dream.declared_checks import Declared

            declared = Declared(())
        self.declared = declared  # the team's own checks (.hippo/checks.yml)

    def check(self, path: str, entry: fmt.Entry) -> Checked:
        claims = cl.find(entry, self.hosts, repos=self.repos) + self.declared.claims(path, entry)
        return self.verifiers.check_all(claims)

    def wants(self, ctx: Context, path: str) -> bool:
        """The file may hold a claim: a repository, a URL, a link (cheap signs, so the re-check
        skips prose), or an entry a declared check selects."""
        text = ctx.tree[path]
        return any(m in text for m in _CLAIMISH) or self.declared.selects(
            path, ctx.doc(path).entries
        )


class Deletion(NamedTuple):
    """An entry the world contradicts, to delete (tonight, or when the cap allows)."""

    path: str
    entry: fmt.Entry
    reason: str  # the evidence, for the tombstone


@dataclass
class Plan:
    """What the corrections step decided (also what the digest reports)."""

    selected: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)  # paths
    verified: list[str] = field(default_factory=list)  # files with no unverifiable entry
    unverified: list[str] = field(default_factory=list)
    rechecked: list[str] = field(default_factory=list)  # claims re-checked beyond `selected`
    failed: list[str] = field(default_factory=list)  # answers not of the claim's kind: unwritten
    cap: int = 0


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= MAX_QUOTE else flat[: MAX_QUOTE - 1] + "…")


def _evidence(pairs: Sequence[tuple[cl.Claim, Verdict]]) -> str:
    return "; ".join(f"{v.verifier or 'verifier'}: {v.evidence}" for _, v in pairs if v.evidence)


def run(
    ctx: Context,
    checker: Checker,
    *,
    limit: int = 25,
    recheck: ClaimChecker | None = None,
    budget: int = RECHECK_CALLS,
) -> StepResult:
    """Check tonight's `limit` files with `checker` (Claude, or the claim checker); then, with
    `recheck`, re-check every other file that makes a claim, deterministically, oldest check
    first, within `budget` verifier calls: verifiers need no LLM and batch per repository, so a
    change in the world is found the next night however large the memory."""
    result = StepResult("corrections")
    topics = ctx.topics()
    plan = Plan(cap=deletion_cap(len(topics)))
    plan.selected = select(
        checkable(ctx),
        changed=ctx.changed,
        checked=ctx.state.checked,
        deferred=ctx.state.deferred,
        recall=ctx.recall,
        limit=limit,
    )
    today = ctx.today.isoformat()
    stones = {s.key for s in tombstones.load(ctx.tree.get(tombstones.PATH)) if not s.merged}
    deletions: list[Deletion] = []
    fixes: list[str] = []
    for path in plan.selected:
        unknown = _check_file(ctx, path, checker, result, plan, deletions, fixes)
        if unknown and path == INBOX:
            continue  # notes waiting for a topic: not a file to list as unverifiable
        (plan.unverified if unknown else plan.verified).append(path)
    if recheck is not None:
        done = set(plan.selected)
        plan.rechecked = _recheck(ctx, recheck, done, budget, result, plan, deletions, fixes)
    result.ops.extend(_deletions(ctx, plan, deletions, stones, today, result.body))
    ctx.removed += len(plan.deleted)  # tidy's merges and expiries share tonight's cap
    result.body[:0] = fixes
    _summarise(result, plan, waiting=len(deletions) - len(plan.deleted))
    return result


def checkable(ctx: Context) -> list[str]:
    """The files whose claims are checked: the topics and the inbox (notes not yet filed are
    facts like any other: a deleted Slack message makes them stale too)."""
    waiting = INBOX in ctx.tree and bool(ctx.doc(INBOX).entries)
    return [*ctx.topics(), INBOX] if waiting else ctx.topics()


def _summarise(result: StepResult, plan: Plan, *, waiting: int) -> None:
    """The step's commit subject and the digest lines after the fixes."""
    if plan.rechecked:
        result.body.append(f"- re-checked the claims of {len(plan.rechecked)} more files")
    if plan.deferred:
        capped = len(plan.deleted) >= plan.cap
        why = f"deletion cap reached ({plan.cap} a night)" if capped else "forgotten.md is full"
        result.body.append(
            f"- {why}: {waiting} "
            f"deletions wait for the next night in {', '.join(sorted(set(plan.deferred)))}"
        )
    result.body += [f"{FAILED} {x}" for x in plan.failed]
    if plan.unverified:
        result.body.append(f"- unverified (nothing could check them): {', '.join(plan.unverified)}")
    verified = sum(1 for op in result.ops if isinstance(op, ReplaceEntry))
    result.body.append(
        f"- checked {len(plan.selected)} files ({', '.join(plan.selected) or 'none'}); "
        f"{verified} entries verified or fixed"
    )
    result.facts = {"plan": plan, "calls": 0}
    result.subject = (
        f"{len(plan.fixed)} fixed, {len(plan.deleted)} deleted"
        + (f" ({len(plan.deferred)} deferred: cap {plan.cap})" if plan.deferred else "")
        + f", {len(plan.selected)} files checked"
    )


def _check_file(
    ctx: Context,
    path: str,
    checker: Checker,
    result: StepResult,
    plan: Plan,
    deletions: list[Deletion],
    fixes: list[str],
    *,
    claims_only: bool = False,
) -> bool:
    """Check every entry of `path`; True when some entry could not be checked. With
    `claims_only`, entries without a claim are skipped (a re-check of claims, not of prose)."""
    today = ctx.today.isoformat()
    unknown = False
    for entry in ctx.doc(path).entries:
        pairs = checker.check(path, entry)
        if claims_only and not pairs:
            continue
        plan.failed += [f"{path}: {v.verifier}: {v.evidence}" for _, v in pairs if v.failed]
        statuses = {v.status for _, v in pairs}
        if not pairs or NOT_CHECKABLE in statuses:
            unknown = True
        wrong = [(c, v) for c, v in pairs if v.status == UNFIXABLE]
        fixable = [(c, v) for c, v in pairs if v.status == FIXABLE and v.fix is not None]
        if wrong:
            deletions.append(Deletion(path, entry, _evidence(wrong)))
            continue
        if fixable:
            new = cl.apply_fixes(entry.text, [(c, v.fix or "") for c, v in fixable])
            try:
                tombstones.check(new, tombstones.load(ctx.tree.get(tombstones.PATH)))
                tombstones.check(new, ctx.cold_stones())  # rolled out, still never re-written
            except TombstoneConflict:
                deletions.append(
                    Deletion(path, entry, _evidence(fixable) + "; the fix is forgotten")
                )
                continue
            meta = entry.with_meta(verified=today).meta
            result.ops.append(ReplaceEntry(path, entry.text, new, meta))
            fixes.append(f"- fixed {path}: {_quote(entry.text)} → {_quote(new)}")
            fixes.append(f"  evidence: {_evidence(fixable)}")
            plan.fixed.append(path)
        elif _proves(pairs) and entry.get("verified") != today and not claims_only:
            # a re-check that finds the claim still true writes nothing: no nightly churn
            meta = entry.with_meta(verified=today).meta
            result.ops.append(ReplaceEntry(path, entry.text, entry.text, meta))
    return unknown


def _proves(pairs: Checked) -> bool:
    """A claim about the world was found true: a [[link]] to a file that exists says nothing
    of the fact (and `verified:` promotes an agent's entry: memory/dream/promote.py)."""
    return any(v.status == TRUE and c.kind != cl.LINK for c, v in pairs)


def _recheck(
    ctx: Context,
    checker: ClaimChecker,
    done: set[str],
    budget: int,
    result: StepResult,
    plan: Plan,
    deletions: list[Deletion],
    fixes: list[str],
) -> list[str]:
    """Re-check the claims of the files not checked tonight, least recently checked first,
    until `budget` verifier calls are spent. Returns the files re-checked."""
    start = checker.verifiers.calls
    order = sorted(
        (p for p in checkable(ctx) if p not in done and checker.wants(ctx, p)),
        key=lambda p: (ctx.state.checked.get(p, ""), p),
    )
    out: list[str] = []
    for path in order:
        if checker.verifiers.calls - start >= budget:
            break
        before = checker.verifiers.calls
        _check_file(ctx, path, checker, result, plan, deletions, fixes, claims_only=True)
        if checker.verifiers.calls > before:
            out.append(path)
    return out


def _deletions(
    ctx: Context,
    plan: Plan,
    found: list[Deletion],
    stones: set[str],
    today: str,
    body: list[str],
) -> list[Operation]:
    ops: list[Operation] = []
    # bytes forgotten.md can still take: a deletion whose tombstone does not fit waits like one
    # over the cap (the night's roll-over makes room when it can), and the fixes are written
    room = MAX_FILE_BYTES - len(ctx.tree.get(tombstones.PATH, "").encode("utf-8")) - 200
    for path, entry, evidence in found:
        key = fmt.normalise(entry.text)
        text, meta = tombstones.entry_for(
            entry, path=path, removed=today, by=DREAM_BY, reason=f"wrong: {evidence}"
        )
        fresh = bool(key) and key not in stones
        cost = len(fmt.render_entry(text, meta).encode("utf-8")) + 1 if fresh else 0
        if len(plan.deleted) >= plan.cap or cost > room:
            plan.deferred.append(path)
            why = "forgotten.md is at its size cap; " if cost > room else ""
            body.append(f"- deferred {path}: {_quote(entry.text)} ({why}evidence: {evidence})")
            continue
        plan.deleted.append(path)
        ops.append(RemoveEntry(path, entry.text))
        if fresh:
            stones.add(key)
            room -= cost
            ops.append(AddEntry(tombstones.PATH, text, meta, title=tombstones.TITLE))
        body.append(f"- deleted {path}: {_quote(entry.text)}")
        body.append(f"  evidence: {evidence}")
    return ops
