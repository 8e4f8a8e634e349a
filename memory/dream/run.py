"""One dream: the steps in order, each its own commit by the dreaming identity, resumable.

Every step commits by DREAMER with message "dream(<step>): …", key="dream:<run id>:<step>" and
trailers {"Hippo-Dream": <run id>} (memory/dream/commit.py: its operations applied once, by
the write path's rules, to the dream's tree, and that result committed). The run id is the
night's date, so a rerun the same night finds each step's key already in history and writes
nothing again; a dream that crashed between steps continues with the first step whose key is
missing. The state step marks the night done in `.dream/state.json`; after it a rerun returns at
once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from functools import partial

import memory.archive.forgotten as forgotten
import memory.dream.commit as committing
import memory.dream.consolidate_lessons as outcomes
import memory.facts.tombstones as tombstones
import memory.format.version as version
import memory.git.trees as trees
import memory.trust.proposals as proposals
import memory.trust.rules as trust
from memory.dream import (
    corrections,
    daily,
    index,
    layout,
    lessons,
    plain_git,
    proposing,
    tag_vocabulary,
    tidy,
    unused,
)
from memory.dream import state as st
from memory.dream.changes import RenameFinder, changed_since, unmerged_since
from memory.dream.checkable_claims import known_repos
from memory.dream.collector import fewer_collections
from memory.dream.commit import LIST_TRAILERS, stats
from memory.dream.context import Context, StepResult, is_topic
from memory.dream.judged import Judge
from memory.dream.report import Report, StepReport
from memory.dream.select import deletion_cap
from memory.dream.verifiers import MemoryLinks, Verifiers
from memory.errors import MemoryStoreError
from memory.git.store import Store
from memory.reminders import dream as reminder_check

STEPS = ("daily", "outcomes", "corrections", "tidy", "tags", "lessons", "layout", "index", "state")


def night_of(now: datetime) -> str:
    """The run id: the date of the day a dream at `now` looks back on (03:00 → yesterday)."""
    return (now - timedelta(hours=12)).date().isoformat()


@fewer_collections
def dream(
    store: Store,
    *,
    now: datetime,
    verifiers: Verifiers | None = None,
    checker: corrections.Checker | None = None,
    writer: daily.DailyWriter | None = None,
    learner: lessons.Learner | None = None,
    titler: layout.Titler | None = None,
    confirm: Judge | None = None,
    recall: Mapping[str, int] | None = None,
    last_read: Mapping[str, str] | None = None,
    allowed_hosts: tuple[str, ...] = (),
    limit: int = 25,
    recheck_calls: int = corrections.RECHECK_CALLS,
    after_step: Callable[[str], None] | None = None,
) -> Report:
    """Run (or continue) tonight's dream on `store`; `now` is local time in the team's zone."""
    run_id = night_of(now)
    head = store.sync() or store.head()
    tree = trees.texts(store.mirror.repo, head)  # the night's copy of every file's text
    version.check(tree.get(st.PATH))  # a newer hippo's memory: refused before any step
    report = Report(run_id, head=head)
    foreign = plain_git.foreign_state(store) if st.PATH in tree else None
    if foreign is None:
        state = st.State.load(tree.get(st.PATH))
    else:
        # a state dreaming did not write (a plain push): ignored, and the digest says so
        state = st.State.load(plain_git.dreamers_state(store))
        report.extra["foreign_state"] = f"{foreign.short} by {foreign.author}"
    if state.last_run == run_id:
        return recorded(store, report, tree, state)
    if roll_tombstones(store, report, tree, now.date()):  # the night reads the tree after it
        head = store.head()
        tree = trees.texts(store.mirror.repo, head)
    report.steps += rolled_tonight(store, run_id)
    cold = forgotten.lazily(lambda: forgotten.cold_stones(store))
    finder = RenameFinder(store, state.last_commit)
    ctx = Context(
        run_id=run_id,
        today=now.date(),
        tree=tree,
        state=state,
        changed=frozenset(changed_since(store, state.last_commit, head)),
        recall=dict(recall or {}),
        renamed=finder,
        confirm=confirm,
        brought_back=lambda path, text: _pushed(store, path, text),
        apart=frozenset(state.apart)
        | unmerged_since(store, state.last_commit, tree.get(tombstones.PATH), rolled=cold),
        base=head,
        cold_stones=cold,
        forgotten=tree.get(tombstones.PATH, ""),
    )
    ctx.apart |= _settled_proposals(store, state.last_commit, tree)
    verifiers = verifiers or Verifiers()
    verifiers.verifiers.append(MemoryLinks(lambda p: p in ctx.tree, finder))
    repos = known_repos(ctx.tree)
    from memory.dream import declared_checks  # pydantic, yaml: with a dream, not a process

    declared, report.extra["checks_errors"] = declared_checks.tonight(ctx.tree)  # .hippo/
    recheck = corrections.ClaimChecker(verifiers, allowed_hosts, repos=repos, declared=declared)
    if checker is not None and declared:  # Claude reads entries; the team's checks are in code
        checker = declared_checks.WithDeclared(checker, declared, verifiers)
    steps = _steps(ctx, writer, checker or recheck, recheck, limit, recheck_calls)
    steps = _with_proposals(steps, ctx, learner, titler)
    lists = _run_steps(store, ctx, report, steps, after_step)
    reminder_check.run(
        store, ctx, verifiers, report, partial(committing.step, store, ctx, report, lists=lists)
    )
    report.claims_checked = verifiers.calls
    _record_state(store, ctx, report, lists, now)
    if last_read is not None:
        # nobody's reads are known without the counts: then nothing is listed as unused
        report.unused = unused.candidates(ctx.tree, last_read, now.date(), repos=repos)
    report.daily_path = f"daily/{report.run_id}.md"
    report.daily_text = ctx.tree.get(report.daily_path, "")
    # agents' deletions and edits of entries they may not change, for a person to settle
    report.extra["proposals"] = proposals.pending(ctx.tree)
    return report


TIDY_REMOVALS = ("- merged ", "- expired ", "- removed resurrected ")  # tidy's body lines


def _steps(
    ctx: Context,
    writer: daily.DailyWriter | None,
    checker: corrections.Checker,
    recheck: corrections.ClaimChecker,
    limit: int,
    budget: int,
) -> dict[str, Callable[[], StepResult]]:
    """Tonight's steps in order, each made when its turn comes (it reads the steps before)."""
    return {
        "daily": lambda: daily.run(ctx, writer),
        "outcomes": lambda: outcomes.run(ctx),
        "corrections": lambda: corrections.run(
            ctx, checker, limit=limit, recheck=recheck, budget=budget
        ),
        "tidy": lambda: tidy.run(ctx),
        "tags": lambda: StepResult("tags"),  # one commit per merge: _tag_merges
        "index": lambda: index.run(ctx),
    }


