"""The console over several memories: the team's, the signed-in person's own, the org's.

Every page reads one memory, named by `?memory=` (team by default, `me`, `org`); links and
forms the page makes keep it (`url_defaults`), so a person browses, edits, reverts and settles
within it. `me` is always the signed-in person's own memory, and only with Sign in with Slack:
the Slack user id Slack vouched for is whose memory it is, the same `me` as in Slack
(jobs/memories.py). No URL names a person, so nobody can open another's memory. Signed in with
the console token there is no personal memory (the token proves the team, not the person: its
name is typed). The org memory is read and written as a person, under the same trust rules as
the team's (memory/trust/): people edit; `.dream/` stays dreaming's.

A dream's digest links to `/m/<memory>/console/…` (jobs/memory_dreams.py), which lands on the
same page with `?memory=`.
"""

from __future__ import annotations

from typing import Any, cast

from flask import Blueprint, Flask, abort, g, has_request_context, redirect, request, url_for
from werkzeug.wrappers import Response

from bot.console.sessions import user as signed_in
from jobs import memories, people
from jobs.config import open_scopes
from jobs.runtime import Runtime
from memory.scopes import ME, ORDER, ORG, TEAM, UnknownMemory, normalise

NAMES = {TEAM: "Team", ME: "Mine", ORG: "Org"}


class Here:
    """The Runtime of the memory this request reads: views use it as they used the team's."""

    def __init__(self, rt: Runtime) -> None:
        self._rt = rt

    def __getattr__(self, name: str) -> Any:
        chosen = g.get("hippo_memory_rt") if has_request_context() else None
        return getattr(chosen or self._rt, name)


def here(rt: Runtime) -> Runtime:
    """What the views are given: the Runtime of the request's memory."""
    return cast(Runtime, Here(rt))


def person() -> str:
    """The signed-in person's Slack user id ("" when signed in with the console token)."""
    return str((signed_in() or {}).get("slack_id") or "")


def open_here(rt: Runtime) -> tuple[str, ...]:
    """The memories this person may open in the console."""
    return open_scopes(rt.config, person())


def choose(rt: Runtime, asked: str) -> tuple[str, Runtime]:
    """The memory `?memory=` names and its Runtime; 404 for one not set up, 403 for `me` with
    no Slack identity."""
    if not asked.strip():
        return TEAM, rt
    try:
        scope = normalise(asked, ORDER)
    except UnknownMemory as exc:
        abort(404, str(exc))
    if scope == ME and rt.config.personal_remote_template and not person():
        abort(403, "your own memory opens when you sign in with Slack (the token has no person)")
    if scope not in open_here(rt):
        abort(404, f"no {scope} memory here")
    return scope, memories.runtime_for(rt, scope, person())


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.before_request
    def pick_memory() -> None:
        if request.endpoint in (None, "console.static") or signed_in() is None:
            return  # the sign-in guard answers first
        scope, chosen = choose(rt, request.args.get("memory", ""))
        g.hippo_memory = scope
        g.hippo_memory_rt = chosen

    @bp.after_request
    def record_person(response: Response) -> Response:
        # Who used hippo, once per page: the nightly dream tends their own memory
        # (jobs/people.py). Only a Slack sign-in names a person.
        if signed_in() is not None:
            people.seen(rt, person())
        return response

    @bp.url_defaults
    def keep_memory(endpoint: str, values: dict[str, Any]) -> None:
        scope = g.get("hippo_memory", TEAM)
        if scope != TEAM and endpoint != "console.static" and "memory" not in values:
            values["memory"] = scope

    def memory_menu() -> list[tuple[str, str, bool]]:
        """(name, link, current) for each memory the person may open, when there are several."""
        found = open_here(rt) if signed_in() is not None else ()
        if len(found) < 2:
            return []
        now = g.get("hippo_memory", TEAM)
        return [
            (NAMES[s], url_for("console.tree", memory=s if s != TEAM else None), s == now)
            for s in found
        ]

    bp.add_app_template_global(memory_menu, "memory_menu")


def register_links(app: Flask) -> None:
    """`/m/<memory>/console/<page>`: a digest's link into one memory's console."""

    @app.get("/m/<scope>/console/")
    @app.get("/m/<scope>/console/<path:rest>")
    def memory_link(scope: str, rest: str = "") -> Response:
        if scope not in ORDER:
            abort(404)
        query = request.query_string.decode()
        target = f"/console/{rest}?memory={scope}" + (f"&{query}" if query else "")
        return redirect(target)
