"""Whose own memories there are: the people who used hippo through a door, and those configured.

A personal memory comes to be when its person first uses it (jobs/memories.py lays it out like
`hippo init`), and nothing lists the repositories on the git host, so the nightly dream
(jobs/memory_dreams.py) tends the memories of the people hippo has seen act, plus the people
HIPPO_PERSONAL_MEMORIES lists. Seen people are kept in the Redis set `hippo:people:<workspace>`
(the team's workspace). The front doors record them, once per request, where a person acts
(`seen`): Slack (a Bolt middleware, bot/slack/app.py: mentions, commands, buttons, App Home,
and so the Slack agent's questions), MCP (each tool call, stdio and HTTP: bot/mcp/memories.py),
the console (each signed-in page, bot/console/memories.py) and the CLI (each command,
bot/cli/main.py). Opening a memory (jobs/memories.py `runtime_for`) writes nothing: it runs in
workers and below the doors, many times per request.

Only a door that holds a Redis connection already records (`seen` never connects: that would
start an embedded Redis, or cost the CLI's measured start-up). Slack, MCP and the console hold
one; the CLI's `hippo note` and `hippo search` load no Redis, so a person who uses hippo only
from such CLI commands is listed in HIPPO_PERSONAL_MEMORIES instead (or used it once from Slack,
MCP, the console, or a CLI command that talks to Redis, such as `hippo brief` with REDIS_URL).
"""

from __future__ import annotations

import logging
import threading
import weakref
from typing import Any

from jobs import keys
from jobs.runtime import Runtime, TeamRuntime

log = logging.getLogger("hippo.people")

# (workspace, user) recorded already, per Redis client: one SADD per person and process (a
# new client, such as a test's on a flushed Redis, records them again)
_RECORDED: weakref.WeakKeyDictionary[Any, set[tuple[str, str]]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _redis_in_use(rt: Runtime) -> bool:
    """True when this process already talks to Redis for `rt` (never starts a connection)."""
    found = "redis" in vars(rt)
    while not found and isinstance(rt, TeamRuntime):
        rt = rt.base
        found = "redis" in vars(rt)
    return found


def seen(rt: Runtime, user: str, *, team: str = "") -> None:
    """A door's record that `user` acted in `rt`'s workspace (Slack workspace `team`'s, with
    many): with personal memories configured, the nightly dream tends theirs. One SADD per
    person and process, and only where a Redis connection is already open (a failure costs one
    night's dream, never the request)."""
    if not user or not rt.config.personal_remote_template or not _redis_in_use(rt):
        return
    workspace = team if team and rt.config.slack_oauth and not rt.team else rt.config.workspace
    mark, client = (workspace, user), rt.redis
    with _LOCK:
        if mark in _RECORDED.get(client, ()):
            return
    try:
        client.sadd(keys.people(workspace), user)
    except Exception as exc:  # Redis away: the next request records them
        log.warning("could not record %s's own memory: %s", user, exc)
        return
    with _LOCK:
        _RECORDED.setdefault(client, set()).add(mark)


def known(rt: Runtime) -> list[str]:
    """The people of `rt`'s workspace with a memory of their own: seen, and configured (for the
    deployment's own workspace: with many workspaces a name alone says not whose it is)."""
    raw = rt.redis.smembers(keys.people(rt.config.workspace))
    found = {x.decode() if isinstance(x, bytes) else str(x) for x in raw}
    return sorted(found | (set() if rt.team else set(rt.config.personal_memories)))


def mcp_person(rt: Runtime, by: str, *, stdio: bool) -> str:
    """Whose `me` an MCP caller is: over stdio HIPPO_USER; over HTTP the Slack user its token
    is bound to (HIPPO_MCP_USERS: one person across Slack and MCP), else the token's name."""
    if stdio:
        return rt.config.user
    return rt.config.mcp_users.get(by, by)
