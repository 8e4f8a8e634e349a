"""The request context: what the running request or task is, bound once where it starts and read
anywhere below it. structlog's `contextvars`, typed: `bind(...)` returns a token, `reset(token)`
puts back what was bound before, `current()` reads.

- request_id: hippo's own id for the request. Bound by the web app's request hook (bot/ops.py)
  and a task's start (jobs/celery_app.py); read by logs, `send` (a task header) and the
  commits made meanwhile (the `Hippo-Request:` trailer, through the Store's context_trailers).
- caller_id: the id the caller sent (X-Request-ID), for the logs only, never history.
- task: the running task's name, for the logs.
- team: the Slack workspace of the request; bound by bot/slack/install.py's Bolt middleware,
  read by `send` (the task's `team`), channel names and the digest's buttons.

The request id: made when a request arrives at the web app (bot/ops.py, `begin`); every log line
of that request carries it (jobs/observe.py), `send` (jobs/task_messages.py) puts it in the
Celery task's headers (HEADER), the task binds it again when it starts (jobs/task_base.py), and
every commit the task makes carries it (trailer `Hippo-Request:`, `trailers`). Tasks that no
request started (beat's schedule) get the task id as their request id. The id that goes into
history is always hippo's own: a caller's `X-Request-ID` (a proxy's, or anyone's) is logged
beside it as `caller_request_id`, never written into a commit.

One ContextVar holding a frozen `RequestContext`: each thread and each task sees its own, and a
`reset` ends a request's values before the thread serves the next one. What is not here travels
as arguments: the reply target (a slash command's response URL) is part of the task's message,
and a workspace's Runtime is built from the task's `team` (jobs/task_base.py).
"""

from __future__ import annotations

import re
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


# -- the request id --------------------------------------------------------------------------------

HEADER = "hippo_request_id"  # the Celery message header that carries it
TRAILER = "Hippo-Request"
_VALID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # what we accept back from a header
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def new_id() -> str:
    import uuid  # here: uuid loads platform (~4 ms), and a CLI search never asks for an id

    return uuid.uuid4().hex


def valid(request_id: str) -> bool:
    """True for an id hippo could have made: it goes into commit trailers and log fields."""
    return bool(_VALID.match(request_id))


def begin(request_id: str, task: str = "", *, caller: str = "") -> Token[RequestContext]:
    """Run what follows in this context under `request_id` (a new one unless it is valid):
    logs and commits made until `reset(token)` carry it; `caller`, the id the caller
    sent, only the logs (as `caller_request_id`). Returns the context's token."""
    rid = request_id if valid(request_id) else new_id()
    return bind(request_id=rid, task=task, caller_id=loggable(caller))


def trailers() -> dict[str, str]:
    """The trailers a commit made now carries: the request id (the Store asks at each write)."""
    rid = current().request_id
    return {TRAILER: rid} if rid else {}


def loggable(caller: str) -> str:
    """A caller's id as a log field: at most 64 characters, anything but [A-Za-z0-9._-] as '?'
    (no line breaks or quotes in a text log)."""
    return _UNSAFE.sub("?", caller[:64])
