"""Sign-in for the console: Sign in with Slack (OpenID Connect), or HIPPO_CONSOLE_TOKEN on a laptop.

Only members of the configured Slack workspace get in: the team in Slack's userInfo must be the
bot token's team (auth.test), and the person no guest or app (users.info), as the Slack door
resolves them (jobs/actors.py). Each page resolves its actor once from the session. CSRF: every
POST in the console carries the session's token.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any
from urllib.parse import urlencode

import jwt
from flask import Blueprint, abort, g, redirect, render_template, request, session, url_for
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from werkzeug.wrappers import Response

from bot.console import sessions
from jobs import actors
from jobs.runtime import Runtime
from memory.git import Author
from memory.trust.actors import Kind

SLACK_AUTHORIZE = "https://slack.com/openid/connect/authorize"
OPEN = frozenset(
    {"console.login", "console.login_slack", "console.slack_callback", "console.static"}
)


def csrf_token() -> str:
    """This session's CSRF token (made on first use); templates put it in every form."""
    token = session.get("csrf")
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Refuse a POST whose form token is missing or not this session's (400, nothing changes)."""
    sent = request.form.get("csrf_token", "")
    known = session.get("csrf")
    if not isinstance(known, str) or not hmac.compare_digest(sent.encode(), known.encode()):
        abort(400, "the form expired or did not come from this console; reload the page and retry")


def current_user() -> dict[str, str] | None:
    return sessions.user()


def author() -> Author:
    """The signed-in person as a commit author."""
    user = current_user() or {}
    # git refuses '<' and '>' in an author's name (they delimit the email): drop them.
    name = re.sub(r"[<>]", "", user.get("name") or "").strip() or "console"
    email = user.get("email") or f"{re.sub(r'[^a-z0-9._-]+', '-', name.lower())}@console.hippo"
    return Author(name, email)


def sign_in(name: str, email: str = "", slack_id: str = "") -> None:
    sessions.start({"name": name, "email": email, "slack_id": slack_id})
    csrf_token()


def token_matches(sent: str, known: str) -> bool:
    """Constant time, and the length of the token is not revealed either (digests compared)."""
    if not known:
        return False
    return hmac.compare_digest(
        hashlib.sha256(sent.encode()).digest(), hashlib.sha256(known.encode()).digest()
    )


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.before_request
    def guard() -> Response | None:
        if request.method == "POST":
            check_csrf()
        if request.endpoint in OPEN:
            return None
        # who is asking, once per request (jobs/actors.py): a signed-in person, or nobody
        g.actor = actors.resolve(rt, actors.ConsoleRequest(current_user()))
        if g.actor.kind is not Kind.CONSOLE:
            return redirect(url_for("console.login", next=request.full_path.rstrip("?")))
        return None

    _install_token_sign_in(bp, rt)
    _install_slack_sign_in(bp, rt)


def _install_token_sign_in(bp: Blueprint, rt: Runtime) -> None:
    """/login with HIPPO_CONSOLE_TOKEN (failures throttled per address), and /logout."""
    config = rt.config
    throttle = sessions.SignInThrottle()

    @bp.route("/login", methods=["GET", "POST"])
    def login() -> Any:
        error = ""
        client = request.remote_addr or "unknown"
        if request.method == "POST" and throttle.blocked(client):
            page = render_template(
                "console/login.html",
                error="Too many sign-in attempts from your address; wait a minute and try again.",
                token_enabled=bool(config.console_token),
                slack_enabled=_slack_sign_in(rt),
            )
            return page, 429, {"Retry-After": "60"}
        if request.method == "POST":
            token = request.form.get("token", "")
            name = " ".join(request.form.get("name", "").split())[:80] or "console"
            if token_matches(token, config.console_token):
                sign_in(name)
                return redirect(_safe_next(request.args.get("next")))
            throttle.failed(client)  # only failures count against the address
            error = "That token is not HIPPO_CONSOLE_TOKEN."
        return render_template(
            "console/login.html",
            error=error,
            token_enabled=bool(config.console_token),
            slack_enabled=_slack_sign_in(rt),
        ), (401 if error else 200)

    @bp.post("/logout")
    def logout() -> Response:
        sessions.end()
        return redirect(url_for("console.login"))


