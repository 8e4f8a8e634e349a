"""Reminders as the memory holds them: entries of `reminders.md` (decision 17), read into
`Reminder`s with an id, a time and a state on a given day. Pure: texts in, reminders out.

    - remove the feature flag after 15 December [due: 2026-12-16; added: 2026-12-02; by: U1]
    - re-check the rate limit after the migration [when: after the migration; added: …]
    - mention the deploy freeze [until: 2026-12-20; added: …]
    - … [due: 2026-12-16; …; done: 2026-12-17; reason: closed by U1 in Slack: flag removed]

A reminder is **upcoming** before its due date, **due** on it, **overdue** after it, **pending**
while it waits for a trigger or runs until an expiry, and **done** once closed (`done:` and
`reason:`; the entry stays, as history). Its id (`r-1a2b3c`) is a hash of its words, so it stays
the same whatever its metadata, in every door.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from memory import format as fmt

PATH = fmt.REMINDERS
TITLE = "Reminders: what to do later, and when"
DUE, UNTIL, WHEN, DONE = "due", "until", "when", "done"
KEYS = frozenset({DUE, UNTIL, WHEN, DONE})
State = Literal["upcoming", "due", "overdue", "pending", "done"]
SHOWN: tuple[State, ...] = ("overdue", "due", "pending")  # what briefings list, in this order


def reminder_id(text: str) -> str:
    """The id of the reminder whose text is `text`: the same for any spelling of its words."""
    return "r-" + hashlib.sha1(fmt.fact_key(text).encode("utf-8")).hexdigest()[:6]


@dataclass(frozen=True)
class Reminder:
    id: str
    text: str
    line: int  # 1-based, in reminders.md
    due: date | None
    until: date | None
    when: str
    done: date | None
    reason: str
    by: str
    status: str  # the entry's `status:` ("tentative" for an agent's), "" for a person's
    source: str
    entry: fmt.Entry

    @property
    def agents(self) -> bool:
        return self.status.strip().lower() == "tentative"

    def state(self, today: date) -> State:
        if self.done is not None:
            return "done"
        if self.due is not None:
            return "due" if self.due == today else "overdue" if self.due < today else "upcoming"
        return "pending"

    def expired(self, today: date) -> bool:
        """An expiry reminder whose last day has passed: the dream closes it."""
        return self.done is None and self.until is not None and self.until < today

    def when_said(self) -> str:
        """When it is due, in words: "due 2026-12-16", "until 2026-12-20", "after the migration"."""
        parts = [f"due {self.due}" if self.due else "", f"until {self.until}" if self.until else ""]
        parts.append(self.when)
        return "; ".join(p for p in parts if p) or "no time given"

    def as_dict(self, today: date) -> dict[str, str | int]:
        return {
            "id": self.id,
            "text": self.text,
            "state": self.state(today),
            "due": self.due.isoformat() if self.due else "",
            "until": self.until.isoformat() if self.until else "",
            "when": self.when,
            "done": self.done.isoformat() if self.done else "",
            "reason": self.reason,
            "by": self.by,
            "status": self.status,
            "source": self.source,
            "path": PATH,
            "line": self.line,
        }


def of_entry(entry: fmt.Entry) -> Reminder:
    return Reminder(
        id=reminder_id(entry.text),
        text=entry.text,
        line=entry.line + 1,
        due=_date(entry.get(DUE)),
        until=_date(entry.get(UNTIL)),
        when=entry.get(WHEN) or "",
        done=_date(entry.get(DONE)),
        reason=entry.get("reason") or "",
        by=entry.get("by") or "",
        status=entry.get("status") or "",
        source=entry.get("source") or "",
        entry=entry,
    )


def parse(text: str | None) -> list[Reminder]:
    """Every reminder in reminders.md's `text` (None: no file yet), in file order."""
    return [of_entry(e) for e in fmt.parse(text or "").entries] if text else []


def open_on(reminders: Iterable[Reminder], today: date, *, upcoming: bool = True) -> list[Reminder]:
    """The reminders not closed: overdue first (oldest due first), then due today, pending,
    and (when `upcoming`) those due later, soonest first."""
    states = (*SHOWN, "upcoming") if upcoming else SHOWN
    live = [r for r in reminders if r.state(today) in states]
    return sorted(live, key=lambda r: (states.index(r.state(today)), r.due or date.max, r.line))


def find(reminders: Iterable[Reminder], rid: str) -> Reminder | None:
    """The reminder with id `rid` ("r-1a2b3c", "1a2b3c" or a unique start of it)."""
    want = rid.strip().lower().removeprefix("r-")
    hits = [r for r in reminders if want and r.id[2:].startswith(want)]
    return hits[0] if len(hits) == 1 else None


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value.strip()) if value else None
    except ValueError:
        return None  # lint reports it (bad-date); the write path never commits one
