"""What people said in a Slack thread between two of hippo's turns, for the agent's prompt.

One `conversations.replies` call per turn. Slack limits that method to 1 request a minute for
commercially distributed non-Marketplace apps (internal apps keep Tier 3), so a failure or a
rate limit is not an error here: the agent answers without the extra context.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from integrations.slack_post import plain_text

log = logging.getLogger("hippo.agent")

MAX_MESSAGES = 30
MAX_CHARS = 6000


@dataclass(frozen=True)
class Said:
    user: str
    text: str
    ts: str = ""  # the message's own ts (its permalink; a lesson's idempotency key)
    raw: str = ""  # as Slack sent it, lines and `>` quotes kept (memory.lessons.thread_rules)


def _ts(value: str) -> Decimal:
    try:
        return Decimal(value or "0")
    except InvalidOperation:
        return Decimal(0)


def between(
    client: WebClient, channel: str, thread_ts: str, *, after: str, before: str
) -> list[Said]:
    """People's messages in the thread with after < ts < before (bots and hippo left out)."""
    try:
        resp = client.conversations_replies(channel=channel, ts=thread_ts, limit=100)
    except SlackApiError as exc:  # rate limited, not in the channel…: answer without it
        log.info("thread %s/%s not read: %s", channel, thread_ts, exc)
        return []
    lo, hi = _ts(after), _ts(before)
    out: list[Said] = []
    for m in resp.get("messages") or []:
        if m.get("bot_id") or m.get("subtype") not in (None, "thread_broadcast", "file_share"):
            continue
        if lo < _ts(str(m.get("ts") or "")) < hi:
            text = plain_text(str(m.get("text") or ""))
            if text:
                user, ts = str(m.get("user") or "someone"), str(m.get("ts") or "")
                out.append(Said(user, text, ts, str(m.get("text") or "")))
    return out[-MAX_MESSAGES:]


def transcript(said: list[Said]) -> str:
    """The messages as lines `<user>: text`, newest kept when too long."""
    lines = [f"<{s.user}>: {s.text}" for s in said]
    while lines and sum(len(line) + 1 for line in lines) > MAX_CHARS:
        lines.pop(0)
    return "\n".join(lines)
