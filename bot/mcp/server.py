"""hippo's MCP server: thirteen tools over the memory repository, for any agent.

`build_server` makes one `MCPServer` (official SDK 2.x). The same server is served over stdio by
`hippo mcp` (bot/cli/mcp.py) and over streamable HTTP at /mcp by bot/mcp/http.py. Who is calling
(the commit author) comes from `who(ctx)`: a fixed name on stdio, the bearer token's name on HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from bot.mcp import reminders
from bot.mcp.tools import DEFAULT_FILE, MemoryTools, Replacement
from memory.errors import MemoryStoreError

T = TypeVar("T")
Who = Callable[[Context[Any, Any]], str]

# The scope key bot/mcp/http.py sets to the authenticated token's name.
SCOPE_USER = "hippo.mcp_user"

INSTRUCTIONS = """\
hippo is your team's shared memory: a git repository of markdown files. Before working on a
repository, call brief with the task (and the repository and paths): its conventions, pitfalls
and preferences, and what memory holds on the task. Start with readMemory
(MEMORY.md: the short entries every session needs, then an index of topic files). Use
searchMemory before asking people what the team already knows. Save what a teammate will want
next week with writeMemory: one fact per entry, one line each, with [source: URL] when there is
one, and its kind ([kind: pattern|pitfall|win|stack-note|fact]); tag it with tags MEMORY.md's
index already lists (writeMemory `tags`), and search one with tag:deploy. What agents write
starts tentative until a second source confirms it. Never store secrets. deleteMemory records
what it removes in forgotten.md. To build context around a topic, links gives a file's [[links]] and
backlinks; recentActivity says what changed lately and by whom; searchHistory and fileHistory
say who added, changed or removed an entry, when, why and on what evidence. remind saves what
the team must do later ("after the migration", "on Friday"); reminders lists them; brief shows
those due."""


def http_user(ctx: Context[Any, Any]) -> str | None:
    """The bearer token's name on an HTTP request (None on stdio)."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict):
        name = scope.get(SCOPE_USER)
        return name if isinstance(name, str) else None
    return None


def fixed(name: str) -> Who:
    """`who` for stdio: every call is by `name`, unless it arrives over HTTP with a token."""

    def who(ctx: Context[Any, Any]) -> str:
        return http_user(ctx) or name

    return who


def _guard(fn: Callable[[], T]) -> T:
    """Run a tool; a refusal of the memory core becomes a tool error the agent can read."""
    try:
        return fn()
    except MemoryStoreError as exc:
        raise ToolError(str(exc)) from exc


def build_server(tools: MemoryTools, who: Who) -> MCPServer:
    server: MCPServer = MCPServer("hippo", instructions=INSTRUCTIONS, log_level="WARNING")
    _add_read_tools(server, tools, who)
    _add_history_tools(server, tools)
    _add_write_tools(server, tools, who)
    reminders.add_tools(server, tools, who, _guard)
    return server


def _add_read_tools(server: MCPServer, tools: MemoryTools, who: Who) -> None:
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(name="readMemory", annotations=read_only)
    def read_memory(ctx: Context[Any, Any], path: str = DEFAULT_FILE, memory: str = "") -> str:
        """Read one memory file (MEMORY.md by default): markdown, one entry per bullet line.
        `memory`: team (default), me (your own) or org, where those are set up."""
        by = who(ctx)
        return _guard(lambda: tools.at(memory, by).read(path, by=by))

    @server.tool(name="listMemory", annotations=read_only)
    def list_memory(ctx: Context[Any, Any], prefix: str = "", memory: str = "") -> list[str]:
        """List the memory's files, optionally under a folder such as 'preferences/'."""
        return _guard(lambda: tools.at(memory, who(ctx)).list_files(prefix))

    @server.tool(name="searchMemory", annotations=read_only)
    def search_memory(
        query: str,
        ctx: Context[Any, Any],
        limit: int = 20,
        archive: bool = False,
        all_words: bool = False,
        memory: str = "",
    ) -> list[dict[str, Any]]:
        """Search the memory's files; hits name the file, the line and its text, best first.
        Every word counts (other forms, partial words and typos too) and lines holding more of
        the rarer words rank higher; a word no line holds costs rank, not the hit. "Quoted
        phrases" and +words must match. all_words=true: only lines holding every word as
        written. archive=true searches only the archive of episodes (thread summaries, PR
        outcomes) instead: raw history, never needed for what the team knows now. `memory`
        (team, me, org) searches one memory; without it every memory open to you, each hit
        naming its `memory`."""
        by = who(ctx)
        how = {"archive": archive, "all_words": all_words}
        return _guard(lambda: tools.search_in(memory, by, query, limit, **how))

    @server.tool(name="brief", annotations=read_only)
    def brief(
        task: str,
        ctx: Context[Any, Any],
        repo: str = "",
        paths: list[str] | None = None,
        budget: int = 1500,
        memory: str = "",
    ) -> str:
        """What to know before working on `task`: the repository's conventions and pitfalls
        (those for `paths` first; `repo` is owner/name, default: one the task names), its
        preferences, and the best memory hits for the task, within `budget` tokens (estimated).
        Each line names its source and status; tentative lines are not yet confirmed. Without
        `memory`, lines from every memory open to you, labelled [me], [team] or [org]."""
        by = who(ctx)
        return _guard(lambda: tools.brief_in(memory, by, task, repo, paths or (), budget))


