"""Adding and closing reminders: the rules every door (Slack, CLI, MCP) shares.

A reminder is one entry in `reminders.md`, added through the write path like a note (secrets,
tombstones, metadata rules; an agent's is stamped tentative by the trust rules). Closing adds
`done:` and `reason:` to the entry, one commit per close whose message gives the reason. An
agent may close an agent's tentative reminder, never a person's: refused here, with the reason,
so every door answers the same (the write path would also keep a person's entry as it is).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from memory.errors import NoteRejected, NotFound, ProtectedPath
from memory.git.batch import Author, WriteResult
from memory.git.store import Store
from memory.notes import clean_note
from memory.reminders import model, timing
from memory.writes.operations import AddEntry, ReplaceEntry

LIST_HINT = "`hippo reminders` (MCP `reminders`, Slack `/hippo reminders`) lists them"


@dataclass(frozen=True)
class Done:
    """What a door did: the reminder as written (or as it already was) and the commit."""

    reminder: model.Reminder
    result: WriteResult | None  # None: nothing written (it was there already)


def read(store: Store) -> list[model.Reminder]:
    """Every reminder at the newest tip (none on an empty memory)."""
    return model.parse(store.read_or_none(model.PATH)) if store.tip() else []


def add(
    store: Store,
    text: str,
    *,
    today: str,
    author: Author,
    by: str = "",
    source: str | None = None,
    due: str = "",
    when: str = "",
    key: str | None = None,
) -> Done:
    """Add a reminder. Its time is `due` (a date or a day: "2026-12-15", "friday") or `when`
    (a trigger) when given, else read from `text` (memory/reminders/timing.py); NoteRejected
    saying how to write one when neither names a time."""
    note = clean_note(text)
    day = date.fromisoformat(today)
    if due.strip():
        when_ = timing.given(due, day)
    elif when.strip():
        when_ = timing.Timing(when=" ".join(when.split()))
    else:
        when_ = timing.require(note, day)
    if when_.due is not None and when_.due < day:
        raise NoteRejected(
            f"the reminder would be due on {when_.due}, which has passed (today is {today}); "
            "give a day from today on"
        )
    there = model.find(read(store), model.reminder_id(note))
    if there is not None and there.done is None:
        return Done(there, None)  # the same words again: one reminder
    if there is not None:
        raise NoteRejected(
            f"{there.id} says that already and was closed on {there.done} ({there.reason}); "
            "reword the new reminder"
        )
    meta = list(when_.meta())
    meta += [("source", source)] if source else []
    meta += [("added", today)] + ([("by", by)] if by else [])
    result = store.write(
        [AddEntry(model.PATH, note, tuple(meta), title=model.TITLE)],
        author=author,
        message=f"remind: {_short(note)} ({'; '.join(f'{k} {v}' for k, v in when_.meta())})",
        key=key,
        source=source,
    )
    added = model.find(read(store), model.reminder_id(note))
    if added is None:  # the write path took it but the file does not hold it: say so
        raise NotFound(f"the reminder was not saved in {model.PATH}; try again")
    return Done(added, result)


def close(
    store: Store, rid: str, *, today: str, author: Author, reason: str = "", key: str | None = None
) -> Done:
    """Close the open reminder `rid`: `done: today` and `reason:` on it, one commit."""
    every = read(store)
    found = model.find(every, rid)
    if found is None:
        want = rid.strip().lower().removeprefix("r-")
        if sum(r.id[2:].startswith(want) for r in every) > 1:
            raise NotFound(f"{rid!r} starts more than one reminder's id; give more of it")
        raise NotFound(f"no reminder {rid!r}; {LIST_HINT}")
    if found.done is not None:
        return Done(found, None)  # closed already (a retried close changes nothing)
    if author.agent is not None and not found.agents:
        raise ProtectedPath(
            model.PATH,
            f"{found.id} is a person's reminder: an agent may not close it. Say it is done "
            "where a person sees it; a person closes it (Slack, `hippo reminders close`)",
        )
    why = " ".join(reason.split()) or f"closed by {author.name}"
    result = store.write(
        [close_op(found, today, why)],
        author=author,
        message=f"reminder done: {_short(found.text)}\n\n{why}",
        key=key,
    )
    closed = model.find(read(store), found.id)
    return Done(closed or found, result)


def close_op(reminder: model.Reminder, today: str, reason: str) -> ReplaceEntry:
    """The edit that closes `reminder`: its entry with `done:` and `reason:` added."""
    meta = (*reminder.entry.meta, (model.DONE, today), ("reason", reason))
    return ReplaceEntry(model.PATH, reminder.text, reminder.text, meta)


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"
