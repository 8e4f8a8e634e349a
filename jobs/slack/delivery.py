"""Replies where the person is: a slash command's answer goes back through its `response_url`
(ephemeral, only the person sees it, unless they asked to share it); an answer hippo cannot post
in a channel it has not joined goes to the person's DM with hippo, saying how to invite it; a
refusal is said ephemerally to the one who pressed the button.

Front doors put `response_url` (and `share`) into the task's keyword arguments; the task passes
them on as a `ReplyTo` (where the reply goes), so every task's reply follows the same rules.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from integrations.slack import Blocks
from jobs.runtime import Runtime

log = logging.getLogger("hippo.slack")

# Where Slack's response URLs live (commercial Slack and GovSlack); SLACK_API_URL's host too
# (a test's loopback Slack). Any other URL in a request is not Slack's and is never posted to.
RESPONSE_HOSTS = ("hooks.slack.com", "hooks.slack-gov.com")
NOT_JOINED = frozenset(["not_in_channel", "channel_not_found"])
INVITE = (
    "I'm not in <#{channel}>, so I answered you here. To use me there, type "
    "`/invite @hippo` in that channel (or mention me and pick *Invite them*)."
)


@dataclass(frozen=True)
class ReplyTo:
    """Where a task's reply goes: the channel (and thread); for a slash command or an ephemeral
    button, its response URL and whether the person asked to share the answer; and who asked
    (an answer the response URL no longer takes is shown to them only)."""

    channel: str
    user: str = ""
    thread_ts: str | None = None
    response_url: str = ""
    share: bool = False

    @classmethod
    def of(
        cls, channel: str, ctx: Mapping[str, Any], *, user: str = "", thread_ts: str | None = None
    ) -> ReplyTo:
        """From a task's keyword arguments (its front door's SlackContext, `ctx`)."""
        return cls(
            channel,
            user or str(ctx.get("user") or ""),
            thread_ts or None,
            str(ctx.get("response_url") or ""),
            bool(ctx.get("share")),
        )


def response_url_ok(rt: Runtime, url: str) -> bool:
    parts = urlsplit(url)
    own = urlsplit(rt.config.slack_api_url).netloc
    return parts.scheme in ("https", "http") and (
        parts.hostname in RESPONSE_HOSTS or (bool(own) and parts.netloc == own)
    )


def deliver(rt: Runtime, to: ReplyTo, text: str, *, blocks: Blocks | None = None) -> str:
    """Say `text` where the person is; returns the posted message's ts ("" when it has none).
    Raises what the channel post raised when no other place worked (the caller decides)."""
    url, user, channel, thread_ts = to.response_url, to.user, to.channel, to.thread_ts
    if url and not rt.config.slack_bot_token:  # offline: no Slack to answer; the outbox
        if to.share or not user:
            return rt.poster.post(channel, text, blocks=blocks, thread_ts=thread_ts)
        return ephemeral(rt, channel, user, text, blocks=blocks)
    if url and respond(rt, url, text, blocks=blocks, share=to.share):
        return ""
    if url and user:  # the response URL expired (30 minutes, 5 uses): only the person sees it
        try:
            return ephemeral(rt, channel, user, text, blocks=blocks)
        except SlackApiError as exc:
            if exc.response.get("error") not in NOT_JOINED:
                raise
            return direct(rt, user, INVITE.format(channel=channel) + "\n\n" + text, blocks)
    try:
        return rt.poster.post(channel, text, blocks=blocks, thread_ts=thread_ts)
    except SlackApiError as exc:
        if exc.response.get("error") not in NOT_JOINED or not user or channel == user:
            raise
        log.info("not in %s: answering %s in a DM", channel, user)
        return direct(rt, user, INVITE.format(channel=channel) + "\n\n" + text, blocks)


def respond(
    rt: Runtime, url: str, text: str, *, blocks: Blocks | None = None, share: bool = False
) -> bool:
    """Post to a slash command's (or an ephemeral message's) response URL; False when Slack
    did not take it (expired, used up) or the URL is not Slack's."""
    if not response_url_ok(rt, url):
        log.warning("not posting to a response_url outside Slack: %s", urlsplit(url).netloc)
        return False
    kind = "in_channel" if share else "ephemeral"
    try:
        resp = WebhookClient(url, timeout=10).send(text=text, blocks=blocks, response_type=kind)
    except OSError as exc:  # unreachable (urllib's URLError is an OSError): say it elsewhere
        log.warning("response_url unreachable: %s", exc)
        return False
    if resp.status_code != 200:
        log.warning("response_url answered %s: %s", resp.status_code, resp.body)
        return False
    return True


def replace(rt: Runtime, url: str, text: str) -> bool:
    """Replace the ephemeral message a button was on (chat.update cannot reach those)."""
    if not response_url_ok(rt, url):
        return False
    try:
        resp = WebhookClient(url, timeout=10).send(text=text, blocks=[], replace_original=True)
    except OSError as exc:
        log.warning("response_url unreachable: %s", exc)
        return False
    return resp.status_code == 200


def ephemeral(
    rt: Runtime, channel: str, user: str, text: str, *, blocks: Blocks | None = None
) -> str:
    """Only `user` sees it, in `channel` (the console outbox offline)."""
    if not rt.config.slack_bot_token:
        return rt.outbox.post(f"{channel} (only {user})", text, blocks=blocks)
    resp = rt.slack.chat_postEphemeral(channel=channel, user=user, text=text, blocks=blocks)
    return str(resp.get("message_ts") or "")


def direct(rt: Runtime, user: str, text: str, blocks: Blocks | None = None) -> str:
    """A message in the person's DM with hippo (App Home → Messages); chat:write is enough."""
    return rt.poster.post(user, text, blocks=blocks)


def update(rt: Runtime, to: ReplyTo, ts: str, text: str) -> None:
    """Replace message `ts` hippo posted: through the response URL when it was ephemeral."""
    if not (to.response_url and replace(rt, to.response_url, text)):
        rt.poster.update(to.channel, ts, text)