def _with_proposals(
    steps: dict[str, Callable[[], StepResult]],
    ctx: Context,
    learner: lessons.Learner | None,
    titler: layout.Titler | None,
) -> dict[str, Callable[[], StepResult]]:
    """The steps with the dream's proposals (lessons, layout) before the index, as STEPS."""
    proposing_steps = {
        "lessons": lambda: lessons.run(ctx, learner),
        "layout": lambda: layout.run(ctx, titler),
    }
    return {name: ({**steps, **proposing_steps})[name] for name in STEPS if name != "state"}


def roll_tombstones(store: Store, report: Report, tree: Mapping[str, str], today: date) -> bool:
    """Before the steps: forgotten.md over its high-water mark sheds its oldest months into the
    cold store (memory/archive/forgotten.py), each month its own commit listed with the steps
    (`forgotten:<month>`, revertable), so tonight's merges and forgets have room. True when a
    commit landed. A failure is said in the digest and left for the next night."""
    if len(tree.get(tombstones.PATH, "").encode("utf-8")) <= forgotten.HIGH:
        return False  # the usual night: no fetch of the cold store
    try:
        rolled = forgotten.roll(store, today, trailers={committing.TRAILER: report.run_id})
    except MemoryStoreError as exc:  # the cold store unreachable, a record not arrived
        report.failed.append(f"forgotten.md roll-over: {exc}")
        return False
    return any(r.created for r in rolled)


def rolled_tonight(store: Store, run_id: str) -> list[StepReport]:
    """Tonight's roll-over commits, oldest first, as steps of the night (a night that resumes
    after a crash, or is read back once done, lists them too)."""
    found = [
        c
        for c in reversed(store.log(limit=100))
        if c.trailers.get(committing.TRAILER) == run_id and forgotten.MONTH_TRAILER in c.trailers
    ]
    out = []
    for c in found:
        diff = store.diff(c.sha)
        name = f"forgotten:{c.trailers[forgotten.MONTH_TRAILER]}"
        out.append(StepReport(name, c.sha, diff.commit.message, stats(diff)))
    return out


def _settled_proposals(store: Store, last: str | None, tree: Mapping[str, str]) -> set[str]:
    """The dream's proposals a person settled (accepted or dropped) since the last dream: kept
    apart for good (memory/dream/proposing.py)."""
    if not last:
        return set()
    try:
        before = store.read_or_none(trust.PROPOSALS, last)
    except MemoryStoreError:  # the last dream's commit is gone (a rewritten history)
        return set()
    return proposing.settled(before, tree.get(trust.PROPOSALS))


def _pushed(store: Store, path: str, text: str) -> str:
    c = plain_git.brought_back(store, path, text)
    return f"{c.short} by {c.author}" if c is not None else ""


