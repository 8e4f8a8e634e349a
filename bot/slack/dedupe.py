"""Claim a Slack request once, then enqueue its task: what every listener shares.

Dedupe is a Redis claim (jobs/keys.py) per Slack event_id (retries) and per (channel, ts) (the same
message delivered as both `app_mention` and `message`). A claim is "pending" (30 s) until the task
is queued, then "queued" for DEDUPE_TTL; it is released when the enqueue fails, so Slack's retry
can still get through. If Redis went away before the release, the pending claim expires by itself,
and a retry that meets a claim still pending after a short wait gets 503 (Slack tries again later),
never a silent 200. The task's intake-journal entry (jobs/journal.py) is written in the claims'
round trip and dropped again when a claim was already taken. Marking the claims "queued" is done
after the ack has gone out when the web route allows it (`after_ack`): the task is queued and
journaled before the answer, so the client waits on two Redis round trips, not three.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Literal

from bot.slack.intent import Intent, SlackContext
from integrations import metrics
from jobs import journal, keys
from jobs.broker import BROKER_DOWN
from jobs.keys import PENDING, Claim, finish_all, release_all, take_all
from jobs.slack.channels import remember_channel_name
from jobs.task_messages import Prepared, prepare, publish

if TYPE_CHECKING:
    from jobs.runtime import Runtime

DEDUPE_TTL = 3 * 24 * 3600  # Slack retries for ~5 minutes; a day-long margin costs nothing
PENDING_TTL = 30  # a claim whose enqueue never finished: shorter than Slack's 1-minute retry
# A copy (the `message` twin of an app_mention, sent with it) usually finds the first delivery's
# claim still pending: its task is queued, the claim turns "queued" as its ack goes out. The copy
# waits that out (a few ms) and is a duplicate, rather than a 503 that Slack redelivers a minute
# later; a claim still pending after COPY_WAIT is a delivery that may have died: 503.
COPY_WAIT, COPY_POLL = 0.25, 0.003
SEEN = "1"  # claim(): seen once, nothing queued by it
QUEUED = "queued"  # submit(): its task is queued (PENDING while it is being queued)


log = logging.getLogger("hippo.slack")
# Work that may wait until the ack has been sent: a list while the web route serves a request
# (`after_ack`), None elsewhere (Socket Mode, tasks): then it is done at once.
Later = list[Callable[[], None]]
_AFTER_ACK: ContextVar[Later | None] = ContextVar("hippo_after_ack", default=None)


# How a front door's ack ended, as counted in hippo_acks_total{outcome}.
AckOutcome = Literal["queued", "duplicate"]


class ClaimPending(Exception):
    """Another delivery of this request is being queued right now, or its enqueue died with
    Redis; the front door answers 503 so Slack retries rather than dropping it."""


def request_claim(rt: Runtime, *parts: str) -> Claim:
    """The claim on a Slack request named by `parts` (an event id, a channel and ts, a button)."""
    return Claim(rt.redis, keys.slack_seen(*parts), pending=PENDING_TTL, done=DEDUPE_TTL)


def claim(rt: Runtime, *parts: str) -> bool:
    """True the first time these parts are seen (within DEDUPE_TTL), False for a repeat."""
    return Claim(rt.redis, keys.slack_seen(*parts), pending=DEDUPE_TTL).take(SEEN)


def submit(
    rt: Runtime, intent: Intent, claims: list[tuple[str, ...]], context: SlackContext
) -> bool:
    """Claim every key, then enqueue; False (nothing queued) if any claim was already taken."""
    remember_channel_name(rt, context.channel, context.channel_name or "")
    wanted = [request_claim(rt, *parts) for parts in claims]
    task = prepare(rt, intent.message, context.as_kwargs())
    # One round trip for the journal entry and all claims: the ack path is a few Redis calls,
    # each one counts. The entry goes first: a task whose claims are won is always written down.
    pipe = rt.redis.pipeline(transaction=False)
    task.record(pipe)
    won = take_all(wanted, pipe=pipe)
    if len(won) < len(wanted):
        return _lost(rt, intent, task, wanted, won)
    try:
        publish(rt, task, recorded=True)
    except Exception:
        release_all(won)  # let Slack's retry try again
        raise
    # Only a claim still held: the task may already have run and released it (a refused Revert
    # releases its button so an admin's press counts); setting it again would make that admin's
    # press a duplicate.
    _later(lambda: finish_all(wanted, QUEUED, if_held=True))
    _count(intent, "queued")
    return True


@contextmanager
def after_ack() -> Iterator[Later]:
    """Within: what `submit` may do after the answer is collected in the list it yields, for
    the caller to `run_after_ack` once the answer has gone out."""
    later: Later = []
    token = _AFTER_ACK.set(later)
    try:
        yield later
    finally:
        _AFTER_ACK.reset(token)


def run_after_ack(later: Later) -> None:
    """Run what `after_ack` collected. A claim left "pending" because Redis went away meanwhile
    expires in PENDING_TTL; until then a retry gets 503, and after it the task is queued again
    and runs once (every task is idempotent by its key)."""
    for work in later:
        try:
            work()
        except BROKER_DOWN as exc:
            log.warning("a claim stays pending until it expires: %s", exc)


def _later(work: Callable[[], None]) -> None:
    later = _AFTER_ACK.get()
    if later is None:
        work()
    else:
        later.append(work)


def _lost(
    rt: Runtime, intent: Intent, task: Prepared, wanted: list[Claim], won: list[Claim]
) -> bool:
    """A repeat: drop its journal entry and the claims it took (one round trip), then 503 if
    another delivery is still being queued, else a duplicate."""
    pipe = rt.redis.pipeline(transaction=False)
    journal.finished(pipe, task.task_id)
    if won:
        pipe.delete(*[c.key for c in won])
    others = [c.key for c in wanted if c not in won]
    pipe.mget(others)
    held = pipe.execute()[-1]
    deadline = time.monotonic() + COPY_WAIT
    while PENDING.encode() in held and time.monotonic() < deadline:
        time.sleep(COPY_POLL)
        held = rt.redis.mget(others)
    if PENDING.encode() in held:
        raise ClaimPending("this request is being queued by another delivery")
    _count(intent, "duplicate")
    return False


def _count(intent: Intent, outcome: AckOutcome) -> None:
    metrics.ACKS.labels("slack", intent.task, outcome).inc()
