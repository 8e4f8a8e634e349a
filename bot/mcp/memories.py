"""The MCP tools over several memories: the `memory` argument (team, me, org) of every tool.

`MemoryTools.at(memory, by, text)` (bot/mcp/tools.py) asks this for the tools of the memory a call
names, or, for a write that names none, the one the router chooses (memory/scopes.py; unclear:
a tool error naming the choices). `me` is the caller's own memory: over HTTP the token's name,
over stdio HIPPO_USER; no call can name another person's. Searches and briefings that name no
memory read every open one, each hit or line labelled with its memory (jobs/memories.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jobs import asker_time, memories, people
from jobs.config import open_scopes
from jobs.read_counts import ReadBy
from jobs.runtime import Runtime
from memory.git import Store
from memory.scopes import TEAM

if TYPE_CHECKING:
    from bot.mcp.server import Who
    from bot.mcp.tools import MemoryTools


@dataclass
class Memories:
    """The memories open to MCP callers of one runtime. `make` builds the tools over a store
    (the team's settings: Redis, the gate's judge, the people); `user_of` says whose `me` a
    caller is."""

    rt: Runtime
    make: Callable[[Store, str], MemoryTools]
    user_of: Callable[[str], str]

    def several(self, by: str) -> bool:
        return len(open_scopes(self.rt.config, self.user_of(by))) > 1

    def tools(
        self, team: MemoryTools, by: str, memory: str = "", text: str | None = None
    ) -> MemoryTools:
        """The tools of the memory named, else (a write: `text` given) the router's choice,
        else the team's."""
        if not memory.strip() and text is None:
            return team
        scope, one = memories.pick(self.rt, self.user_of(by), given=memory, text=text or "")
        return team if scope == TEAM else self.make(one.store, one.config.workspace)

    def search(self, by: str, query: str, limit: int, **how: Any) -> list[dict[str, Any]]:
        found = memories.search(self.rt, self.user_of(by), query, limit=limit, **how)
        return [f.as_dict() for f in found]

    def brief(self, by: str, task: str, repo: str, paths: Sequence[str], budget: int) -> str:
        user = self.user_of(by)
        day = asker_time.asker_date(self.rt, user)  # the reminders due on the caller's date
        done = memories.brief(
            self.rt, user, task, repo=repo, paths=paths, budget=budget, today=day,
            by=ReadBy(by, "mcp"),
        )  # fmt: skip
        return done.text


def for_door(
    rt: Runtime, make: Callable[[Store, str], MemoryTools], *, stdio: bool
) -> Memories | None:
    """The door's Memories, or None when only the team's memory is configured. Over stdio `me`
    is HIPPO_USER (the `--as` name is the agent's); over HTTP the Slack user the token is bound
    to (HIPPO_MCP_USERS), else the token's name (jobs/people.py)."""
    config = rt.config
    if not (config.personal_remote_template or config.org_memory_remote):
        return None
    return Memories(rt, make, lambda by: people.mcp_person(rt, by, stdio=stdio))


def recording(rt: Runtime, who: Who, *, stdio: bool) -> Who:
    """`who` that also records, on each tool call, the person calling (jobs/people.py: the
    nightly dream tends their own memory): HIPPO_USER over stdio, the token's person over HTTP."""

    def by(ctx: Any) -> str:
        name = who(ctx)
        people.seen(rt, people.mcp_person(rt, name, stdio=stdio))
        return name

    return by


def maker(rt: Runtime, judge: Any, *, stdio: bool = False) -> Callable[[Store, str], MemoryTools]:
    """Tools over a store with the door's settings: Redis for recall counts, the gate's judge,
    the tokens declared people's, and each caller's date (the person's in Slack when the token
    is bound to one, else the team's: jobs/asker_time.py)."""
    from bot.mcp.tools import MemoryTools

    def date_of(by: str) -> dt.date:
        return asker_time.asker_date(rt, people.mcp_person(rt, by, stdio=stdio))

    def make(store: Store, workspace: str) -> MemoryTools:
        named = rt.config.mcp_people
        return MemoryTools(
            store, workspace=workspace, redis=rt.redis, judge=judge, people=named, date_of=date_of
        )

    return make
