"""Slack channel names, as every front door's ack records them and instruction files use them.

Recorded when a request is claimed (bot/slack/intake.py) from requests that carry the name (slash
commands, shortcuts), so a mention (which carries only the id) finds the same file, even offline.
Kept per workspace: a channel shared between workspaces has one id and a name in each, and one
workspace's name must never pick another's preferences file.
"""

from __future__ import annotations

import re

from jobs import context, keys
from jobs.runtime import Runtime

# channel id → name, one hash per workspace (`names_key`)
_NOT_NAMES = ("", "privategroup", "directmessage")  # what slash commands send for those


def names_key(rt: Runtime) -> str:
    """The workspace's hash: installed through OAuth, the team of the request (at the door) or
    of the task's Runtime (in the worker); else the deployment's one workspace."""
    team = (context.current().team or rt.team) if rt.config.slack_oauth else ""
    return keys.channel_names(team or rt.config.workspace)


def remember_channel_name(rt: Runtime, channel: str, name: str) -> None:
    if channel and name not in _NOT_NAMES:
        rt.redis.hset(names_key(rt), channel, name)


def channel_slug(rt: Runtime, channel: str, name: str = "") -> str:
    """The channel's file name: its Slack name (request, names seen, the API), else its id."""
    if name in _NOT_NAMES:
        seen = rt.redis.hget(names_key(rt), channel)
        name = seen.decode() if isinstance(seen, bytes) else ""
    name = (name or rt.poster.channel_name(channel) or channel).lstrip("#").lower()
    slug = re.sub(r"[^a-z0-9_.-]+", "-", name).strip("-.")
    return slug or channel.lower()