def _run_steps(
    store: Store,
    ctx: Context,
    report: Report,
    steps: Mapping[str, Callable[[], StepResult]],
    after_step: Callable[[str], None] | None,
) -> dict[str, list[str]]:
    """Run each step in order (committing it); return the files each trailer list named."""
    lists: dict[str, list[str]] = {k: [] for k in LIST_TRAILERS}
    for name, make in steps.items():
        if name == "tags":
            _tag_merges(store, ctx, report, lists)
            step = None
        else:
            step = committing.step(store, ctx, report, name, make, lists)
        if step is not None and name == "corrections":
            plan: corrections.Plan = step.facts["plan"]
            report.deleted, report.cap = len(plan.deleted), plan.cap
        if step is not None and name in ("daily", "outcomes"):
            report.activated += list(step.facts.get("activated", []))
        if step is not None and name == "outcomes":  # for the operational log (jobs/oplog.py)
            became, revoked = step.facts.get("activated", []), step.facts.get("revoked", 0)
            report.extra["outcomes"] = {"promotions": len(became), "revocations": revoked}
            report.extra["outcomes"] |= {  # what, for the operational log's records
                "activated": list(became),
                "revoked": list(step.facts.get("revoked_entries", [])),
            }
            report.extra["contradictions"] = list(step.facts.get("contradictions", []))
        if step is not None and name == "tidy":  # for the digest's Merge buttons
            report.extra["possible_duplicates"] = list(step.facts.get("possible", []))
            report.deleted += int(step.facts.get("removed", 0))  # merges, expiries, forgotten
        if after_step is not None:
            after_step(name)  # e.g. extend the workspace lock (the tests crash here)
    report.deferred = lists["deferred"]
    report.unverified = lists["unverified"]
    return lists


def _tag_merges(store: Store, ctx: Context, report: Report, lists: dict[str, list[str]]) -> None:
    """The tags step: each merge of tag spellings its own commit, so each reverts alone."""
    ctx.apart |= tag_vocabulary.unmerged(store, ctx.state.last_commit)  # kept in the state
    merges, waiting = tag_vocabulary.plan(ctx)
    for merge in merges:
        make = partial(tag_vocabulary.run, ctx, merge)
        committing.step(store, ctx, report, merge.name, make, lists)
    if waiting:
        report.extra["tags_waiting"] = waiting


def _record_state(
    store: Store, ctx: Context, report: Report, lists: dict[str, list[str]], now: datetime
) -> None:
    """Commit .dream/state.json for tonight: the last step of a night, which marks it done."""
    last = store.head()
    new_state = st.next_state(
        ctx.state,
        run_id=report.run_id,
        run_at=now.isoformat(timespec="seconds"),
        last_commit=last,
        checked=lists["checked"],
        today=now.date().isoformat(),
        verified=lists["verified"],
        unverified=lists["unverified"],
        deferred=lists["deferred"],
        existing=[p for p in ctx.tree if p.endswith(".md")],
        apart=ctx.apart,
        resurrected=_resurrected(ctx),
    )
    result = StepResult("state", [st.write_op(new_state)])
    result.subject = f"night {report.run_id}: {len(lists['checked'])} files checked"
    result.body = [
        f"- lastCommit {last[:12]}, {len(new_state.checked)} files ever checked",
        f"- unverified: {len(new_state.unverified)}, deferred: {len(new_state.deferred)}",
    ]
    committing.step(store, ctx, report, "state", lambda: result, lists)
    report.head = store.head()


def _resurrected(ctx: Context) -> set[str] | None:
    """Where a forgotten fact came back, to look at again tomorrow; when tidy did not look
    tonight (a night resumed after it, or refused), last night's list and tonight's changes
    (None: no night has looked at every file yet)."""
    if ctx.resurrected is not None:
        return ctx.resurrected
    if ctx.state.resurrected is None:
        return None
    return {*ctx.state.resurrected, *ctx.changed}


def recorded(store: Store, report: Report, tree: Mapping[str, str], state: st.State) -> Report:
    """Tonight's dream as history and state record it (it already ran): `skipped`, with its
    steps, so a digest lost to a crash after the state commit can still be posted."""
    report.skipped = True
    report.steps += rolled_tonight(store, report.run_id)
    night = f"dream:{report.run_id}:"
    merged = [  # the tags step: one commit per merge, keys dream:<night>:tags:<tag>, in order
        (c.trailers["Hippo-Key"][len(night) :], c.sha)
        for c in reversed(store.log(limit=100))
        if c.trailers.get("Hippo-Key", "").startswith(f"{night}tags:")
    ]
    for name in STEPS:
        found = merged if name == "tags" else [(name, store.find_key(night + name))]
        for step, done in found:
            if done is not None:
                diff = store.diff(done)
                report.steps.append(StepReport(step, done, diff.commit.message, stats(diff), True))
    fixes = next((s for s in report.steps if s.step == "corrections"), None)
    report.deleted = sum(1 for ln in fixes.body if ln.startswith("- deleted")) if fixes else 0
    tidied = next((s for s in report.steps if s.step == "tidy"), None)
    report.deleted += sum(1 for ln in tidied.body if ln.startswith(TIDY_REMOVALS)) if tidied else 0
    report.cap = deletion_cap(sum(1 for p in tree if is_topic(p)))
    report.deferred, report.unverified = list(state.deferred), list(state.unverified)
    report.daily_path = f"daily/{report.run_id}.md"
    report.daily_text = tree.get(report.daily_path, "")
    return report
