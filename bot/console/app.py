"""The console's blueprint: session settings, then each view module's `install(bp, rt)`."""

from __future__ import annotations

from flask import Blueprint, Flask, g

from bot.console import (
    activity,
    auth,
    dreams,
    extras,
    files,
    history,
    memories,
    proposals,
    reminders,
    repos,
    sessions,
)
from jobs.names import Names
from jobs.runtime import Runtime


def register(app: Flask, rt: Runtime) -> None:
    config = rt.config
    app.secret_key = sessions.signing_key(config)  # never the console token (see sessions)
    app.permanent_session_lifetime = sessions.SESSION_TTL
    if app.config.get("SESSION_COOKIE_SAMESITE") is None:
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"  # a second line of defence beside CSRF
    if config.public_url.startswith("https://"):
        app.config["SESSION_COOKIE_SECURE"] = True
    bp = Blueprint(
        "console",
        __name__,  # bot/console/: templates/ and static/ sit beside this module
        url_prefix="/console",
        template_folder="templates",
        static_folder="static",
        static_url_path="/static",
    )
    auth.install(bp, rt)
    memories.install(bp, rt)  # which memory the request reads: the team's, mine, the org's
    view = memories.here(rt)  # every view reads and writes that one
    files.install(bp, view)
    history.install(bp, view)
    dreams.install(bp, view)
    extras.install(bp, view)
    proposals.install(bp, view)
    reminders.install(bp, view)
    repos.install(bp, view)
    activity.install(bp, view)
    bp.add_app_template_global(auth.csrf_token, "csrf_token")
    bp.add_app_template_global(auth.current_user, "current_user")

    def person(who: object) -> str:
        """A Slack user id as the person's Slack name (jobs/names.py), asked once per page."""
        if "names" not in g:
            g.names = Names(rt)
        name: str = g.names(who)
        return name

    bp.add_app_template_filter(person, "person")
    app.register_blueprint(bp)
    memories.register_links(app)
