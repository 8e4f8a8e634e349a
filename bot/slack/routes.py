"""The Slack front door on the web app: POST /slack/events (events, commands, shortcuts,
interactivity) and GET /outbox (what hippo posted while running without a Slack token; signed-in
console users only, since it holds every reply, recall answers included)."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

from flask import Flask, Response, jsonify, request
from slack_bolt.adapter.flask import SlackRequestHandler

from bot.console.auth import current_user
from bot.slack import dedupe, install
from bot.slack.app import make_slack_app
from jobs.runtime import Runtime


def _plain_response(message: str, status: int) -> Response:
    return Response(message, status=status, mimetype="text/plain")


def malformed(body: str, content_type: str | None) -> str | None:
    """Why bolt could not read this body, or None. Mirrors bolt's own parse, which runs before
    its signature check and would raise (a 500): a body that passes here never raises inside
    bolt. JSON bodies, or forms whose `payload` is JSON."""
    if not body:
        return None
    try:
        if content_type == "application/json" or body.startswith("{"):
            parsed = json.loads(body)
        elif "payload" in body:
            payload = dict(parse_qsl(body, keep_blank_values=True)).get("payload")
            parsed = json.loads(payload) if payload is not None else {}
        else:
            return None  # a form (slash command); bolt reads it as fields
    except json.JSONDecodeError as exc:
        return f"the body is not valid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(parsed, dict):
        return "the body is JSON but not an object"
    return None


def register(app: Flask, rt: Runtime) -> None:
    handler = SlackRequestHandler(make_slack_app(rt))
    if rt.config.slack_oauth:
        install.register_routes(app, handler)  # GET /slack/install, /slack/oauth_redirect

    @app.post("/slack/events")
    def slack_events() -> Response:
        secret = rt.config.slack_signing_secret
        if not secret:
            # Without the secret nothing can be verified; refuse rather than trust the body.
            return _plain_response(
                "SLACK_SIGNING_SECRET is not set: copy it from the Slack app's Basic Information",
                503,
            )
        # Bolt verifies the signature (its RequestVerification middleware: a forged or stale
        # request gets 401 before any listener runs). What it cannot survive is checked first:
        # both are about the request's shape, answered 400 without reading what it asks for.
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        if not timestamp.isdigit():
            # slack_sdk would int() it inside bolt and fail with a 500
            return _plain_response("X-Slack-Request-Timestamp must be a Unix time in seconds", 400)
        why = malformed(request.get_data(as_text=True), request.mimetype)  # bounded by bot.limits
        if why:
            return _plain_response(why, 400)
        # Many workspaces: Bolt's middleware binds the request's team (for the tasks it queues);
        # the web app's request hook (bot/ops.py) resets the request context when it ends.
        # The claims are marked "queued" once the ack has been sent (bot/slack/dedupe.py).
        with dedupe.after_ack() as later:
            response: Response = handler.handle(request)
        if later:
            response.call_on_close(lambda: dedupe.run_after_ack(later))
        return response

    @app.get("/outbox")
    def outbox() -> Response:
        if current_user() is None:
            response = jsonify({"error": "sign in to the console first", "login": "/console/login"})
            response.status_code = 401
            return response
        limit = request.args.get("limit", "100")
        n = int(limit) if limit.isdigit() else 100
        return jsonify({"messages": rt.outbox.messages(min(n, 1000))})
