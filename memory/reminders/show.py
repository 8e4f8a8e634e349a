"""Reminders as people and agents read them: briefing lines, the digest's blocks, a listing.

Briefings list what is overdue and due today, always, and pending reminders (a trigger, an
expiry not yet passed) whose words share one with the task: "after the migration" comes up when
the task is the migration, not in every briefing. The digest lists what is due that day and
overdue, and what the dream closed. Memory text shown in Slack goes through `memory.markup`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from memory import markup
from memory.prompts.briefing import REMINDERS, Line, task_words
from memory.reminders import model

MAX_BRIEFED = 10
MAX_LISTED = 10


def briefing_lines(text: str | None, task: str, today: date) -> list[Line]:
    """The reminders a briefing for `task` shows on `today` (reminders.md's `text`)."""
    words = set(task_words(task))
    out: list[Line] = []
    for r in model.open_on(model.parse(text), today, upcoming=False):
        if r.state(today) == "pending" and not words & set(task_words(r.text + " " + r.when)):
            continue
        where = f"{model.PATH}:{r.line}"
        status = r.state(today) + (", tentative" if r.agents else "")
        said = f"{r.text} ({r.when_said()}; {r.id})"
        out.append(Line(REMINDERS, said, r.source or where, status, where))
    return out[:MAX_BRIEFED]


def listing(reminders: Sequence[model.Reminder], today: date, *, closed: bool = False) -> str:
    """Plain text, one reminder a line: `r-1a2b3c [overdue] text (due 2026-12-16)`."""
    shown = model.open_on(reminders, today) + (
        [r for r in reminders if r.done is not None] if closed else []
    )
    if not shown:
        return "No open reminders." if not closed else "No reminders."
    lines = []
    for r in shown:
        state = r.state(today) + (", tentative" if r.agents else "")
        tail = f"; done {r.done}: {r.reason}" if r.done else ""
        lines.append(f"{r.id} [{state}] {r.text} ({r.when_said()}{tail})")
    return "\n".join(lines)


def slack_listing(reminders: Sequence[model.Reminder], today: date) -> str:
    """The open reminders for a Slack reply (memory text escaped)."""
    shown = model.open_on(reminders, today)
    if not shown:
        return "No open reminders. Add one: `@hippo remind the team to <what> on <when>`."
    lines = [f"*Open reminders* ({len(shown)}):"]
    for r in shown[:MAX_LISTED]:
        state = r.state(today) + (", tentative" if r.agents else "")
        lines.append(f"• `{r.id}` [{state}] {markup.slack(r.text)} ({markup.slack(r.when_said())})")
    if len(shown) > MAX_LISTED:
        lines.append(f"…and {len(shown) - MAX_LISTED} more (`hippo reminders`)")
    lines.append("Done with one? `/hippo reminders done ID [reason]`.")
    return "\n".join(lines)


def digest_blocks(found: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The digest's reminders: due today, overdue, closed by the dream tonight."""
    if not found:
        return []
    parts = []
    for key, title in (("due", "Reminders due today"), ("overdue", "Reminders overdue")):
        items = found.get(key) or []
        if items:
            rows = [f"• `{r['id']}` {markup.slack(str(r['text']))}" for r in items[:MAX_LISTED]]
            more = f"\n…and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
            parts.append(f"*{title}*\n" + "\n".join(rows) + more)
    closed = found.get("closed") or []
    if closed:
        rows = [
            f"• `{c['id']}` {markup.slack(c['text'])}: {markup.slack(c['reason'])}"
            for c in closed[:MAX_LISTED]
        ]
        parts.append("*Reminders closed by the dream*\n" + "\n".join(rows))
    if not parts:
        return []
    parts.append("Done with one? Press its button, or `/hippo reminders done ID [reason]`.")
    text = "\n\n".join(parts)
    out: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": text[:2900]}}
    ]
    return out + done_buttons([*(found.get("due") or []), *(found.get("overdue") or [])])


def done_buttons(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """An actions block with a **Done** button for each of the first open reminders (action
    ids `reminder_done_<n>`, value the id: bot/slack/reminders.py closes it as the presser)."""
    buttons = [
        {
            "type": "button",
            "action_id": f"reminder_done_{i}",
            "value": str(r["id"]),
            "text": {"type": "plain_text", "text": f"Done {r['id']}"},
        }
        for i, r in enumerate(items[:MAX_LISTED])
    ]
    return [{"type": "actions", "elements": buttons}] if buttons else []
