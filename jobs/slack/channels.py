"""Slack channel names, as every front door's ack records them and instruction files use them.

Recorded when a request is claimed (bot/slack/intake.py) from requests that carry the name (slash
commands, shortcuts), so a mention (which carries only the id) finds the same file, even offline.
"""

from __future__ import annotations

import re

from jobs.runtime import Runtime

# channel id → name
CHANNEL_NAMES = "hippo:slack:channel-names"
_NOT_NAMES = ("", "privategroup", "directmessage")  # what slash commands send for those


def remember_channel_name(rt: Runtime, channel: str, name: str) -> None:
    if channel and name not in _NOT_NAMES:
        rt.redis.hset(CHANNEL_NAMES, channel, name)


def channel_slug(rt: Runtime, channel: str, name: str = "") -> str:
    """The channel's file name: its Slack name (request, names seen, the API), else its id."""
    if name in _NOT_NAMES:
        seen = rt.redis.hget(CHANNEL_NAMES, channel)
        name = seen.decode() if isinstance(seen, bytes) else ""
    name = (name or rt.poster.channel_name(channel) or channel).lstrip("#").lower()
    slug = re.sub(r"[^a-z0-9_.-]+", "-", name).strip("-.")
    return slug or channel.lower()
