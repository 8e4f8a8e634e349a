"""The Slack front door on the web app: POST /slack/events (events, commands, shortcuts,
interactivity) and GET /outbox (what hippo posted while running without a Slack token)."""

from __future__ import annotations

from flask import Flask, Response, jsonify, request
from slack_bolt.adapter.flask import SlackRequestHandler

from bot.slack_app import make_slack_app
from integrations.slack import Outbox
from jobs.runtime import Runtime


def register(app: Flask, rt: Runtime) -> None:
    handler = SlackRequestHandler(make_slack_app(rt))

    @app.post("/slack/events")
    def slack_events() -> Response:
        if not rt.config.slack_signing_secret:
            # Without the secret nothing can be verified; refuse rather than trust the body.
            return Response(
                "SLACK_SIGNING_SECRET is not set: copy it from the Slack app's Basic Information",
                status=503,
                mimetype="text/plain",
            )
        return handler.handle(request)

    @app.get("/outbox")
    def outbox() -> Response:
        limit = request.args.get("limit", "100")
        n = int(limit) if limit.isdigit() else 100
        return jsonify({"messages": Outbox(rt.redis).messages(min(n, 1000))})
