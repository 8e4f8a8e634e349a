"""The dream's reminder check: close what has passed or happened, each close its own commit.

Modest and deterministic: an expiry (`until:`) whose date has passed is closed ("until
2026-12-20 passed"); a trigger on a pull request (`when: after acme/shop#12 is merged`) is
closed when the GitHub verifier says it is merged (or closed). A due date is never closed by the
dream: being due is the point, a person says it is done. Nothing else is guessed.

Each close is a step of its own (`dream(reminders:<id>)`, key `dream:<night>:reminders:<id>`),
so the digest's Revert or `git revert` undoes one alone, and a reverted close stays open (the
state's `apart`); a reminder next to a line an earlier step wrote tonight waits for the next
night, as every step's edits do.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from memory.dream.checkable_claims import PR, Claim
from memory.dream.context import Context, StepResult
from memory.dream.verifiers import TRUE, Verifiers
from memory.errors import MemoryStoreError
from memory.git.store import Store
from memory.reminders import model, timing
from memory.reminders.write import close_op

MAX_CLOSES = 20  # a night; the rest the next night
APART = "reminder:"  # the state's `apart`: reminders a person reopened by reverting a close
LOG_LIMIT = 500  # commits since the last dream read for reverted closes
_REVERTED = re.compile(r'"dream\(reminders:(r-[0-9a-f]{6})\)')
Step = Callable[[str, Callable[[], StepResult]], Any]


def why_closed(reminder: model.Reminder, today: date, verifiers: Verifiers) -> str | None:
    """The reason the dream closes `reminder` tonight, or None to leave it open."""
    if reminder.done is not None:
        return None
    if reminder.expired(today):
        return f"until {reminder.until} passed (checked by the dream on {today})"
    pr = timing.pull_request(reminder.when) if reminder.when else None
    if pr is None:
        return None
    repo, number, state = pr
    claim = Claim(PR, f"{repo}#{number} {state}", reminder.text, (0, 0), repo, number, state)
    verdict = verifiers.check(claim)
    if verdict.status != TRUE:
        return None
    return f"{repo}#{number} is {state} ({verdict.evidence or verdict.verifier})"


def reopened(store: Store, last_commit: str) -> set[str]:
    """`apart` marks (`reminder:<id>`) for the dream's closes reverted since the last dream
    (hippo's revert and `git revert` both quote the close's subject): a person reopened it, so
    the dream never closes it again on its own."""
    if not last_commit:
        return set()
    try:
        commits = store.log(limit=LOG_LIMIT)
    except MemoryStoreError:
        return set()
    out: set[str] = set()
    for commit in commits:
        if commit.sha == last_commit:
            break
        out |= {APART + m[1] for m in _REVERTED.finditer(commit.summary)}
    return out


def run(store: Store, ctx: Context, verifiers: Verifiers, report: Any, step: Step) -> None:
    """Close tonight's reminders (each with `step(name, make)`, the dream's own commit), then
    put the reminders due today and those closed on `report.extra["reminders"]` for the digest.
    Reopened ones are kept in the state's `apart`."""
    ctx.apart |= reopened(store, ctx.state.last_commit)
    closed: list[dict[str, str]] = []
    for reminder in model.parse(ctx.tree.get(model.PATH)):
        if len(closed) >= MAX_CLOSES or ctx.settled(model.PATH, reminder.entry):
            continue
        if APART + reminder.id in ctx.apart:
            continue
        reason = why_closed(reminder, ctx.today, verifiers)
        if reason is None:
            continue
        op = close_op(reminder, str(ctx.today), reason)
        result = StepResult(f"reminders:{reminder.id}", [op])
        result.subject = f"reminder {reminder.id} done: {_short(reminder.text)}"
        result.body = [f"- {reason}"]
        step(result.step, lambda result=result: result)  # type: ignore[misc]
        closed.append({"id": reminder.id, "text": reminder.text, "reason": reason})
    now = model.parse(ctx.tree.get(model.PATH))
    report.extra["reminders"] = {
        "due": [r.as_dict(ctx.today) for r in now if r.state(ctx.today) == "due"],
        "overdue": [r.as_dict(ctx.today) for r in now if r.state(ctx.today) == "overdue"],
        "closed": closed,
    }


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"
