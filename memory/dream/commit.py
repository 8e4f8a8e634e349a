"""One dream step's commit: its operations applied once, to the dream's own tree, and that result
committed (memory/git/prepared.py) rather than applied again by the store.

A step's operations are applied by the write path's rules to the tree the dream holds
(`Context.tree`, the tree of commit `Context.base`): the result is both what the next step
reads and the commit's content. The store commits it as is while its tip is still `base` (the
dream is the only writer most nights); if someone wrote meanwhile, it applies the operations
anew on the new tip, as it does any write, and from then on the night writes the old way (each
step's operations applied by the store, the dream's tree following them): the dream's tree no
longer is any commit's tree.

Every step commits by the dreaming identity with `key="dream:<run id>:<step>"`, so a rerun the
same night finds the key in history and writes nothing again (`_replay` reads back what it did).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import memory.facts.tombstones as tombstones
import memory.git.prepared as prepared
from memory import format as fmt
from memory.dream import corrections
from memory.dream.context import Context, StepResult, folder_test
from memory.dream.report import FileStat, Report, StepReport
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.git.batch import DREAMER, Prepared, WriteResult
from memory.git.store import Store
from memory.writes.operations import AddEntry, Applied, ReplaceEntry, paths_of
from memory.writes.validate import MAX_TRAILER_CHARS

TRAILER = "Hippo-Dream"
LIST_TRAILERS = {"checked": "Hippo-Dream-Checked", "unverified": "Hippo-Dream-Unverified"}
LIST_TRAILERS |= {"deferred": "Hippo-Dream-Deferred", "verified": "Hippo-Dream-Verified"}


def step(
    store: Store,
    ctx: Context,
    report: Report,
    name: str,
    make: Callable[[], StepResult],
    lists: dict[str, list[str]],
) -> StepResult | None:
    """Commit one step unless an earlier run of this night already did; record it in `report`."""
    key = f"dream:{report.run_id}:{name}"
    done = store.find_key(key)
    if done is not None:
        _replay(store, report, name, done, lists)
        return None
    started = time.perf_counter()
    result = make()
    trailers, found = _trailers(report.run_id, name, result)
    if not result.ops:
        for k, values in found.items():
            lists[k] += values
        seconds = time.perf_counter() - started
        report.steps.append(StepReport(name, None, result.message(), seconds=seconds))
        return result
    try:
        written, ready = _write(store, ctx, result, key, trailers)
    except (RemoteError, LockTimeout):
        raise  # transient: the task retries, and the rerun continues from this step
    except MemoryStoreError as exc:
        # refused (a secret, a forgotten fact, a conflict): this step writes nothing tonight,
        # the other steps go on, and the digest says why
        report.failed.append(f"{name}: {exc}")
        seconds = time.perf_counter() - started
        message = f"dream({name}): not written: {exc}"
        report.steps.append(StepReport(name, None, message, seconds=seconds))
        return None
    for k, values in found.items():
        lists[k] += values  # written: tonight's checks count (a refused step checked nothing)
    commit = written.commit if written.created else None
    if commit:
        _follow(ctx, result, ready)
    ctx.base = _next_base(store, ctx.base, written, ready)
    files = stats(store.diff(commit)) if commit else []
    seconds = time.perf_counter() - started
    report.steps.append(StepReport(name, commit, result.message(), files, seconds=seconds))
    return result


def _write(
    store: Store, ctx: Context, result: StepResult, key: str, trailers: dict[str, str]
) -> tuple[WriteResult, prepared.Ready | None]:
    """The step's commit: applied once (here) while the dream's tree is a commit's tree; by
    the store alone once it is not (`Context.base` None). A refusal raises either way."""
    message = result.message()
    if ctx.base is None:
        written = store.write(
            result.ops, author=DREAMER, message=message, key=key, trailers=trailers
        )
        return written, None
    ready = _prepare(ctx, ctx.base, result)
    return prepared.write(store, ready, message=message, key=key, trailers=trailers), ready


def _prepare(ctx: Context, base: str, result: StepResult) -> prepared.Ready:
    scratch = result.facts.get("tree")
    if not isinstance(scratch, dict):
        return prepared.prepare(
            result.ops,
            base,
            ctx.tree.get,
            author=DREAMER,
            folder=folder_test(ctx.tree),
            parsed=ctx.parsed,
        )
    # tidy applied its parts one after another to a copy of the tree (Context.apply: the same
    # rules, dreaming's flags): the files its operations name, as that copy holds them now
    paths = {p for op in result.ops for p in paths_of(op)}
    changes = {p: scratch.get(p) for p in sorted(paths) if scratch.get(p) != ctx.tree.get(p)}
    return prepared.Ready(tuple(result.ops), DREAMER, False, Prepared(base, Applied(changes)))


def _next_base(
    store: Store, base: str | None, written: WriteResult, ready: prepared.Ready | None
) -> str | None:
    """The commit whose tree the dream's tree is after this write, or None: the store's tip
    moved under the dream (another writer), so its tree is no commit's tree any more."""
    if ready is None or base is None:
        return None
    if not written.created:
        return base if written.commit == base else None
    return written.commit if prepared.landed_on(store, written.commit) == base else None


