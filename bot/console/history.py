"""History of a file (git log), search over it (who added, changed or removed matching entries,
why, on what evidence: memory/git/changes.py), the diff of any commit, and revert."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for

from bot.console.auth import author
from jobs.runtime import Runtime
from memory import writes
from memory.errors import InvalidPath, MemoryStoreError, NoteRejected, NotFound
from memory.format import lines as textlines
from memory.git import changes
from memory.search.bounds import bound

_SHA = re.compile(r"^[0-9a-f]{4,40}$")


def line_class(line: str) -> str:
    """CSS class of one patch line."""
    if line.startswith(("+++", "---", "diff ", "index ")):
        return "meta"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    return ""


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.get("/history")
    @bp.get("/history/<path:path>")
    def history(path: str | None = None) -> Any:
        if path is not None:
            try:
                writes.check_path(path)
            except InvalidPath as exc:
                abort(400, str(exc))
        limit = min(request.args.get("limit", 100, type=int), 1000)
        query = request.args.get("q", "").strip()
        since = request.args.get("since", "").strip()
        if query or since:
            return _search(rt, path, query, since, min(limit, 200))
        return render_template(
            "console/history.html", path=path, commits=rt.store.log(path, limit=limit)
        )

    @bp.get("/commit/<sha>")
    def commit(sha: str) -> Any:
        return _show(rt, sha, "")

    @bp.post("/revert/<sha>")
    def revert(sha: str) -> Any:
        back = request.form.get("back", "")
        try:
            result = rt.store.revert(_checked(sha), author())
        except NotFound:
            abort(404, f"no commit {sha} in the memory")
        except MemoryStoreError as exc:
            if back.startswith("/console/"):
                flash(str(exc), "error")
                return redirect(back)
            return _show(rt, sha, str(exc), 409)
        if result.created:
            flash(f"Reverted {sha[:8]} as {result.commit[:8]}.", "ok")
        else:  # say so: nothing was undone (already undone, or nothing left to undo)
            flash(f"Nothing to revert: {sha[:8]}'s changes are not in the memory any more.", "ok")
        if back.startswith("/console/"):
            return redirect(back)
        return redirect(url_for("console.commit", sha=result.commit))


def _search(rt: Runtime, path: str | None, query: str, since: str, limit: int) -> Any:
    """The commits whose entry changes hold every word of `query` (all of them with none),
    since `since`; a bad date is answered on the page, with what was typed kept."""
    page: dict[str, Any] = {"path": path, "commits": [], "q": query, "since": since}
    try:
        when = changes.parse_since(since) if since else None
    except NoteRejected as exc:
        return render_template("console/history.html", **page, error=str(exc)), 400
    words = changes.needles(query)
    found = rt.store.search_history(words, limit=max(1, limit), since=when, path=path)
    note = bound(query).note  # what of a long query was not searched, said on the page
    return render_template("console/history.html", **page, found=found, note=note)


def _checked(sha: str) -> str:
    if not _SHA.match(sha):
        abort(400, "a commit id is 4 to 40 hex digits")
    return sha


def _show(rt: Runtime, sha: str, error: str, status: int = 200) -> Any:
    try:
        diff = rt.store.diff(_checked(sha))
    except NotFound:
        abort(404, f"no commit {sha} in the memory")
    return render_template(
        "console/commit.html",
        diff=diff,
        error=error,
        line_class=line_class,
        git_lines=textlines.split,  # a form feed in a patch line is not a new line
    ), status
