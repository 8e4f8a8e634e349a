"""`hippo mcp`: the MCP server over stdio, for Claude Code and other local agents."""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the MCP SDK loads when `hippo mcp` serves, not for --help
    from jobs.runtime import Runtime


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
    import anyio

    from bot.mcp import memories as mcp_memories
    from bot.mcp.server import build_server, fixed
    from integrations.gate_llm import judge_for

    def stop(signum: int, _frame: object) -> None:
        # The stdio reader thread is blocked in read(2) on stdin, which no signal interrupts,
        # and both asyncio's SIGINT handling (it cancels the task, then waits for that thread)
        # and interpreter shutdown would wait for it forever. Leave the embedded Redis, then end.
        rt.close()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signum)

    name = args.author or _login()
    rt.store.init()  # a laptop's first run creates the local memory, as `hippo serve` does
    make_tools = mcp_memories.maker(rt, judge_for(rt.llm, rt.config.small_model), stdio=True)
    tools = make_tools(rt.store, rt.config.workspace)
    tools.memories = mcp_memories.for_door(rt, make_tools, stdio=True)
    server = build_server(tools, fixed(name))
    # Only now: until here a signal unwinds like any command's (bot/cli/main.py), and `stop`
    # run while this thread still held the Runtime's lock (starting the embedded Redis) would
    # wait for that lock forever (seen under load: SIGINT during start-up never ended).
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
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
