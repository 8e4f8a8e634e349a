"""Replies where the person is: a slash command's answer goes back through its `response_url`
(ephemeral, only the person sees it, unless they asked to share it); an answer hippo cannot post
in a channel it has not joined goes to the person's DM with hippo, saying how to invite it; a
refusal is said ephemerally to the one who pressed the button.

Front doors put `response_url` (and `share`) into the task's keyword arguments; `deliver` reads
them from the running task's request, so every task's reply follows the same rules.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from celery import Task, current_task
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from integrations.slack_post import Blocks, Outbox
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


def context(task: Task | None = None) -> dict[str, Any]:
    """The keyword arguments the running task (`task`, else Celery's current one) was called
    with: its front door's context. Empty outside a task."""
    request = getattr(task or current_task, "request", None)
    return dict(getattr(request, "kwargs", None) or {})


def response_url_ok(rt: Runtime, url: str) -> bool:
    parts = urlsplit(url)
    own = urlsplit(rt.config.slack_api_url).netloc
    return parts.scheme in ("https", "http") and (
        parts.hostname in RESPONSE_HOSTS or (bool(own) and parts.netloc == own)
    )


def deliver(
    rt: Runtime,
    task: Task | None,
    channel: str,
    text: str,
    *,
    blocks: Blocks | None = None,
    thread_ts: str | None = None,
) -> str:
    """Say `text` where the person is; returns the posted message's ts ("" when it has none).
    Raises what the channel post raised when no other place worked (the caller decides)."""
    ctx = context(task)
    url, user = str(ctx.get("response_url") or ""), str(ctx.get("user") or "")
    if url and not rt.config.slack_bot_token:  # offline: no Slack to answer; the outbox
        if ctx.get("share") or not user:
            return rt.poster.post(channel, text, blocks=blocks, thread_ts=thread_ts)
        return ephemeral(rt, channel, user, text, blocks=blocks)
    if url and respond(rt, url, text, blocks=blocks, share=bool(ctx.get("share"))):
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
        return Outbox(rt.redis).post(f"{channel} (only {user})", text, blocks=blocks)
    resp = rt.slack.chat_postEphemeral(channel=channel, user=user, text=text, blocks=blocks)
    return str(resp.get("message_ts") or "")


def direct(rt: Runtime, user: str, text: str, blocks: Blocks | None = None) -> str:
    """A message in the person's DM with hippo (App Home → Messages); chat:write is enough."""
    return rt.poster.post(user, text, blocks=blocks)


def update(rt: Runtime, task: Task, channel: str, ts: str, text: str) -> None:
    """Replace a message hippo posted: through the response URL when it was ephemeral."""
    url = str(context(task).get("response_url") or "")
    if not (url and replace(rt, url, text)):
        rt.poster.update(channel, ts, text)
