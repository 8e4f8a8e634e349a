"""The whole Flask app (bot.app.create_app) on a loopback port, for tests that call its MCP
endpoint over real HTTP, and stopped with everything it opened."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from werkzeug.serving import make_server

from bot.app import create_app
from bot.mcp.http import EXTENSION
from jobs.config import Config
from jobs.runtime import Runtime


@contextmanager
def serving_mcp(config: Config) -> Iterator[tuple[str, Runtime]]:
    """The MCP endpoint's URL and the app's Runtime (its memory initialised); the server, the
    MCP bridge and the Runtime are closed on the way out."""
    rt = Runtime(config)
    rt.store.init()
    app = create_app(config, rt)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/mcp", rt
    finally:
        server.shutdown()
        thread.join(5)
        bridge = app.extensions.get(EXTENSION)
        if bridge is not None:
            bridge.close()
        rt.close()
