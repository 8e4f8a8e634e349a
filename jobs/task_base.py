"""What every hippo task is built on: the app that carries the Runtime, the task base class, and
what every task does around its run (its request id bound, its logs, metrics and journal entry:
Celery's task_prerun and task_postrun signals, connected by `make_celery`).

The pattern of Flask's `celery_init_app`: the Celery app is made from the Runtime
(`jobs.celery_app.make_celery(rt)`), and a task reaches it as `self.runtime`, read from the app
that runs it (`self.app`). Nothing process-wide: two apps on two Runtimes (tests, the demo) run
their tasks against their own memory and Redis.

A task module declares its tasks with `@task(NAME, **options)` (NAME a constant next to the task,
which senders import) and lists them in its `register(app)` (see `TaskModule`).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from contextvars import Token
from typing import Any, NamedTuple, Protocol

from celery import Celery, Task, current_app, signals

from integrations import metrics
from jobs import context, journal, observe
from jobs.broker import BROKER_DOWN
from jobs.config import Config
from jobs.context import RequestContext
from jobs.runtime import Runtime
from memory.errors import LockTimeout, RemoteError

log = logging.getLogger("hippo.tasks")


class HippoTask(Task):  # type: ignore[misc]  # celery ships no types
    """A task run by a `HippoCelery`: `self.runtime` is that app's Runtime."""

    @property
    def runtime(self) -> Runtime:
        """The app's Runtime; for a task of one of many installed workspaces (its `team`
        keyword, added by `send`), that workspace's (`Runtime.for_team`): its memory, its token
        (read from the installation store each time: an uninstall takes effect at once)."""
        app = self.app
        if not isinstance(app, HippoCelery):
            raise TypeError(f"{self.name} runs only in an app from jobs.celery_app.make_celery")
        team = str((getattr(self.request, "kwargs", None) or {}).get("team") or "")
        if not team or not app.runtime.config.slack_oauth:
            return app.runtime
        return app.runtime.for_team(team)


class HippoCelery(Celery):  # type: ignore[misc]  # celery ships no types
    """A Celery app that carries the Runtime its tasks use."""

    def __init__(self, runtime: Runtime, **options: Any) -> None:
        super().__init__("hippo", task_cls=HippoTask, **options)
        self.runtime = runtime

    def add_tasks(self, *declared: Declared) -> None:
        """Make each declared task one of this app's tasks (bound: its first argument is the
        task, whose `runtime` is this app's)."""
        for d in declared:
            # shared=False: only this app (Celery's default would add it to every app made).
            self.task(name=d.name, base=HippoTask, bind=True, shared=False, **d.options)(d.run)

    def add_schedule(self, entries: dict[str, Any]) -> None:
        """Add Celery `beat_schedule` entries (name → task, schedule, kwargs)."""
        self.conf.beat_schedule = {**(self.conf.beat_schedule or {}), **entries}


class TaskModule(Protocol):
    """A module of tasks, wired into the app by `jobs.celery_app.make_celery`."""

    def register(self, app: HippoCelery) -> None:
        """Add this module's tasks (`app.add_tasks`) and beat entries (`app.add_schedule`)."""


class Declared:
    """A task declared next to its code: its name, its function, its Celery options. It becomes a
    real task in each app whose `register` adds it. Called (or `.apply`-ed) directly, as tests do,
    it runs as the task of Celery's current app (the last one `make_celery` built)."""

    def __init__(self, name: str, run: Callable[..., Any], options: dict[str, Any]) -> None:
        self.name = name
        self.run = run
        self.options = options
        self.__doc__ = run.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return current_app.tasks[self.name](*args, **kwargs)

    def apply(self, *args: Any, **kwargs: Any) -> Any:
        return current_app.tasks[self.name].apply(*args, **kwargs)


