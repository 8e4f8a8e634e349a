"""Which memories a person has open, and the settings of each (jobs/memories.py opens them).

Apart from jobs/memories.py, which opens stores, so that a command can ask how many memories are
open without loading the store and git (`hippo search` on the team's memory alone).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from jobs.config import Config
from memory.scopes import ME, ORDER, ORG, TEAM, UnknownMemory

_USER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_user(user: str) -> str:
    """A person's name as it goes into a remote URL and a folder name: never a path or a query."""
    if not _USER.match(user):
        raise UnknownMemory(
            f"a personal memory needs its person's name in letters, digits, '.', '_' or '-' "
            f"(not {user!r}): use the Slack user id, an MCP token name or HIPPO_USER like that"
        )
    return user


def open_scopes(config: Config, user: str) -> tuple[str, ...]:
    """The memories a conversation of `user` has open: `me` (with a template and a person),
    `team` always, `org` when configured; in ORDER."""
    found = {TEAM}
    if config.personal_remote_template and user:
        found.add(ME)
    if config.org_memory_remote:
        found.add(ORG)
    return tuple(s for s in ORDER if s in found)


def scoped_config(config: Config, scope: str, user: str = "") -> Config:
    """The Config of memory `scope`: its remote, its workspace name (cache, lock, Redis keys)
    and its token when it has one of its own."""
    if scope == TEAM:
        return config
    if scope == ORG:
        if not config.org_memory_remote:
            raise UnknownMemory("no org memory here: set HIPPO_ORG_MEMORY_REMOTE")
        remote, token, name = config.org_memory_remote, config.org_memory_token, "org"
    elif scope == ME:
        if not config.personal_remote_template:
            raise UnknownMemory("no personal memories here: set HIPPO_PERSONAL_REMOTE_TEMPLATE")
        if not user:
            raise UnknownMemory("whose memory is `me`? set HIPPO_USER (the CLI, stdio MCP)")
        template = config.personal_remote_template.replace("{team}", config.workspace)
        remote, token = template.replace("{user}", check_user(user)), config.personal_memory_token
        name = f"me.{user}"
    else:
        raise UnknownMemory(f"no memory {scope!r}: choose one of {', '.join(ORDER)}")
    changes: dict[str, Any] = {"memory_remote": remote, "workspace": f"{config.workspace}.{name}"}
    if token:
        changes |= {"memory_token": token, "memory_auth": "token"}
    return replace(config, **changes)
