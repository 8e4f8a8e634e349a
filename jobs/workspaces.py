"""hippo installed in many Slack workspaces: one Runtime per workspace (team id), built on demand.

With SLACK_CLIENT_ID and SLACK_CLIENT_SECRET set, people install hippo through Slack's OAuth flow
(bot/slack/install.py) and each workspace gets its own memory: its remote (its own setting, else
HIPPO_MEMORY_REMOTE_TEMPLATE with `{team}`, else a local bare repository under the data folder),
and through `Config.workspace = <team id>` its own cache, lock, Redis keys, read counts, snapshots
and dream; its own bot token and digest channel. Redis, Celery and Claude are shared.

The team id travels with the work: the Slack front door binds it in the request context
(jobs/context.py), `send` adds it to every task's kwargs (`team`), and in the worker
`HippoTask.runtime` (jobs/task_base.py) hands the task its workspace's Runtime
(`Runtime.for_team`, a `TeamRuntime` in jobs/runtime.py). The token is looked
up for every task: a workspace that uninstalled hippo gets no token (its replies go to the
console outbox) while its memory stays where it is.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cached_property

from integrations.slack_installs import Installs, Workspace, make_engine
from jobs.config import Config

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


class Workspaces:
    """The installed workspaces of one deployment: their installations and each one's Config.
    `Runtime.workspaces` holds one per deployment; `Runtime.for_team(team)` builds a workspace's
    Runtime from it, whose Store the deployment's `Runtime.stores` keeps open."""

    def __init__(self, base: Config) -> None:
        self.base = base

    @cached_property
    def installs(self) -> Installs:
        config = self.base
        engine = make_engine(config.database_url, config.data_dir)
        installs = Installs(engine, config.slack_client_id)
        installs.create_tables()
        return installs

    def config_for(self, team: str) -> Config:
        """The workspace's Config, its bot token read now (an uninstall takes effect at once)."""
        check_team(team)
        bot = self.installs.bot(team)
        ws = self.installs.workspace(team) or Workspace(team)
        return team_config(self.base, ws, bot.bot_token or "" if bot else "")
