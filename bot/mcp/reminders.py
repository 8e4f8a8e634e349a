"""The MCP tools for reminders: `remind`, `reminders`, `closeReminder` (memory/reminders/).

An MCP client is an agent unless its token is declared a person's: its reminder is stamped
tentative by the write path like its other entries, and it may close an agent's reminder but
never a person's (memory/reminders/write.py refuses, saying so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations

from bot.mcp.tools import MemoryTools, author_for
from memory.reminders import model, write
from memory.writes import validate


def _key(by: str, key: str) -> str | None:
    return validate.external_key("mcp:" + author_for(by).email.split("@", 1)[0], key or None)


def remind(tools: MemoryTools, by: str, text: str, due: str, when: str, key: str) -> dict[str, Any]:
    today = tools.today_for(by)  # "tomorrow" is the caller's
    done = write.add(
        tools.store,
        text,
        today=today.isoformat(),
        author=tools.author(by),
        by=by,
        due=due,
        when=when,
        key=_key(by, key),
    )
    return {"saved": done.result is not None, **done.reminder.as_dict(today)}


def listed(tools: MemoryTools, by: str, everything: bool) -> dict[str, Any]:
    today = tools.today_for(by)  # "due today" is the caller's
    found = write.read(tools.store)
    shown = found if everything else model.open_on(found, today)
    return {"today": today.isoformat(), "reminders": [r.as_dict(today) for r in shown]}


def close(tools: MemoryTools, by: str, rid: str, reason: str, key: str) -> dict[str, Any]:
    today = tools.today_for(by)
    done = write.close(
        tools.store,
        rid,
        today=today.isoformat(),
        author=tools.author(by),
        reason=reason or f"closed by {by} over MCP",
        key=_key(by, key),
    )
    return {"closed": done.result is not None, **done.reminder.as_dict(today)}


Result = dict[str, Any]
Guard = Callable[[Callable[[], Result]], Result]  # bot/mcp/server.py's _guard
Who = Callable[[Context[Any, Any]], str]


def add_tools(server: MCPServer, tools: MemoryTools, who: Who, guard: Guard) -> None:
    @server.tool(name="remind")
    def remind_tool(
        text: str, ctx: Context[Any, Any], due: str = "", when: str = "", key: str = ""
    ) -> dict[str, Any]:
        """Save a reminder for the team in reminders.md: what to do, and when. The time is read
        from `text` ("on Friday", "after 15 December", "in 3 days", "next week", "until 20
        December", "after the migration") or given as `due` (YYYY-MM-DD or a day) or `when`
        (a trigger without a date). Briefings show it while due. Yours starts tentative."""
        by = who(ctx)
        return guard(lambda: remind(tools, by, text, due, when, key))

    @server.tool(name="reminders", annotations=ToolAnnotations(read_only_hint=True))
    def reminders_tool(ctx: Context[Any, Any], all: bool = False) -> dict[str, Any]:
        """The open reminders (overdue, due today, pending, upcoming) with their ids; `all`
        adds the closed ones."""
        by = who(ctx)
        return guard(lambda: listed(tools, by, all))

    @server.tool(name="closeReminder")
    def close_tool(
        id: str, ctx: Context[Any, Any], reason: str = "", key: str = ""
    ) -> dict[str, Any]:
        """Close a reminder by its id (r-1a2b3c) with the reason it is done: one commit. You
        may close reminders agents added, not a person's (ask a person)."""
        by = who(ctx)
        return guard(lambda: close(tools, by, id, reason, key))
