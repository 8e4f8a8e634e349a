"""hippo installed in many Slack workspaces: one Runtime per workspace (team id), built on demand.

With SLACK_CLIENT_ID and SLACK_CLIENT_SECRET set, people install hippo through Slack's OAuth flow
(bot/slack/install.py) and each workspace gets its own memory: its remote (its own setting, else
HIPPO_MEMORY_REMOTE_TEMPLATE with `{team}`, else a local bare repository under the data folder),
and through `Config.workspace = <team id>` its own cache, lock, Redis keys, read counts, snapshots
and dream; its own bot token and digest channel. Redis, Celery and Claude are shared.

The team id travels with the work: the Slack front door sets `TEAM` for the request, `enqueue`
adds it to every task's kwargs (`team`), and in the worker `HippoTask.runtime`
(jobs/task_base.py) hands the task its workspace's Runtime (`runtime_for`). The token is looked
up for every task: a workspace that uninstalled hippo gets no token (its replies go to the
console outbox) while its memory stays where it is.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from integrations.slack_installs import Installs, Workspace, make_engine
from jobs.config import Config
from jobs.runtime import Runtime
from memory.git import Store

if TYPE_CHECKING:
    import anthropic
    import redis
    from celery import Celery

# The workspace the current request or task is for ("" = the deployment's own, from the env).
TEAM: ContextVar[str] = ContextVar("hippo_team", default="")
_TEAM_ID = re.compile(r"^[A-Z0-9]{2,32}$")


class UnknownTeam(ValueError):
    """A team id that is not Slack's shape (T… letters and digits): never a path or a URL."""


def check_team(team: str) -> str:
    if not _TEAM_ID.match(team):
        raise UnknownTeam(f"{team!r} is not a Slack team id (capital letters and digits, T…)")
    return team


def remote_for(base: Config, ws: Workspace) -> str:
    """The workspace's memory remote: its own, else the template's, else a local bare repo."""
    if ws.memory_remote:
        return ws.memory_remote
    if base.memory_remote_template:
        return base.memory_remote_template.replace("{team}", ws.team_id)
    return str(base.data_dir / "workspaces" / ws.team_id / "remote.git")


def team_config(base: Config, ws: Workspace, bot_token: str) -> Config:
    """The deployment's Config, made the workspace's: its name, remote, token, digest channel."""
    return replace(
        base,
        workspace=ws.team_id,
        memory_remote=remote_for(base, ws),
        slack_bot_token=bot_token,
        digest_channel=ws.digest_channel,
    )


class TeamRuntime(Runtime):
    """One workspace's Runtime: its own Config and Store, the deployment's Redis, Celery, Claude."""

    def __init__(self, workspaces: Workspaces, config: Config) -> None:
        super().__init__(config)
        self.workspaces = workspaces
        self.base = workspaces.base
        self.team = config.workspace

    @property
    def redis_url(self) -> str:
        return self.base.redis_url

    @cached_property
    def redis(self) -> redis.Redis:
        return self.base.redis

    @cached_property
    def celery(self) -> Celery:
        return self.base.celery

    @cached_property
    def llm(self) -> anthropic.Anthropic | None:
        return self.base.llm

    @cached_property
    def store(self) -> Store:
        return self.workspaces.store(self.config, lambda: super(TeamRuntime, self).store)

    def close(self) -> None:
        """Nothing of its own to close: Redis belongs to the deployment's Runtime."""


class Workspaces:
    """The installed workspaces of one deployment, and a Runtime for each (stores cached)."""

    def __init__(self, base: Runtime) -> None:
        self.base = base
        self._lock = threading.Lock()
        self._stores: dict[tuple[str, str], Store] = {}

    @cached_property
    def installs(self) -> Installs:
        config = self.base.config
        engine = make_engine(config.database_url, config.data_dir)
        installs = Installs(engine, config.slack_client_id)
        installs.create_tables()
        return installs

    def config_for(self, team: str) -> Config:
        """The workspace's Config, its bot token read now (an uninstall takes effect at once)."""
        check_team(team)
        bot = self.installs.bot(team)
        ws = self.installs.workspace(team) or Workspace(team)
        return team_config(self.base.config, ws, bot.bot_token or "" if bot else "")

    def runtime(self, team: str) -> Runtime:
        return TeamRuntime(self, self.config_for(team))

    def store(self, config: Config, build: Callable[[], Store]) -> Store:
        """The workspace's Store, opened (and its memory laid out, when new) once per process."""
        key = (config.workspace, config.remote)
        with self._lock:
            found = self._stores.get(key)
        if found is not None:
            return found
        store = build()
        store.init()  # an unreachable remote raises here: the task retries later
        with self._lock:
            return self._stores.setdefault(key, store)


_ATTACH_LOCK = threading.Lock()


def workspaces_of(rt: Runtime) -> Workspaces:
    """The deployment's installed workspaces: one `Workspaces` per deployment Runtime, kept on
    it (not on jobs/runtime.py's class, which would make the two modules import each other)."""
    if isinstance(rt, TeamRuntime):
        return rt.workspaces
    with _ATTACH_LOCK:
        found = vars(rt).get("_hippo_workspaces")
        if not isinstance(found, Workspaces):
            found = Workspaces(rt)
            vars(rt)["_hippo_workspaces"] = found  # lives and goes with its Runtime
        return found


@contextmanager
def team_scope() -> Iterator[None]:
    """Whatever a request sets TEAM to ends with it: the thread serves other requests next."""
    token = TEAM.set("")
    try:
        yield
    finally:
        TEAM.reset(token)


def team_of(rt: Runtime) -> str:
    """The workspace a request or task is for: the front door's TEAM, else the Runtime's own
    (a task of one workspace queueing another task), else "" (the deployment's own)."""
    return TEAM.get() or (rt.team if isinstance(rt, TeamRuntime) else "")


def runtime_for(base: Runtime, team: str) -> Runtime:
    """`team`'s Runtime when hippo is installed through OAuth; else the deployment's own."""
    if not team or not base.config.slack_oauth or isinstance(base, TeamRuntime):
        return base
    return workspaces_of(base).runtime(team)