def _add_history_tools(server: MCPServer, tools: MemoryTools) -> None:
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(name="searchHistory", annotations=read_only)
    def search_history(
        query: str, since: str = "", limit: int = 20, path: str = ""
    ) -> dict[str, Any]:
        """When did the team start or stop believing something, and who changed it: the commits
        (newest first, at most `limit`, none before `since`, a date like 2026-11-01) that added,
        changed or removed entries holding every word of `query` (any case; "quoted phrases"),
        optionally in one file. Each names its author, time, reason and evidence (sources), and
        the entries with their action (added, changed with `before`, removed). `complete`
        false: older history was not read; narrow it with `since`."""
        return _guard(lambda: tools.search_history(query, since, limit, path))

    @server.tool(name="recentActivity", annotations=read_only)
    def recent_activity(since: str = "", limit: int = 30) -> dict[str, Any]:
        """What changed in the memory since `since` (a date; default the last 7 days) and by
        whom: each commit's author, time, summary, reason, the files and entries it changed."""
        return _guard(lambda: tools.recent(since, limit))

    @server.tool(name="fileHistory", annotations=read_only)
    def file_history(path: str, since: str = "", limit: int = 20) -> dict[str, Any]:
        """The history of one file (also one since deleted): the commits that changed it,
        newest first, with author, reason, evidence and the entries each added, changed or
        removed."""
        return _guard(lambda: tools.file_history(path, since, limit))

    @server.tool(name="links", annotations=read_only)
    def links(path: str, depth: int = 1) -> dict[str, Any]:
        """A file's [[links]] (what it points to) and backlinks (what points to it), and the
        link graph within `depth` steps (1 to 3) either way: `nodes` (with `exists`: false for a
        broken link) and `edges` [from, to]. Read the neighbours to build context on a topic."""
        return _guard(lambda: tools.links(path, depth))


def _add_write_tools(server: MCPServer, tools: MemoryTools, who: Who) -> None:
    @server.tool(name="writeMemory")
    def write_memory(
        path: str,
        message: str,
        ctx: Context[Any, Any],
        entries: list[str] | None = None,
        replace: list[Replacement] | None = None,
        content: str = "",
        title: str = "",
        key: str = "",
        kind: str = "",
        tags: list[str] | None = None,
        memory: str = "",
    ) -> dict[str, Any]:
        """Add entries to a file (created when missing, with `title`), replace entries (match is
        the old entry's text), or write a whole file (`content`). One commit with `message`.
        Entries are one line each and may end in [source: URL; kind: pitfall; tags: deploy].
        `tags` are added to every entry in `entries` (reuse the tags listed in MEMORY.md's
        index: a small vocabulary finds more). What you write
        starts `status: tentative` until a second source confirms it; `kind` (pattern, pitfall,
        win, stack-note or fact; default fact) is for entries that name none. An entry that
        contradicts an active one is added beside it, never over it; the result's `landed`
        says confirm, refine, contradict or new for each. `key` makes a retried call change
        nothing. `memory`: team, me (the person you act for) or org; without it a fact about
        the person's own habits goes to theirs and the team's work to the team's, and an
        unclear one is refused naming the choices: ask the person, then name it."""
        # Plain `str` parameters (not `str | None`): the SDK JSON-decodes strings for any other
        # annotation, so a file whose content is JSON would arrive as a dict and be refused.
        by = who(ctx)
        said = "\n".join([*(entries or ()), content, *(r.text for r in replace or ())])
        return _guard(
            lambda: tools.at(memory, by, said).write(
                by,
                path,
                message,
                entries=entries or (),
                replace=replace or (),
                content=content or None,
                title=title or None,
                key=key or None,
                kind=kind,
                tags=tags or (),
            )
        )

    _add_delete_tool(server, tools, who)


def _add_delete_tool(server: MCPServer, tools: MemoryTools, who: Who) -> None:
    @server.tool(name="deleteMemory", annotations=ToolAnnotations(destructive_hint=True))
    def delete_memory(
        path: str,
        message: str,
        ctx: Context[Any, Any],
        entries: list[str] | None = None,
        reason: str = "",
        key: str = "",
        memory: str = "",
    ) -> dict[str, Any]:
        """Remove entries (by their text) from a file, or the whole file when no entries are
        given. What is removed is recorded in forgotten.md with `reason`, so it is not re-added.
        `memory`: team (default), me or org."""
        by = who(ctx)
        return _guard(
            lambda: tools.at(memory, by).delete(
                by, path, message, entries=entries or (), reason=reason, key=key or None
            )
        )