def _install_slack_sign_in(bp: Blueprint, rt: Runtime) -> None:
    """Sign in with Slack (OpenID Connect): /login/slack and its callback."""
    config = rt.config

    @bp.get("/login/slack")
    def login_slack() -> Response:
        if not _slack_sign_in(rt):
            # The bot token names the workspace whose members may sign in (auth.test).
            abort(
                404,
                "Sign in with Slack needs SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_BOT_TOKEN",
            )
        state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        session["oidc"] = {"state": state, "nonce": nonce, "next": request.args.get("next", "")}
        query = urlencode(
            {
                "response_type": "code",
                "scope": "openid profile email",
                "client_id": config.slack_client_id,
                "redirect_uri": _redirect_uri(config.public_url),
                "state": state,
                "nonce": nonce,
            }
        )
        return redirect(f"{SLACK_AUTHORIZE}?{query}")

    @bp.get("/login/slack/callback")
    def slack_callback() -> Any:
        pending = session.pop("oidc", None)
        if not isinstance(pending, dict) or not hmac.compare_digest(
            request.args.get("state", "").encode(), str(pending.get("state", "")).encode()
        ):
            return _refuse("The sign-in took too long or came from elsewhere; try again.")
        if request.args.get("error") or not request.args.get("code"):
            return _refuse(f"Slack did not sign you in ({request.args.get('error', 'no code')}).")
        try:
            user, why = _slack_user(rt, request.args["code"], str(pending.get("nonce", "")))
        except (SlackApiError, jwt.PyJWTError, KeyError) as exc:
            return _refuse(f"Slack sign-in failed: {exc}")
        if user is None:
            return _refuse(f"Only members of this hippo's Slack workspace can sign in ({why}).")
        sign_in(user["name"], user["email"], user["sub"])
        return redirect(_safe_next(str(pending.get("next", ""))))


def _slack_user(rt: Runtime, code: str, nonce: str) -> tuple[dict[str, str] | None, str]:
    """Exchange the code, check the nonce, then who the person is (jobs/actors.py, as the Slack
    door resolves them: their team against the bot token's, users.info for a guest): the
    person, or None and why (another workspace, a guest, an app)."""
    config = rt.config
    oidc = WebClient(base_url=config.slack_api_url)
    tokens = oidc.openid_connect_token(
        client_id=config.slack_client_id,
        client_secret=config.slack_client_secret,
        code=code,
        redirect_uri=_redirect_uri(config.public_url),
    )
    # The id_token came straight from Slack over TLS in this exchange, so its signature needs no
    # second check (OIDC Core 3.1.3.7); the nonce ties it to this browser's sign-in.
    claims = jwt.decode(str(tokens["id_token"]), options={"verify_signature": False})
    if claims.get("nonce") != nonce:
        raise jwt.InvalidTokenError("nonce mismatch")
    info = WebClient(token=str(tokens["access_token"]), base_url=config.slack_api_url)
    me = info.openid_connect_userInfo()
    team = str(me.get("https://slack.com/team_id") or "")
    user_id = str(me.get("https://slack.com/user_id") or me.get("sub") or "")
    who = actors.resolve(rt, actors.SlackRequest(user_id, user_team=team or "-"))
    if who.kind is not Kind.MEMBER:
        return None, who.why or "Slack did not say who you are"
    person = {
        "sub": str(me.get("sub", "")),
        "name": str(me.get("name") or me.get("email") or me.get("sub")),
        "email": str(me.get("email") or ""),
    }
    return person, ""


def _slack_sign_in(rt: Runtime) -> bool:
    c = rt.config
    return bool(c.slack_client_id and c.slack_client_secret and c.slack_bot_token)


def _redirect_uri(public_url: str) -> str:
    return public_url.rstrip("/") + "/console/login/slack/callback"


def _safe_next(target: str | None) -> str:
    """Only same-site paths: an open redirect would make the sign-in page a phishing tool."""
    if target and target.startswith("/console") and not target.startswith("//"):
        return target
    return url_for("console.tree")


def _refuse(message: str) -> tuple[str, int]:
    return render_template("console/login.html", error=message, token_enabled=False), 403