def task(name: str, **options: Any) -> Callable[[Callable[..., Any]], Declared]:
    """Declare the decorated function (whose first argument is the `HippoTask`) as task `name`.
    Queue tasks with their typed message (`jobs.task_messages.send`), so callers never need the
    task object."""

    def declare(run: Callable[..., Any]) -> Declared:
        return Declared(name, run, options)

    return declare


def retrying(*also: type[Exception]) -> dict[str, Any]:
    """Task options for transient failures: the memory remote unreachable (`RemoteError`, which
    includes an unreachable remote), the write lock busy, Redis or a socket away, plus `also`.
    The task runs again with the same key, so nothing doubles. Backoff doubles from 2 s up to a
    60 s cap (jittered), so a write waiting on a remote that came back lands within a minute;
    500 tries keep trying for about four hours."""
    return {
        "autoretry_for": (RemoteError, LockTimeout, ConnectionError, *BROKER_DOWN[:2], *also),
        "retry_backoff": 2,
        "retry_backoff_max": 60,
        "retry_jitter": True,
        "max_retries": 500,
    }


# -- what every task does around its run: request id, logs, metrics, the journal ---------------


class _Running(NamedTuple):
    token: Token[RequestContext] | None  # context.begin's, for context.reset
    started: float  # time.monotonic() at task_prerun


_running: dict[str, _Running] = {}  # task id → its log context and start
_running_lock = threading.Lock()


def _runtime_of(task: Any) -> Runtime | None:
    app = getattr(task, "app", None)
    return app.runtime if isinstance(app, HippoCelery) else None


def _task_ran(task_id: str = "", task: Any = None, state: str = "", **_: Any) -> None:
    """A task that ran (done, or failed for good) leaves the journal; one waiting to retry stays."""
    rt = _runtime_of(task)
    if task_id and state != "RETRY" and rt is not None:
        try:
            journal.finished(rt.redis, task_id)
        except BROKER_DOWN as exc:  # the sweep will run it again, harmlessly (idempotent)
            log.warning("could not clear journal entry %s: %s", task_id, exc)


def _request_id(task: Any) -> str:
    request = getattr(task, "request", None)
    rid = getattr(request, context.HEADER, None)
    if not rid:  # older message protocols nest custom headers
        rid = (getattr(request, "headers", None) or {}).get(context.HEADER)
    return str(rid or "")


def _task_started(task_id: str = "", task: Any = None, **_: Any) -> None:
    rid = _request_id(task) or task_id  # a scheduled task: its own id
    token = context.begin(rid, getattr(task, "name", ""))
    with _running_lock:
        _running[task_id] = _Running(token, time.monotonic())
    log.info("task started", extra={"task_id": task_id})


def _task_finished(task_id: str = "", task: Any = None, state: str = "", **_: Any) -> None:
    with _running_lock:
        ran = _running.pop(task_id, _Running(None, time.monotonic()))
    name = getattr(task, "name", "")
    metrics.TASKS.labels(name, state or "UNKNOWN").inc()
    seconds = round(time.monotonic() - ran.started, 3)
    log.info("task %s", (state or "done").lower(), extra={"task_id": task_id, "seconds": seconds})
    if ran.token is not None:
        context.reset(ran.token)


def _setup_logging(**_: Any) -> None:
    """`celery worker|beat`: our handler (JSON off a terminal) instead of Celery's."""
    config = Config.from_env()
    role = "beat" if "beat" in sys.argv else "worker"
    observe.install(role, config.log_format, config.log_level)


def connect_signals() -> None:
    """Once per process (the uids make a second call a no-op), when the first app is made."""
    signals.task_prerun.connect(_task_started, dispatch_uid="hippo.started")
    signals.task_postrun.connect(_task_finished, dispatch_uid="hippo.finished")
    signals.task_postrun.connect(_task_ran, weak=False, dispatch_uid="hippo.journal")
    signals.setup_logging.connect(_setup_logging, dispatch_uid="hippo.logging")
