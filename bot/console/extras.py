"""Channel preferences (preferences/channels/*.md) and the outbox when Slack is not configured."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from bot.console.auth import author
from jobs.runtime import Runtime
from memory import format as fmt
from memory import writes
from memory.errors import MemoryStoreError

PREFIX = "preferences/channels/"
_CHANNEL = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$|^[CG][A-Z0-9]{6,}$")


def install(bp: Blueprint, rt: Runtime) -> None:
    def channels() -> list[tuple[str, list[fmt.Entry]]]:
        out = []
        for path in rt.store.files(PREFIX):
            if path.endswith(".md"):
                text = rt.store.read_or_none(path) or ""
                out.append((path, fmt.parse(text).entries))
        return out

    @bp.route("/preferences", methods=["GET", "POST"])
    def preferences() -> Any:
        form = {"channel": "", "text": ""}
        error = ""
        if request.method == "POST":
            form = {k: request.form.get(k, "").strip() for k in form}
            channel = form["channel"].lstrip("#")
            if not _CHANNEL.match(channel):
                error = "A channel is its name (lower case, like team-payments) or its id (C0…)."
            elif not form["text"]:
                error = "Write the instruction, e.g. 'answer in French'."
            else:
                who = author()
                op = writes.AddEntry(
                    f"{PREFIX}{channel}.md",
                    form["text"],
                    (("added", dt.date.today().isoformat()), ("by", who.name)),
                    title=f"How to behave in #{channel}",
                )
                try:
                    rt.store.write([op], author=who, message=f"preferences: #{channel}")
                    flash(f"Saved for #{channel}.", "ok")
                    return redirect(url_for("console.preferences"))
                except MemoryStoreError as exc:
                    error = str(exc)
        return render_template(
            "console/preferences.html", channels=channels(), form=form, error=error
        ), (422 if error else 200)

    @bp.get("/outbox")
    def outbox() -> Any:
        messages = [] if rt.config.slack_enabled else rt.outbox.messages(200)
        return render_template(
            "console/outbox.html", slack=rt.config.slack_enabled, messages=messages[::-1]
        )
