"""MCP over streamable HTTP at /mcp in the Flask app, behind named bearer tokens.

The SDK's transport is ASGI and Flask is WSGI. The bridge runs one asyncio loop in a daemon thread
(started on the first /mcp request, so nothing runs at import or before gunicorn forks), keeps
the SDK's session manager running on it, and hands each request over with a2wsgi. The manager is
stateless with JSON responses, so any gunicorn worker can answer any request and no request holds
a worker open for a stream.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hmac
import io
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from flask import Flask, Response, jsonify, request

from jobs.runtime import Runtime

# The MCP SDK (about 55 MB with pydantic) loads on the first authorised /mcp request: a web
# worker that never serves MCP does not carry it.
if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication
    from a2wsgi import ASGIMiddleware
    from mcp.server.mcpserver import MCPServer

EXTENSION = "hippo.mcp"


def token_name(header: str, tokens: Mapping[str, str]) -> str | None:
    """The name of the token in an 'Authorization: Bearer <token>' header, or None."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    found = None
    for known, name in tokens.items():
        # Compare against every token in constant time, so timing tells nothing.
        if hmac.compare_digest(known.encode(), token.encode()):
            found = name
    return found


class Bridge:
    """One MCP server and its session manager on a private event loop, served as a WSGI app."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self._lock = threading.Lock()
        self._wsgi: ASGIMiddleware | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._held: concurrent.futures.Future[None] | None = None

    def wsgi(self) -> ASGIMiddleware:
        with self._lock:
            if self._wsgi is None:
                self._wsgi = self._start()
            return self._wsgi

    def _start(self) -> ASGIMiddleware:
        from a2wsgi import ASGIMiddleware
        from mcp.server.transport_security import TransportSecuritySettings

        from bot.mcp.server import SCOPE_USER

        # The app itself is not used: it only creates the session manager we serve directly.
        # DNS-rebinding checks guard unauthenticated local servers; every request here needs a
        # bearer token a browser page cannot attach, and Host differs behind a proxy.
        self.server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        manager = self.server.session_manager
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        failed: list[BaseException] = []

        async def hold() -> None:
            self._stop = asyncio.Event()
            try:
                async with manager.run():
                    ready.set()
                    await self._stop.wait()
            except BaseException as exc:  # reported to the starting request below
                failed.append(exc)
                ready.set()
                raise

        async def app(scope: Any, receive: Any, send: Any) -> None:
            environ = scope.get("wsgi_environ") or {}
            scope[SCOPE_USER] = environ.get(SCOPE_USER)
            await manager.handle_request(scope, receive, send)

        self._thread = threading.Thread(target=loop.run_forever, name="hippo-mcp", daemon=True)
        self._thread.start()
        self._loop = loop
        self._held = asyncio.run_coroutine_threadsafe(hold(), loop)
        if not ready.wait(10) or failed:
            raise RuntimeError(f"the MCP session manager did not start: {failed}")
        return ASGIMiddleware(app, loop=loop)

    def close(self) -> None:
        """Stop the session manager and its loop (tests; a process exit needs nothing)."""
        loop, stop, thread = self._loop, self._stop, self._thread
        if loop is None or thread is None:
            return
        if stop is not None:
            loop.call_soon_threadsafe(stop.set)
        if self._held is not None:
            # Let the session manager leave its task group before the loop stops under it.
            with contextlib.suppress(Exception):
                self._held.result(5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
        self._loop = self._thread = self._wsgi = self._held = None


def register(app: Flask, rt: Runtime) -> None:
    tokens = dict(rt.config.mcp_tokens)
    bridge: Bridge | None = None
    lock = threading.Lock()

    def get_bridge() -> Bridge:
        nonlocal bridge
        with lock:
            if bridge is None:
                from bot.mcp import memories as mcp_memories
                from bot.mcp.server import build_server, fixed
                from integrations.gate_llm import judge_for  # anthropic: at the first request

                make_tools = mcp_memories.maker(rt, judge_for(rt.llm, rt.config.small_model))
                tools = make_tools(rt.store, rt.config.workspace)
                tools.memories = mcp_memories.for_door(rt, make_tools, stdio=False)
                # Over HTTP the author is always the token's name; "mcp" is never used.
                who = mcp_memories.recording(rt, fixed("mcp"), stdio=False)
                bridge = Bridge(build_server(tools, who))
                app.extensions[EXTENSION] = bridge
            return bridge

    @app.route("/mcp", methods=["GET", "POST", "DELETE"], strict_slashes=False)
    def mcp_endpoint() -> Any:
        if not tokens:
            body = {"error": "MCP over HTTP is off: set HIPPO_MCP_TOKENS='name=token,…'"}
            return jsonify(body), 503
        name = token_name(request.headers.get("Authorization", ""), tokens)
        if name is None:
            resp = jsonify(
                {"error": "send 'Authorization: Bearer <token>' with a HIPPO_MCP_TOKENS token"}
            )
            resp.status_code = 401
            resp.headers["WWW-Authenticate"] = 'Bearer realm="hippo"'
            return resp
        from bot.mcp.server import SCOPE_USER

        request.environ[SCOPE_USER] = name
        # The ASGI bridge reads wsgi.input itself, past Flask's limit: hand it the body Flask
        # read (bounded by bot.limits, 413 beyond) instead of the socket.
        raw = request.get_data(cache=True)
        request.environ["wsgi.input"] = io.BytesIO(raw)
        request.environ["CONTENT_LENGTH"] = str(len(raw))
        request.environ.pop("HTTP_TRANSFER_ENCODING", None)
        return Response.from_app(cast("WSGIApplication", get_bridge().wsgi()), request.environ)
