"""The web app factory: Flask with every front door (Slack, GitHub, console, MCP) registered."""

from __future__ import annotations

import importlib

from flask import Flask

from jobs.config import Config
from jobs.runtime import Runtime

# Each feature module has `register(app: Flask, rt: Runtime) -> None`. One line per feature.
FEATURES: tuple[str, ...] = (
    "bot.ops",  # first: the request id and metrics wrap every other route
    "bot.limits",
    "bot.mcp.http",
    "bot.console",
    "bot.slack.routes",
    "bot.github",
)


def create_app(config: Config | None = None, runtime: Runtime | None = None) -> Flask:
    config = config or Config.from_env()
    rt = runtime or Runtime(config)
    app = Flask("hippo")
    app.extensions["hippo"] = rt
    for name in FEATURES:
        importlib.import_module(name).register(app, rt)
    return app
