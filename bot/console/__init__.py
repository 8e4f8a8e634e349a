"""The web console at /console: people browse, edit, review history and undo dreaming.

Server-rendered Flask views, split by feature: auth (sign-in, CSRF), files (tree, file, edits),
history (log, diff, revert), dreams (dream runs as cards), extras (channel preferences, outbox).
"""

from __future__ import annotations

from flask import Blueprint, Flask

from bot.console import auth, dreams, extras, files, history
from jobs.runtime import Runtime


def register(app: Flask, rt: Runtime) -> None:
    bp = Blueprint(
        "console",
        __name__,
        url_prefix="/console",
        template_folder="templates",
        static_folder="static",
        static_url_path="/static",
    )
    auth.install(bp, rt)
    files.install(bp, rt)
    history.install(bp, rt)
    dreams.install(bp, rt)
    extras.install(bp, rt)
    bp.add_app_template_global(auth.csrf_token, "csrf_token")
    bp.add_app_template_global(auth.current_user, "current_user")
    app.register_blueprint(bp)
