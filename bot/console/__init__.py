"""The web console at /console: people browse, edit, review history and undo dreaming.

Server-rendered Flask views, split by feature: auth (sign-in, CSRF), files (tree, file, edits),
history (log, diff, revert), dreams (dream runs as cards), extras (channel preferences, outbox).
"""

from __future__ import annotations

import hashlib
import secrets

from flask import Blueprint, Flask

from bot.console import auth, dreams, extras, files, history
from jobs.runtime import Runtime


def register(app: Flask, rt: Runtime) -> None:
    config = rt.config
    if not (config.secret_key or config.console_token) and config.slack_client_secret:
        # Never sign sessions with the development default in production: derive a key from a
        # secret every web worker shares. HIPPO_SECRET_KEY is still the recommended setting.
        digest = hashlib.sha256(b"hippo console session\0" + config.slack_client_secret.encode())
        app.secret_key = digest.hexdigest()
    elif not (config.secret_key or config.console_token):
        # No way to sign in, so no session is genuine: with the public default key anyone could
        # forge one. A key nobody knows (per process) closes the console.
        app.secret_key = secrets.token_hex(32)
    if app.config.get("SESSION_COOKIE_SAMESITE") is None:
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"  # a second line of defence beside CSRF
    if config.public_url.startswith("https://"):
        app.config["SESSION_COOKIE_SECURE"] = True
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
