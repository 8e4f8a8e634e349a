"""Browse the tree, view a file with its entries and metadata, edit a file or one entry."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from bot.console.auth import author, current_user
from jobs.read_counts import ReadBy, count_read
from jobs.runtime import Runtime
from memory import format as fmt
from memory import writes
from memory.errors import InvalidPath, MemoryStoreError
from memory.prompts import snapshot

# Keys shown as their own column; the rest are listed as "key: value".
SHOWN = ("status", "verified", "added", "by")


def folders(paths: list[str]) -> list[tuple[str, list[str]]]:
    """Paths grouped by folder, root first: [('', [...]), ('daily', [...]), ...]."""
    groups: dict[str, list[str]] = {}
    for p in sorted(paths):
        folder, _, _ = p.rpartition("/")
        groups.setdefault(folder, []).append(p)
    return sorted(groups.items(), key=lambda kv: (kv[0] != "", kv[0]))


def parse_meta(raw: str) -> writes.Meta:
    """'key: value; key: value' from a form → ordered pairs; ValueError when it is not that."""
    raw = " ".join(raw.split())
    if not raw:
        return ()
    text, meta = fmt.split_metadata(f"x [{raw}]")
    if text != "x":
        raise ValueError("metadata must read 'key: value; key: value' (keys are single words)")
    return meta


def meta_text(meta: writes.Meta) -> str:
    """Metadata as typed in the entry form, escaped as in the file, so `parse_meta` reads the
    same values back (a ';' inside a value would otherwise split it)."""
    return "; ".join(f"{k}: {fmt.escape_value(v)}" for k, v in meta)


def is_url(value: str) -> bool:
    return value.startswith(("https://", "http://"))


def safe(path: str) -> str:
    """`path` when it is a valid memory path, else 400 saying why."""
    try:
        return writes.check_path(path)
    except InvalidPath as exc:
        abort(400, str(exc))


def install(bp: Blueprint, rt: Runtime) -> None:
    _install_browse(bp, rt)
    _install_edit(bp, rt)
    _install_entry(bp, rt)


def _install_browse(bp: Blueprint, rt: Runtime) -> None:
    @bp.get("/")
    def tree() -> str:
        return render_template("console/tree.html", groups=folders(rt.store.files()))

    @bp.get("/new")
    def new() -> Response:
        return redirect(url_for("console.edit", path=safe(request.args.get("path", "").strip())))

    @bp.get("/file/<path:path>")
    def file(path: str) -> Any:
        path = safe(path)
        text = rt.store.read_or_none(path)
        if text is None:
            return render_template("console/missing.html", path=path), 404
        user = current_user() or {}
        who = ReadBy(str(user.get("slack_id") or user.get("name") or ""), "console")
        count_read(rt.redis, rt.config.workspace, path, by=who)
        doc = fmt.parse(text)
        return render_template(
            "console/file.html",
            path=path,
            doc=doc,
            text=text,
            shown=SHOWN,
            is_url=is_url,
            link_target=fmt.link_target,
            last=next(iter(rt.store.log(path, limit=1)), None),
        )


def _install_edit(bp: Blueprint, rt: Runtime) -> None:
    @bp.route("/edit/<path:path>", methods=["GET", "POST"])
    def edit(path: str) -> Any:
        path = safe(path)
        current = rt.store.read_or_none(path)
        content = current or ""
        message, error = f"Edit {path}", ""
        if request.method == "POST":
            content = request.form.get("content", "").replace("\r\n", "\n")
            message = request.form.get("message", "").strip()
            if not message:
                error = "Say why in the commit message."
            else:
                try:
                    done = rt.store.write(
                        [writes.WriteFile(path, content)], author=author(), message=message
                    )
                    snapshot.publish_if_index_changed(rt.store, done)  # new threads see it
                    return redirect(url_for("console.file", path=path))
                except MemoryStoreError as exc:
                    error = str(exc)
        return render_template(
            "console/edit.html",
            path=path,
            content=content,
            message=message,
            error=error,
            new=current is None,
        ), (422 if error else 200)


def _install_entry(bp: Blueprint, rt: Runtime) -> None:
    @bp.route("/entry/<path:path>", methods=["GET", "POST"])
    def entry(path: str) -> Any:
        path = safe(path)
        text = rt.store.read_or_none(path)
        if text is None:
            return render_template("console/missing.html", path=path), 404
        form: dict[str, str] = {}
        error = ""
        if request.method == "POST":
            form = {k: request.form.get(k, "") for k in ("match", "text", "meta", "message")}
            result = _save_entry(rt, path, form)
            if isinstance(result, Response):
                return result
            error = result
        else:
            found = fmt.parse(text).entry_at(request.args.get("line", -1, type=int))
            if found is None:
                abort(404, f"no entry on that line of {path}; open the file again")
            form = {
                "match": found.text,
                "text": found.text,
                "meta": meta_text(found.meta),
                "message": f"Edit an entry in {path}",
            }
        return render_template("console/entry.html", path=path, form=form, error=error), (
            422 if error else 200
        )


def _save_entry(rt: Runtime, path: str, form: dict[str, str]) -> Response | str:
    """Replace one entry; a redirect to the file, or the error to show beside the kept input."""
    if not form["message"].strip():
        return "Say why in the commit message."
    if not form["text"].strip():
        return "An entry needs text; to remove it, edit the whole file."
    try:
        meta = parse_meta(form["meta"])
        op = writes.ReplaceEntry(path, form["match"], form["text"], meta)
        done = rt.store.write([op], author=author(), message=form["message"].strip())
        snapshot.publish_if_index_changed(rt.store, done)  # new threads see the edit
    except ValueError as exc:
        return str(exc)
    except MemoryStoreError as exc:
        return str(exc)
    return redirect(url_for("console.file", path=path))
