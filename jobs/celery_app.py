"""The Celery app factory and the task modules it wires in.

Tasks are queued with `jobs.task_messages.send` (a typed message per task).

`make_celery(rt)` builds the app that runs hippo's tasks on `rt` (a `HippoCelery`: each task
reads `self.runtime` from it, see jobs/task_base.py). Each task module is imported here by name
and listed in TASK_MODULES; its `register(app)` adds its tasks and beat entries. A new feature's
task module: declare tasks with `@task(NAME)` and their messages (`jobs.task_messages.Message`),
write `register(app)`, add the module below.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from contextvars import Token
from typing import Any, NamedTuple

from celery import signals

from integrations import metrics
from jobs import (
    context,
    dream,
    journal,
    maintenance,
    observe,
    proposals,
    workspace_dreams,
)
from jobs.agent import tasks as agent_tasks
from jobs.broker import BROKER_DOWN, settings
from jobs.config import Config
from jobs.context import RequestContext
from jobs.github import checks as github_checks
from jobs.github import tasks as github_tasks
from jobs.health import Heartbeat, MetricsEndpoint
from jobs.leases import LeaseRenewal
from jobs.runtime import Runtime
from jobs.slack import home, instructions
from jobs.slack import tasks as slack_tasks
from jobs.task_base import HippoCelery, TaskModule

__all__ = ["BROKER_DOWN", "TASK_MODULES", "make_celery", "registered_tasks", "warm"]

TASK_MODULES: tuple[TaskModule, ...] = (
    slack_tasks,
    instructions,
    home,
    agent_tasks,
    github_tasks,
    github_checks,
    dream,
    proposals,
    workspace_dreams,  # many workspaces: one nightly dream per installed workspace
    maintenance,
)
log = logging.getLogger("hippo.tasks")


def make_celery(rt: Runtime, *, worker: bool = False) -> HippoCelery:
    """The app that runs hippo's tasks on `rt` (and becomes Celery's current app).
    `worker`: the app a `celery worker` runs (longer broker timeouts than a publisher)."""
    app = HippoCelery(rt, set_as_current=True)
    app.conf.update(settings(rt.config, rt.redis_url, worker=worker), beat_schedule={})
    for module in TASK_MODULES:
        module.register(app)
    app.steps["worker"].update({Heartbeat, MetricsEndpoint})
    app.steps["consumer"].add(LeaseRenewal)
    _connect_signals()
    return app


def registered_tasks(app: HippoCelery) -> frozenset[str]:
    """The names of hippo's tasks in `app` (Celery's own built-in tasks left out)."""
    return frozenset(name for name in app.tasks if not name.startswith("celery."))


def warm(rt: Runtime) -> None:
    """Build now what a process's first `enqueue` would: Redis's pool, the publishing app, its
    producer pool and a broker connection. A web worker's first acks otherwise wait on them
    (about 50 ms, all of its threads at once). Never fails: a broker down now is reported by
    the first enqueue, as before."""
    try:
        rt.redis.ping()
        publisher = rt.celery
        publisher.backend, publisher.events.Dispatcher  # noqa: B018  (built on first use)
        with publisher.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=1)
    except Exception as exc:  # anything: the process must start regardless
        log.warning("could not warm the broker connection: %s", exc)


# -- what every task does around its run: request id, logs, metrics, the journal ---------------


class _Running(NamedTuple):
    token: Token[RequestContext] | None  # observe.bind's, for context.reset
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
    rid = getattr(request, observe.HEADER, None)
    if not rid:  # older message protocols nest custom headers
        rid = (getattr(request, "headers", None) or {}).get(observe.HEADER)
    return str(rid or "")


def _task_started(task_id: str = "", task: Any = None, **_: Any) -> None:
    rid = _request_id(task) or task_id  # a scheduled task: its own id
    token = observe.bind(rid, getattr(task, "name", ""))
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


def _connect_signals() -> None:
    """Once per process (the uids make a second call a no-op), when the first app is made."""
    signals.task_prerun.connect(_task_started, dispatch_uid="hippo.started")
    signals.task_postrun.connect(_task_finished, dispatch_uid="hippo.finished")
    signals.task_postrun.connect(_task_ran, weak=False, dispatch_uid="hippo.journal")
    signals.setup_logging.connect(_setup_logging, dispatch_uid="hippo.logging")
