"""One Redis claim helper: `SET key holder NX EX pending`, for work that must happen once.

A claim is taken before the work (a short `pending` lifetime, so a holder that died frees it by
itself), turned into a long-lived `done` marker when the work is done (so a repeat is known),
and released when the work failed (so a retry can take it). Every use names its timeouts:

| use | key (jobs/keys.py) | pending | done |
| --- | --- | --- | --- |
| a Slack request (event id, message, button) | slack_seen | 30 s | 3 days |
| a GitHub webhook delivery (its GUID) | github_delivery | 60 s | 7 days |
| a pitfall check run per pull request head | github_check | 10 min | 30 days |
| a Slack reply per idempotency key | slack_replied | 10 min | 3 days |
| the intake journal's sweep (one worker at a time) | JOURNAL_SWEEP | the grace period | – |

Why those: Slack retries an unanswered request after 1 minute, so a dead enqueue must free its
claim before that (30 s); GitHub never retries by itself (60 s only bounds a Redis outage). A
check run or a reply can take minutes (GitHub's diff, Slack rate limits); 10 minutes is longer
than any of them and shorter than Celery's redelivery of a dead worker's task. The `done` times
outlast each sender's redelivery window (Slack: minutes; GitHub: 3 days by hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

PENDING = "pending"


@dataclass(frozen=True)
class Claim:
    """A claim on one Redis key, with its two lifetimes (seconds)."""

    redis: Any  # redis.Redis or a pipeline-capable client
    key: str
    pending: int  # how long a taken claim lives if its holder never finishes
    done: int = 0  # how long `finish` keeps it (0: `finish` is not used)

    def take(self, holder: str = PENDING) -> bool:
        """True when this call took the claim."""
        return bool(self.redis.set(self.key, holder, nx=True, ex=self.pending))

    def take_or_hold(self, holder: str) -> bool:
        """True when this call took the claim, or `holder` holds it already (the same work run
        again, e.g. a task redelivered after its worker died)."""
        return self.take(holder) or self.holder() == holder

    def holder(self) -> str:
        """What the claim holds ("" when nobody holds it)."""
        held = self.redis.get(self.key)
        return held.decode() if isinstance(held, bytes) else str(held or "")

    def finish(self, value: str, *, if_held: bool = False) -> None:
        """The work is done: keep `value` for `done` seconds. `if_held`: only if the claim is
        still there (the work may have released it on purpose meanwhile)."""
        self.redis.set(self.key, value, ex=self.done, xx=if_held)

    def release(self) -> None:
        """The work failed or was refused: let the next attempt take the claim."""
        self.redis.delete(self.key)


def take_all(claims: Sequence[Claim], holder: str = PENDING, *, pipe: Any = None) -> list[Claim]:
    """Take every claim in one round trip; returns those this call took. `pipe`: a pipeline
    with commands of the caller's queued already, run in the same round trip (before the
    claims)."""
    if not claims:
        if pipe is not None:
            pipe.execute()
        return []
    pipe = pipe if pipe is not None else claims[0].redis.pipeline(transaction=False)
    for c in claims:
        pipe.set(c.key, holder, nx=True, ex=c.pending)
    taken = pipe.execute()[-len(claims) :]
    return [c for c, ok in zip(claims, taken, strict=True) if ok]


def finish_all(claims: Sequence[Claim], value: str, *, if_held: bool = False) -> None:
    """`finish` each claim, in one round trip."""
    if not claims:
        return
    pipe = claims[0].redis.pipeline(transaction=False)
    for c in claims:
        pipe.set(c.key, value, ex=c.done, xx=if_held)
    pipe.execute()


def release_all(claims: Sequence[Claim]) -> None:
    if claims:
        claims[0].redis.delete(*[c.key for c in claims])
