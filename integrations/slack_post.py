"""Posting to Slack, or to the console outbox when hippo runs without a Slack bot token.

`Poster` is what every feature uses to say something in Slack. `SlackPoster` wraps a real
`slack_sdk.WebClient` (429 `Retry-After` and 5xx retried); `Outbox` keeps each message in Redis
(and logs it) so a laptop can run every feature offline and the console can show what hippo said.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any, Protocol

import redis
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.web import SlackResponse

log = logging.getLogger("hippo.slack")

Blocks = list[dict[str, Any]]
OUTBOX_MAX = 1000  # the outbox is a window for people, not an archive

_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")
_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_CHANNEL = re.compile(r"<#[A-Z0-9]+\|([^>]*)>")


def make_web_client(token: str | None, base_url: str, *, timeout: int = 10) -> WebClient:
    """A WebClient that honours 429 Retry-After and retries 5xx and dropped connections."""
    return WebClient(
        token=token or None,
        base_url=base_url,
        timeout=timeout,
        retry_handlers=[
            ConnectionErrorRetryHandler(max_retry_count=2),
            RateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrorRetryHandler(max_retry_count=2),
        ],
    )


def plain_text(text: str) -> str:
    """Slack's message markup as a person would write it: links, channels, entities undone."""
    text = _MENTION.sub("", text)
    text = _LINK.sub(_link, text)
    text = _CHANNEL.sub(lambda m: "#" + m.group(1), text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return " ".join(text.split())


def _link(m: re.Match[str]) -> str:
    url, label = m.group(1), m.group(2)
    return f"{label} ({url})" if label and label != url else url


def archive_link(channel: str, ts: str, domain: str = "slack.com") -> str:
    """Slack's permalink shape, used when the API cannot be asked (offline, or an error)."""
    return f"https://{domain}/archives/{channel}/p{ts.replace('.', '')}"


class Poster(Protocol):
    """Everything hippo says in Slack goes through one of these."""

    def post(
        self, channel: str, text: str, *, blocks: Blocks | None = None, thread_ts: str | None = None
    ) -> str:
        """Post a message; returns its ts."""
        ...

    def update(self, channel: str, ts: str, text: str, *, blocks: Blocks | None = None) -> None:
        """Replace the text (and blocks) of a message hippo posted."""
        ...

    def permalink(self, channel: str, ts: str) -> str:
        """A link to a message, for `source:` metadata."""
        ...

    def fetch_message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """The message at (channel, ts), or None when it cannot be read."""
        ...

    def channel_name(self, channel: str) -> str:
        """The channel's name without '#', or its id when the name cannot be found."""
        ...


class SlackPoster:
    """The real thing: Slack's Web API through slack_sdk."""

    def __init__(self, client: WebClient) -> None:
        self.client = client
        self._names: dict[str, str] = {}

    def post(
        self, channel: str, text: str, *, blocks: Blocks | None = None, thread_ts: str | None = None
    ) -> str:
        resp = self.client.chat_postMessage(
            channel=channel, text=text, blocks=blocks, thread_ts=thread_ts, unfurl_links=False
        )
        return str(resp.get("ts") or "")

    def update(self, channel: str, ts: str, text: str, *, blocks: Blocks | None = None) -> None:
        # Slack keeps the old blocks unless told otherwise: an empty list removes the buttons.
        self.client.chat_update(channel=channel, ts=ts, text=text, blocks=blocks or [])

    def permalink(self, channel: str, ts: str) -> str:
        try:
            resp = self.client.chat_getPermalink(channel=channel, message_ts=ts)
        except SlackApiError as exc:
            log.warning("chat.getPermalink failed (%s); using the archive link", exc)
            return archive_link(channel, ts)
        return str(resp.get("permalink") or archive_link(channel, ts))

    def fetch_message(self, channel: str, ts: str) -> dict[str, Any] | None:
        # A top-level message is in the channel's history; a thread reply only in its thread,
        # where the parent always comes first, so scan what comes back for the exact ts.
        attempts: list[tuple[Callable[..., SlackResponse], dict[str, Any]]] = [
            (self.client.conversations_history, {"latest": ts, "oldest": ts, "limit": 1}),
            (self.client.conversations_replies, {"ts": ts, "oldest": ts, "limit": 15}),
        ]
        for method, kwargs in attempts:
            try:
                resp = method(channel=channel, inclusive=True, **kwargs)
            except SlackApiError as exc:
                log.warning("cannot read %s/%s: %s", channel, ts, exc)
                continue
            for message in resp.get("messages") or []:
                if message.get("ts") == ts:
                    return dict(message)
        return None

    def channel_name(self, channel: str) -> str:
        if channel not in self._names:
            try:
                resp = self.client.conversations_info(channel=channel)
                self._names[channel] = str(resp["channel"].get("name") or channel)
            except SlackApiError as exc:
                log.warning("conversations.info %s failed: %s", channel, exc)
                return channel
        return self._names[channel]


class Outbox:
    """The console outbox: what hippo would have posted, kept in Redis and logged."""

    def __init__(self, r: redis.Redis, key: str) -> None:
        """`key`: the Redis list it keeps (jobs/keys.py's OUTBOX; `key:seq` numbers posts)."""
        self.redis = r
        self.key = key

    def _record(self, kind: str, **fields: Any) -> None:
        item = {"kind": kind, "at": time.time(), **fields}
        pipe = self.redis.pipeline()
        pipe.rpush(self.key, json.dumps(item))
        pipe.ltrim(self.key, -OUTBOX_MAX, -1)
        pipe.execute()

    def post(
        self, channel: str, text: str, *, blocks: Blocks | None = None, thread_ts: str | None = None
    ) -> str:
        # A unique, increasing ts like Slack's, so thread replies and updates can refer to it.
        ts = f"{int(time.time())}.{int(self.redis.incr(self.key + ':seq')) % 1_000_000:06d}"
        self._record("post", channel=channel, ts=ts, thread_ts=thread_ts, text=text, blocks=blocks)
        where = f"{channel} (thread {thread_ts})" if thread_ts else channel
        log.info("outbox → %s: %s", where, text)
        return ts

    def update(self, channel: str, ts: str, text: str, *, blocks: Blocks | None = None) -> None:
        self._record("update", channel=channel, ts=ts, text=text, blocks=blocks)
        log.info("outbox ✎ %s %s: %s", channel, ts, text)

    def permalink(self, channel: str, ts: str) -> str:
        return archive_link(channel, ts)

    def fetch_message(self, channel: str, ts: str) -> dict[str, Any] | None:
        return None  # offline: there is no Slack to read from

    def channel_name(self, channel: str) -> str:
        return channel  # offline there is no conversations.info

    def messages(self, limit: int = 100) -> list[dict[str, Any]]:
        """The newest `limit` messages, oldest first."""
        raw = self.redis.lrange(self.key, -limit, -1) if limit > 0 else []
        return [json.loads(item) for item in raw]
