"""What day it is for the person asking: "due today" in a briefing or a reminders list is theirs.

A Slack user's date comes from their time zone in Slack (`users.info`'s `tz`, which hippo already
asks for identity: admins, thread lessons), kept in Redis for a day so a turn costs no extra
Web API call. An MCP caller is a Slack user when its token is bound to one (HIPPO_MCP_USERS);
anyone else, and anyone Slack cannot answer for, gets the team's date (HIPPO_TIMEZONE, UTC by
default). Dates hippo writes on entries (`added:`) stay the team's (jobs.config.today).
"""

from __future__ import annotations

import logging
import re
from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jobs import actors, keys
from jobs.runtime import Runtime

log = logging.getLogger("hippo.time")

_SLACK_USER = re.compile(r"^[UW][A-Z0-9]{2,}$")


def team_zone(rt: Runtime) -> ZoneInfo:
    return ZoneInfo(rt.config.timezone or "UTC")


def slack_zone(rt: Runtime, user: str) -> ZoneInfo | None:
    """`user`'s time zone in Slack, or None (no Slack, not a Slack id, Slack did not say)."""
    if not (rt.config.slack_bot_token and _SLACK_USER.match(user)):
        return None
    key = keys.slack_timezone(rt.team or rt.config.workspace, user)
    cached = rt.redis.get(key)
    name = cached.decode() if isinstance(cached, bytes) else (cached or "")
    if not cached:
        try:  # the answer that says who they are (jobs/actors.py) keeps their zone a day
            info = actors.slack_user(rt, user)
        except Exception as exc:  # a timeout: the team's date this time
            log.info("users.info %s failed (%s): the team's date", user, exc)
            return None
        name = str((info or {}).get("tz") or "")
    try:
        return ZoneInfo(name) if name and name != "-" else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def asker_date(rt: Runtime, user: str, now: datetime | None = None) -> date:
    """The date for `user` (a Slack user id, or anyone else: the team's) at `now`."""
    zone = slack_zone(rt, user) or team_zone(rt)
    return (now.astimezone(zone) if now is not None else datetime.now(zone)).date()
