"""What every Slack listener shares: parse text into an intent, claim it once, enqueue it.

Intents come from the feature modules in INTENT_MODULES, each with
`parse(text: str) -> Intent | None`; the first that matches wins, and help catches the rest.
Dedupe is Redis `SET NX`: per Slack event_id (retries) and per (channel, ts) (the same message
delivered as both `app_mention` and `message`). A claim is "pending" (30 s) until the task is
queued, then "queued" for DEDUPE_TTL; it is released when the enqueue fails, so Slack's retry can
still get through. If Redis went away before the release, the pending claim expires by itself, and
a retry that meets a pending claim gets 503 (Slack tries again later), never a silent 200.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from integrations import metrics
from jobs.celery_app import enqueue
from jobs.runtime import Runtime
from jobs.slack.channels import remember_channel_name

INTENT_MODULES: tuple[str, ...] = (
    "bot.slack.instructions",
    "bot.slack.forget",
    "bot.slack.recall",
    "bot.slack.notes",
    "bot.slack.dream",  # "dream": run a dream now (admins)
    "bot.slack.agent",  # questions and requests for the agent ("why…?", "explain…")
    "bot.slack.help",  # matches anything: unknown requests get help
)

DEDUPE_TTL = 3 * 24 * 3600  # Slack retries for ~5 minutes; a day-long margin costs nothing
PENDING_TTL = 30  # a claim whose enqueue never finished: shorter than Slack's 1-minute retry
PREFIX = "hippo:slack:"


class ClaimPending(Exception):
    """Another delivery of this request is being queued right now, or its enqueue died with
    Redis; the front door answers 503 so Slack retries rather than dropping it."""


@dataclass(frozen=True)
class Intent:
    """A task to run (its Celery name) with the arguments parsed from the text."""

    task: str
    args: dict[str, Any] = field(default_factory=dict)
    ack: str = ""  # what a slash command answers at once (ephemeral), if anything


def route(text: str) -> Intent:
    """The intent of `text` (already plain): the first feature whose parser matches."""
    for name in INTENT_MODULES:
        intent: Intent | None = importlib.import_module(name).parse(text)
        if intent is not None:
            return intent
    raise LookupError("no intent matched; bot.slack.help must be last in INTENT_MODULES")


def claim(rt: Runtime, *parts: str) -> bool:
    """True the first time these parts are seen (within DEDUPE_TTL), False for a repeat."""
    key = PREFIX + "seen:" + ":".join(parts)
    return bool(rt.redis.set(key, "1", nx=True, ex=DEDUPE_TTL))


def release(rt: Runtime, *parts: str) -> None:
    rt.redis.delete(PREFIX + "seen:" + ":".join(parts))


def submit(rt: Runtime, intent: Intent, claims: list[tuple[str, ...]], **context: Any) -> bool:
    """Claim every key, then enqueue; False (nothing queued) if any claim was already taken."""
    remember_channel_name(rt, context.get("channel", ""), context.get("channel_name", ""))
    keys = [PREFIX + "seen:" + ":".join(parts) for parts in claims]
    # One round trip for all claims: the ack path is a few Redis calls, each one counts.
    pipe = rt.redis.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, "pending", nx=True, ex=PENDING_TTL)
    won = [k for k, ok in zip(keys, pipe.execute(), strict=True) if ok]
    if len(won) < len(keys):
        if won:
            rt.redis.delete(*won)
        held = rt.redis.mget([k for k in keys if k not in won])
        if b"pending" in held:
            raise ClaimPending("this request is being queued by another delivery")
        metrics.ACKS.labels("slack", intent.task, "duplicate").inc()
        return False
    try:
        enqueue(rt, intent.task, **context, **intent.args)
    except Exception:
        if won:  # let Slack's retry try again
            rt.redis.delete(*won)
        raise
    pipe = rt.redis.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, "queued", ex=DEDUPE_TTL)
    pipe.execute()
    metrics.ACKS.labels("slack", intent.task, "queued").inc()
    return True
