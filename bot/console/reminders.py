"""/console/reminders: the open reminders (overdue, due, pending, upcoming) and the closed ones,
each open one closed by the signed-in person with a reason (one commit, memory/reminders/)."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from bot.console.auth import author
from jobs.config import today
from jobs.runtime import Runtime
from memory.errors import MemoryStoreError
from memory.reminders import model, write


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.get("/reminders")
    def reminders_page() -> Any:
        day = date.fromisoformat(today(rt.config))
        found = write.read(rt.store)
        done = [r for r in found if r.done is not None]
        shown = [(r, r.state(day)) for r in model.open_on(found, day)]
        return render_template("console/reminders.html", open=shown, done=done, today=day)

    @bp.post("/reminders/<rid>")
    def close_reminder(rid: str) -> Any:
        who = author()
        reason = (
            request.form.get("reason") or ""
        ).strip() or f"closed by {who.name} in the console"
        try:
            closed = write.close(rt.store, rid, today=today(rt.config), author=who, reason=reason)
            flash(f"Closed {closed.reminder.id}: {closed.reminder.text}", "ok")
        except MemoryStoreError as exc:
            flash(str(exc), "error")
        return redirect(url_for("console.reminders_page"))
