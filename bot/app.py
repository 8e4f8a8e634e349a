"""The web app factory: Flask with every front door (Slack, GitHub, console, MCP) registered."""

from __future__ import annotations

from typing import Protocol

from flask import Flask

from bot import github, limits, ops
from bot.console import app as console
from bot.mcp import http as mcp_http
from bot.slack import routes as slack_routes
from jobs.config import Config
from jobs.runtime import Runtime


class Register(Protocol):
    """A feature module's `register`: add its routes and hooks to the Flask app."""

    def __call__(self, app: Flask, rt: Runtime) -> None: ...


# One line per feature, in order.
FEATURES: tuple[Register, ...] = (
    ops.register,  # first: the request id and metrics wrap every other route
    limits.register,
    mcp_http.register,
    console.register,
    slack_routes.register,
    github.register,
)


def create_app(config: Config | None = None, runtime: Runtime | None = None) -> Flask:
    config = config or Config.from_env()
    rt = runtime or Runtime(config)
    app = Flask("hippo")
    app.extensions["hippo"] = rt
    for register in FEATURES:
        register(app, rt)
    return app
