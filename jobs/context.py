"""The request context: what the running request or task is, bound once where it starts and read
anywhere below it. structlog's `contextvars`, typed: `bind(...)` returns a token, `reset(token)`
puts back what was bound before, `scope(...)` binds for a `with` block, `current()` reads.

- request_id: hippo's own id for the request. Bound by the web app's request hook (bot/ops.py)
  and a task's start (jobs/celery_app.py); read by logs, `send` (a task header) and the
  commits made meanwhile (the `Hippo-Request:` trailer, through the Store's context_trailers).
- caller_id: the id the caller sent (X-Request-ID), for the logs only, never history.
- task: the running task's name, for the logs.
- team: the Slack workspace of the request; bound by bot/slack/install.py's Bolt middleware,
  read by `send` (the task's `team`), channel names and the digest's buttons.

One ContextVar holding a frozen `RequestContext`: each thread and each task sees its own, and a
`reset` ends a request's values before the thread serves the next one. What is not here travels
as arguments: the reply target (a slash command's response URL) is part of the task's message,
and a workspace's Runtime is built from the task's `team` (jobs/task_base.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class RequestContext:
    """What the running request or task is (see the module's docstring)."""

    request_id: str = ""  # hippo's own id for the request (always valid in a trailer)
    caller_id: str = ""  # the id the caller sent (sanitized; logs only, never history)
    task: str = ""  # the running task's name
    team: str = ""  # the Slack workspace the request is for ("": the deployment's own)


# The default is frozen, so sharing it is safe (what B039 warns about is a mutable one).
_CURRENT: ContextVar[RequestContext] = ContextVar("hippo_context", default=RequestContext())  # noqa: B039


def current() -> RequestContext:
    return _CURRENT.get()


def bind(
    *,
    request_id: str | None = None,
    caller_id: str | None = None,
    task: str | None = None,
    team: str | None = None,
) -> Token[RequestContext]:
    """Bind the given fields (the others stay as they are); `reset` the token to undo."""
    given = {"request_id": request_id, "caller_id": caller_id, "task": task, "team": team}
    return _CURRENT.set(replace(current(), **{k: v for k, v in given.items() if v is not None}))


def reset(token: Token[RequestContext]) -> None:
    _CURRENT.reset(token)


@contextmanager
def scope(
    *,
    request_id: str | None = None,
    caller_id: str | None = None,
    task: str | None = None,
    team: str | None = None,
) -> Iterator[RequestContext]:
    """Bind for the `with` block: whatever code inside binds (a middleware setting the team)
    ends with it too, since the block's end restores the context from before it."""
    token = bind(request_id=request_id, caller_id=caller_id, task=task, team=team)
    try:
        yield current()
    finally:
        reset(token)
