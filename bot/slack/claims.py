"""Claim a Slack request once, then enqueue its task: what every listener shares.

Dedupe is Redis `SET NX`: per Slack event_id (retries) and per (channel, ts) (the same message
delivered as both `app_mention` and `message`). A claim is "pending" (30 s) until the task is
queued, then "queued" for DEDUPE_TTL; it is released when the enqueue fails, so Slack's retry can
still get through. If Redis went away before the release, the pending claim expires by itself, and
a retry that meets a pending claim gets 503 (Slack tries again later), never a silent 200.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from bot.slack.intent import Intent, SlackContext
from integrations import metrics
from jobs.celery_app import enqueue
from jobs.slack.channels import remember_channel_name

if TYPE_CHECKING:
    from jobs.runtime import Runtime

DEDUPE_TTL = 3 * 24 * 3600  # Slack retries for ~5 minutes; a day-long margin costs nothing
PENDING_TTL = 30  # a claim whose enqueue never finished: shorter than Slack's 1-minute retry
PREFIX = "hippo:slack:"


class Claim(StrEnum):
    """What a claim key holds in Redis."""

    SEEN = "1"  # claim(): seen once, nothing queued by it
    PENDING = "pending"  # submit(): its task is being queued
    QUEUED = "queued"  # submit(): its task is queued


# How a front door's ack ended, as counted in hippo_acks_total{outcome}.
AckOutcome = Literal["queued", "duplicate"]


class ClaimPending(Exception):
    """Another delivery of this request is being queued right now, or its enqueue died with
    Redis; the front door answers 503 so Slack retries rather than dropping it."""


def claim(rt: Runtime, *parts: str) -> bool:
    """True the first time these parts are seen (within DEDUPE_TTL), False for a repeat."""
    key = PREFIX + "seen:" + ":".join(parts)
    return bool(rt.redis.set(key, Claim.SEEN.value, nx=True, ex=DEDUPE_TTL))


def release(rt: Runtime, *parts: str) -> None:
    rt.redis.delete(PREFIX + "seen:" + ":".join(parts))


def submit(
    rt: Runtime, intent: Intent, claims: list[tuple[str, ...]], context: SlackContext
) -> bool:
    """Claim every key, then enqueue; False (nothing queued) if any claim was already taken."""
    remember_channel_name(rt, context.channel, context.channel_name or "")
    keys = [PREFIX + "seen:" + ":".join(parts) for parts in claims]
    # One round trip for all claims: the ack path is a few Redis calls, each one counts.
    pipe = rt.redis.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, Claim.PENDING.value, nx=True, ex=PENDING_TTL)
    won = [k for k, ok in zip(keys, pipe.execute(), strict=True) if ok]
    if len(won) < len(keys):
        if won:
            rt.redis.delete(*won)
        held = rt.redis.mget([k for k in keys if k not in won])
        if Claim.PENDING.value.encode() in held:
            raise ClaimPending("this request is being queued by another delivery")
        _count(intent, "duplicate")
        return False
    try:
        enqueue(rt, intent.task, **context.as_kwargs(), **intent.args)
    except Exception:
        if won:  # let Slack's retry try again
            rt.redis.delete(*won)
        raise
    pipe = rt.redis.pipeline(transaction=False)
    for key in keys:
        # Only a claim still held (xx): the task may already have run and released it (a refused
        # Revert releases its button so an admin's press counts); setting it again would make
        # that admin's press a duplicate.
        pipe.set(key, Claim.QUEUED.value, ex=DEDUPE_TTL, xx=True)
    pipe.execute()
    _count(intent, "queued")
    return True


def _count(intent: Intent, outcome: AckOutcome) -> None:
    metrics.ACKS.labels("slack", intent.task, outcome).inc()
