"""How a Slack task answers, on someone's behalf: their git author, the source link, the reply.

`reply_once` posts a task's answer once per key; `write_or_refuse` is the ladder every task that
writes for a person climbs: the write's own reply, or a refusal naming memory's reason, while a
transient failure (remote, lock) propagates so the task runs again with the same key.

Replies go where the person is (`deliver`, to a `ReplyTo`): a slash command's answer goes back
through its `response_url` (ephemeral, only the person sees it, unless they asked to share it);
an answer hippo cannot post in a channel it has not joined goes to the person's DM with hippo,
saying how to invite it; a refusal is said ephemerally to the one who pressed the button. Front
doors put `response_url` (and `share`) into the task's keyword arguments; the task passes them on
as a `ReplyTo`, so every task's reply follows the same rules.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis.exceptions
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookClient

from integrations.slack_post import Blocks
from jobs import keys
from jobs.keys import Claim
from jobs.runtime import Runtime
from jobs.task_base import HippoTask, retrying
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.git import Author
from memory.markup import slack

REPLIED_TTL = 3 * 24 * 3600
SENDING_TTL = 600  # a reply being sent by a task that died: another may send it after this
# Slack errors no retry can fix (the bot was removed, the channel archived…).
PERMANENT = frozenset(
    [
        "not_in_channel",
        "channel_not_found",
        "is_archived",
        "thread_not_found",
        "msg_too_long",
        "invalid_blocks",
        "no_text",
        "account_inactive",
        "invalid_auth",
        "not_authed",
    ]
)
# Transient failures (the remote, the lock, Redis, Slack): the task runs again with the same key.
RETRY = retrying(SlackApiError)
log = logging.getLogger("hippo.slack")


def author(user: str) -> Author:
    """The git author for a Slack user (their id: names change, ids do not)."""
    return Author(user or "slack", f"{(user or 'slack').lower()}@users.slack.invalid")


def source_for(rt: Runtime, channel: str, ts: str) -> str:
    """The message's permalink; for a slash command (no message) the channel's."""
    return rt.poster.permalink(channel, ts) if ts else f"https://slack.com/archives/{channel}"


def write_or_refuse(write: Callable[[], str], refusal: str) -> str:
    """`write()`'s reply, or `refusal` (a format with `{error}`) when memory refuses the write
    (a secret, a conflict, a bad path). Not for transient failures: those are raised again."""
    try:
        return write()
    except (RemoteError, LockTimeout):
        raise
    except MemoryStoreError as exc:
        return refusal.format(error=slack(str(exc)))  # errors quote what was written


def reply_once(
    rt: Runtime,
    task: HippoTask,
    key: str,
    to: ReplyTo,
    text: str,
    *,
    blocks: Blocks | None = None,
) -> str | None:
    """Post once per key. A rerun of this very task (worker died mid-post) posts again rather
    than lose the reply; any other task with the same key stays silent."""
    claim = Claim(rt.redis, keys.slack_replied(key), pending=SENDING_TTL, done=REPLIED_TTL)
    if not claim.take_or_hold(f"sending:{task.request.id}"):
        return None
    try:
        # A slash command answers through its response_url; a channel hippo is not in, in a DM.
        ts = deliver(rt, to, text, blocks=blocks)
    except SlackApiError as exc:
        if exc.response.get("error") in PERMANENT:  # retrying cannot help; the write stands
            log.warning("reply for %s not posted in %s: %s", key, to.channel, exc.response["error"])
            claim.finish(f"failed:{exc.response['error']}")
            return None
        claim.release()  # the retry must be able to send it
        raise
    except Exception:
        claim.release()
        raise
    _record_sent(claim, f"sent:{ts}")
    return ts


def _record_sent(claim: Claim, value: str) -> None:
    """The reply is posted: record it, waiting out a Redis restart (seconds) rather than fail
    the task, whose retry would post the reply a second time (seen in bench/faults.py)."""
    for pause in (0.5, 1, 2, 4, 8, 15, 0):
        try:
            claim.finish(value)
            return
        except redis.exceptions.RedisError as exc:
            if not pause:
                log.warning("reply posted but not recorded (%s): a rerun may post it again", exc)
                return
            time.sleep(pause)


# -- where a reply goes -----------------------------------------------------------------------

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
