"""Demo step: the nightly dream on the day's memory, its digest, and a second run that changes
nothing. Without ANTHROPIC_API_KEY or GitHub settings every step runs deterministically."""

from __future__ import annotations

import json
from typing import Any

from demo.context import Demo
from jobs.dream import run_dream


def run(ctx: Demo) -> None:
    rt = ctx.rt
    ctx.heading("dream: tonight's pass (each step its own commit, any one revertible)")
    outcome = run_dream(rt)
    report = outcome.report
    if report is None:
        ctx.say(f"dream: {outcome.status}")
        return
    for step in report.steps:
        adds = sum(f[1] for f in step.files)
        dels = sum(f[2] for f in step.files)
        mark = step.commit[:8] if step.commit else "no change"
        ctx.say(f"{mark:>9}  {step.subject} (+{adds} −{dels})")
    ctx.say(f"claims sent to verifiers: {report.claims_checked}; deletions {report.deleted}")
    ctx.say(f"prompt snapshot published: version {outcome.snapshot}")

    ctx.heading("dream: the morning digest (console outbox; Block Kit in Slack)")
    digest = _last_digest(rt.poster)
    ctx.say(digest["text"] if digest else "(no digest posted)")
    if digest:
        ctx.say(
            f"{len(digest.get('blocks') or [])} Block Kit blocks, with a Revert button per step"
        )

    ctx.heading("dream: inbox.md after tidy (the two staging notes are one entry, both sources)")
    ctx.say(rt.store.read("inbox.md").rstrip())

    ctx.heading("dream: MEMORY.md after the index step")
    ctx.say(rt.store.read("MEMORY.md").rstrip())
    state = json.loads(rt.store.read(".dream/state.json"))
    checked = len(state.get("checked", {}))
    ctx.say(f".dream/state.json: lastRun {state.get('lastRun')}, {checked} files checked")

    again = run_dream(rt)
    ctx.say(f"a second dream the same night: {again.status} (nothing changes)")


def _last_digest(poster: Any) -> dict[str, Any] | None:
    messages = getattr(poster, "messages", None)
    if messages is None:
        return None
    found = [m for m in messages() if m.get("blocks")]
    return found[-1] if found else None
