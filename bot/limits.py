"""Request body limits: a door refuses an oversized body with 413 before reading it.

Flask enforces `request.max_content_length` both on a declared Content-Length (refused before a
byte is read) and on a streamed (chunked) body, which stops being read once it passes the limit;
the hook below sets the limit per door and refuses a too-large Content-Length at once, so no view
ever buffers more than the limit of a body it will refuse. GitHub caps webhook payloads at
25 MB; Slack's events, commands and interactivity payloads are far below a few MB; MCP calls
carry one memory write.
"""

from __future__ import annotations

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import RequestEntityTooLarge

from jobs.runtime import Runtime

MB = 1024 * 1024
LIMITS: dict[str, int] = {
    "github_webhook": 25 * MB,
    "slack_events": 4 * MB,
    "mcp_endpoint": 4 * MB,
}
DEFAULT = 8 * MB  # console forms and everything else


def limit_for(endpoint: str | None) -> int:
    return LIMITS.get(endpoint or "", DEFAULT)


def register(app: Flask, rt: Runtime) -> None:
    app.config["MAX_CONTENT_LENGTH"] = DEFAULT

    @app.before_request
    def limit_body() -> None:
        limit = limit_for(request.endpoint)
        request.max_content_length = limit
        if request.content_length is not None and request.content_length > limit:
            raise RequestEntityTooLarge()
        if request.content_length is None and request.environ.get("wsgi.input_terminated"):
            # A chunked body: werkzeug stops reading at the limit but hands the view the
            # truncated bytes as if complete. Read it here (cached for the view), then one more
            # byte: past the limit that read raises 413 instead of a truncated body going on.
            request.get_data(cache=True)
            request.stream.read(1)

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc: RequestEntityTooLarge) -> tuple[Response, int]:
        limit = limit_for(request.endpoint)
        body = {"error": f"the request body is larger than {limit // MB} MB, the limit here"}
        # The rest of an oversized body is never read: close the connection after answering.
        response = jsonify(body)
        response.headers["Connection"] = "close"
        return response, 413
