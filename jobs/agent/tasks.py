"""The Celery task behind hippo's agent in Slack threads, its retries and the "Try again" button.

Anthropic 429/529/timeouts are retried by the SDK first, then here with growing countdowns. When
the retries run out, the thread gets a clear message with a "Try again" button (block action
`agent_retry`); the thread's working copy stays on disk, so nothing the agent edited is lost, and
nothing was pushed, because edits are written only after a turn has an answer.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any, Literal

from redis.exceptions import LockError

from jobs import keys
from jobs.runtime import Runtime
from jobs.slack import speaker
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Answer
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.markup import slack
from memory.trust.actors import Action, may

log = logging.getLogger("hippo.agent")

RETRY_ACTION = "agent_retry"
MAX_RETRIES = 3
BACKOFF = 15  # seconds; then 30, 60 (all far inside the broker's visibility timeout)
LOCK_TTL = 15 * 60  # one turn at a time per thread; a turn that runs longer loses the lock
LOCK_WAIT = 60  # then the task retries later rather than hold a worker while the thread is busy
RETRY_TTL = 7 * 24 * 3600  # how long a "Try again" button works

# How a question ended (the task's result, in its log): a redelivery of one answered, no
# answer after the last retry (a "Try again" button), memory refused the edits, or answered.
AnswerOutcome = Literal["duplicate", "gave up", "refused", "answered"]

# The agent (jobs.agent.turn) and the anthropic SDK load when a question is answered: the web
# process imports this module for its task names, and a worker without an API key never needs
# them (anthropic alone is about 70 MB of a process).
if TYPE_CHECKING:
    from jobs.agent.turn import Question


def retryable() -> tuple[type[Exception], ...]:
    """What is worth retrying: the provider busy or unreachable, the memory remote unreachable."""
    import anthropic

    return (
        anthropic.RateLimitError,
        anthropic.InternalServerError,  # 500, 503, 504 and 529 (OverloadedError)
        anthropic.APIConnectionError,  # APITimeoutError included
        RemoteError,
        LockTimeout,
    )


@task(Answer.TASK, max_retries=MAX_RETRIES, acks_late=True)
def answer(
    self: HippoTask,
    *,
    channel: str,
    text: str,
    user: str = "",
    ts: str = "",
    thread_ts: str = "",
    team: str = "",
    event_id: str = "",
    key: str = "",
    retry_of: str = "",
    response_url: str = "",
    share: bool = False,
    **ctx: Any,
) -> AnswerOutcome:
    """Answer a question asked in Slack (see jobs.agent.turn.take_turn).

    Takes the mention router's context (`key`, `channel`, `ts`, `thread_ts`, `user`) or the
    explicit `team`/`event_id`; `retry_of` is the ts of a "Try again" message to replace."""
    from jobs.agent.turn import Question, take_turn

    rt = self.runtime
    asked = event_id or key or self.request.id
    q = Question(team, channel, thread_ts or ts, ts, user, text, asked, response_url, share)
    if rt.redis.exists(keys.agent_done(q.event_id)):
        return "duplicate"
    if retry_of:
        rt.poster.update(channel, retry_of, "Trying again…")
    lock = rt.redis.lock(keys.agent_lock(q.thread), timeout=LOCK_TTL, blocking_timeout=LOCK_WAIT)
    if not lock.acquire():
        raise self.retry(countdown=BACKOFF)
    try:
        take_turn(rt, q, writes=may(speaker.actor(rt, user, ctx), Action.SAVE))  # else it reads
    except retryable() as exc:
        retries = int(self.request.retries or 0)
        if retries < MAX_RETRIES:
            log.warning("agent turn %s failed (%s); retry %d", q.event_id, exc, retries + 1)
            raise self.retry(exc=exc, countdown=BACKOFF * 2**retries) from exc
        offer_retry(rt, q, exc)
        return "gave up"
    except MemoryStoreError as exc:  # not worth retrying: say what is wrong and what to do
        say_refused(rt, q, exc)
        return "refused"
    finally:
        try:
            lock.release()
        except LockError:
            log.warning("agent lock for %s expired during the turn", q.thread)
    return "answered"


def say_refused(rt: Runtime, q: Question, exc: MemoryStoreError) -> None:
    log.warning("agent turn %s refused: %s", q.event_id, exc)
    text = f"Sorry, I could not answer: {slack(str(exc))}"
    rt.poster.post(q.channel, text, thread_ts=q.thread_ts or None)


def offer_retry(rt: Runtime, q: Question, exc: Exception) -> None:
    """Tell the thread the turn failed, with a "Try again" button that re-runs it."""
    rt.redis.set(keys.agent_retry(q.event_id), json.dumps(q.__dict__), ex=RETRY_TTL)
    text = (
        f"Sorry, I could not answer: {_why(exc)}, even after retrying. Your question is kept, "
        "and nothing I edited was lost or saved half-way. Press *Try again* in a minute."
    )
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": text}},
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": RETRY_ACTION,
                    "text": {"type": "plain_text", "text": "Try again"},
                    "value": q.event_id,
                }
            ],
        },
    ]
    rt.poster.post(q.channel, text, blocks=blocks, thread_ts=q.thread_ts or None)


def retry_from_button(rt: Runtime, value: str, action_ts: str) -> Question | None:
    """The question behind a "Try again" press, claimed once (a second press finds nothing)."""
    from jobs.agent.turn import Question

    raw = rt.redis.getdel(keys.agent_retry(value))
    if raw is None:
        return None
    q = Question(**json.loads(raw))
    # A new event id: the failed attempt never finished, and its dedupe key must not stop this.
    return Question(**{**q.__dict__, "event_id": f"{value}:retry:{action_ts}"})


def _why(exc: Exception) -> str:
    import anthropic

    if isinstance(exc, anthropic.RateLimitError):
        return "Claude's rate limit was reached"
    if isinstance(exc, anthropic.InternalServerError):
        return "Claude is overloaded or failing right now"
    if isinstance(exc, anthropic.APIConnectionError):
        return "Claude could not be reached in time"
    return f"the memory repository could not be written ({type(exc).__name__})"


def register(app: HippoCelery) -> None:
    app.add_tasks(answer)
