"""Mentions: "@hippo …" as an `app_mention` or a `message` event, routed by what it asks.

The same message can arrive twice (subscribed to both events, different event_ids); the claim on
(channel, ts) lets exactly one through. A `message` only claims when it mentions hippo, so a
plain message never swallows the mention (openclaw#34872).

In a DM with hippo (`message.im`) every message is for hippo, with or without a mention, and the
answer comes in the DM itself (in the thread only when the person wrote in one). Channel
messages (`message.channels`/`message.groups`, no longer in manifest.yml: `app_mention` covers
mentions) that do not mention hippo are dropped here, before any claim or task.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext

from bot.slack.dedupe import submit
from bot.slack.intake import route
from bot.slack.intent import SlackContext
from integrations.slack_post import plain_text
from jobs.runtime import Runtime

# Message subtypes that are a person writing; edits, deletes and joins are not requests.
_PEOPLE = (None, "thread_broadcast", "file_share")


def bot_user(body: dict[str, Any], context: BoltContext) -> str:
    """hippo's own user id: from the envelope (works offline), else from auth.test."""
    for auth in body.get("authorizations") or []:
        if auth.get("is_bot") and auth.get("user_id"):
            return str(auth["user_id"])
    users = body.get("authed_users") or []
    return str(users[0]) if users else str(context.bot_user_id or "")


def handle(rt: Runtime, body: dict[str, Any], event: dict[str, Any]) -> bool:
    """Route a mention and enqueue it once; False when it was a repeat."""
    channel, ts = str(event.get("channel") or ""), str(event.get("ts") or "")
    direct = event.get("channel_type") == "im"  # a DM: answer in it, not in a new thread
    intent = route(plain_text(str(event.get("text") or "")))
    return submit(
        rt,
        intent,
        [("event", str(body.get("event_id"))), ("message", channel, ts)],
        SlackContext(
            key=f"slack:{body.get('event_id')}",
            channel=channel,
            channel_name="",
            ts=ts,
            thread_ts=str(event.get("thread_ts") or ("" if direct else ts)),
            user=str(event.get("user") or ""),
        ).sent_by(event),
    )


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.event("app_mention")
    def on_mention(body: dict[str, Any], event: dict[str, Any]) -> None:
        handle(rt, body, event)

    @bolt.event("message")
    def on_message(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        if event.get("subtype") not in _PEOPLE or event.get("bot_id"):
            return
        if event.get("channel_type") == "im":
            handle(rt, body, event)
            return
        me = bot_user(body, context)
        if me and f"<@{me}" in str(event.get("text") or ""):
            handle(rt, body, event)
