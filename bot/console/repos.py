"""Repository preferences (preferences/repos/<owner>/<repo>.md)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from bot.console.auth import author
from jobs.runtime import Runtime
from memory import format as fmt
from memory import repo_prefs, writes
from memory.errors import MemoryStoreError


def install(bp: Blueprint, rt: Runtime) -> None:
    def repos() -> list[tuple[str, str, list[fmt.Entry]]]:
        out = []
        for path in rt.store.files(repo_prefs.PREFIX):
            name = path[len(repo_prefs.PREFIX) : -3]
            if path.endswith(".md") and repo_prefs.is_repo(name):
                text = rt.store.read_or_none(path) or ""
                out.append((name, path, fmt.parse(text).entries))
        return out

    @bp.route("/repos", methods=["GET", "POST"])
    def repo_preferences() -> Any:
        form = {"repo": "", "text": ""}
        error = ""
        if request.method == "POST":
            form = {k: " ".join(request.form.get(k, "").split()) for k in form}
            who = author()
            try:
                repo = repo_prefs.check_repo(form["repo"])
                if not form["text"]:
                    raise repo_prefs.BadRepo("write the preference, e.g. 'assess billing impact'")
                op = writes.AddEntry(
                    repo_prefs.path_for(repo),
                    form["text"],
                    (("added", dt.date.today().isoformat()), ("by", who.name)),
                    title=repo_prefs.title_for(repo),
                )
                rt.store.write([op], author=who, message=f"preferences: {repo}")
                flash(f"Saved for {repo}.", "ok")
                return redirect(url_for("console.repo_preferences"))
            except MemoryStoreError as exc:
                error = str(exc)
        page = render_template("console/repos.html", repos=repos(), form=form, error=error)
        return page, (422 if error else 200)