def _follow(ctx: Context, result: StepResult, ready: prepared.Ready | None) -> None:
    """The next step reads what this one wrote: the tree as committed; the entries it wrote are
    `touched` (later steps leave them until the next night)."""
    for op in result.ops:
        if isinstance(op, AddEntry | ReplaceEntry) and op.path != tombstones.PATH:
            ctx.touched.setdefault(op.path, set()).add(fmt.fact_key(op.text))
    scratch = result.facts.get("tree")
    if isinstance(scratch, dict):
        ctx.tree = scratch
    elif ready is not None:
        ctx.take(ready.applied.changes)
    else:
        ctx.apply(result.ops)  # as the store applied them (its tip had moved)


def _replay(
    store: Store, report: Report, name: str, done: str, lists: dict[str, list[str]]
) -> None:
    """A step an earlier run of this night committed: its trailer lists and its report."""
    diff = store.diff(done)
    for k, trailer in LIST_TRAILERS.items():
        for key, value in diff.commit.trailers.items():
            if key == trailer or (
                key.startswith(f"{trailer}-") and key[len(trailer) + 1 :].isdigit()
            ):
                lists[k] += [p for p in value.split(",") if p]
    report.steps.append(StepReport(name, done, diff.commit.message, stats(diff), True))


def _trailers(
    run_id: str, name: str, result: StepResult
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The step's commit trailers, and the files corrections selected, verified, deferred…"""
    trailers = {TRAILER: run_id}
    found: dict[str, list[str]] = {}
    if name == "corrections":
        plan: corrections.Plan = result.facts["plan"]
        for k in LIST_TRAILERS:
            found[k] = sorted(set(getattr(plan, "selected" if k == "checked" else k)))
            for i, part in enumerate(_chunks(found[k])):
                trailers[LIST_TRAILERS[k] + (f"-{i + 1}" if i else "")] = part
    return trailers, found


def _chunks(paths: list[str]) -> list[str]:
    """`paths` comma-joined in trailer values of at most MAX_TRAILER_CHARS each (a night that
    defers hundreds of deletions names more files than one trailer holds: the step was refused
    whole). The trailers are `<name>`, `<name>-2`, `<name>-3`…; `_replay` reads them all."""
    out: list[str] = []
    for p in paths:
        if out and len(out[-1]) + 1 + len(p) <= MAX_TRAILER_CHARS:
            out[-1] += "," + p
        else:
            out.append(p)
    return out


def stats(diff: Any) -> list[FileStat]:
    return [FileStat(f.path, f.additions, f.deletions) for f in diff.files]
