"""The Celery app factory, and how tasks reach the Runtime inside a worker process.

Task modules define their tasks with `@shared_task` and are listed in TASK_MODULES (one line each).
A task module may also define `beat_schedule(config) -> dict` (Celery `beat_schedule` entries);
`make_celery` merges them all. Tasks get their Runtime from `task_runtime()`: the one passed to
`make_celery` (tests, the demo, `hippo dev`), else one built once from the environment.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

import redis.exceptions
from celery import Celery, shared_task, signals
from kombu.exceptions import OperationalError

from integrations import metrics
from jobs import journal, observe, workspaces
from jobs.config import Config
from jobs.runtime import Runtime
from memory.errors import LockTimeout, RemoteError

# Each module defines tasks with @shared_task (and optionally `beat_schedule(config)`).
TASK_MODULES: tuple[str, ...] = (
    "jobs.slack.tasks",
    "jobs.slack.instructions",
    "jobs.agent.tasks",
    "jobs.github.tasks",
    "jobs.dream",
    "jobs.workspace_dreams",  # many workspaces: one nightly dream per installed workspace
    "jobs.maintenance",
)

# The broker connection's timeouts. A publisher (the web's front doors, the CLI) must fail fast
# when Redis is down or half-open: Slack gives up after 3 s, so connect + one retry stay under 2.5 s
# and the route answers 503 (Slack and GitHub redeliver). A worker may wait longer on a busy Redis.
PUBLISH_TIMEOUTS = {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}
WORKER_TIMEOUTS = {"socket_connect_timeout": 5.0, "socket_timeout": 10.0}
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0.1, "interval_step": 0.2, "interval_max": 0.2}

# What a front door sees while Redis is down or half-open (a claim, or publishing the task):
# answer 503 so the sender redelivers, rather than 500 or a hang.
BROKER_DOWN: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    OperationalError,
)


def retrying(*also: type[Exception]) -> dict[str, Any]:
    """Task options for transient failures: the memory remote unreachable (`RemoteError`, which
    includes an unreachable remote), the write lock busy, Redis or a socket away, plus `also`.
    The task runs again with the same key, so nothing doubles. Backoff doubles from 2 s up to a
    60 s cap (jittered), so a write waiting on a remote that came back lands within a minute;
    500 tries keep trying for about four hours."""
    return {
        "bind": True,
        "autoretry_for": (RemoteError, LockTimeout, ConnectionError, *BROKER_DOWN[:2], *also),
        "retry_backoff": 2,
        "retry_backoff_max": 60,
        "retry_jitter": True,
        "max_retries": 500,
    }


_runtime: Runtime | None = None
log = logging.getLogger("hippo.celery")
F = TypeVar("F", bound=Callable[..., Any])
_runtime_lock = threading.Lock()


def task(name: str, **options: Any) -> Callable[[F], F]:
    """`@shared_task(name=...)`, typed for mypy (Celery ships no stubs). Send tasks by name
    with `enqueue`, so callers never need the Task object."""
    return cast(Callable[[F], F], shared_task(name=name, **options))


def set_runtime(rt: Runtime | None) -> None:
    """Make `rt` the Runtime tasks use in this process (None: build from the env on next use)."""
    global _runtime
    with _runtime_lock:
        _runtime = rt


def task_runtime() -> Runtime:
    """The Runtime a task should use; built lazily from the environment in a bare worker.
    A task for one of many installed workspaces (its `team` kwarg) gets that workspace's."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = Runtime(Config.from_env())
        base = _runtime
    return workspaces.runtime_for(base, workspaces.TEAM.get())


def beat_schedule(config: Config) -> dict[str, Any]:
    """Every task module's `beat_schedule(config)`, merged."""
    schedule: dict[str, Any] = {}
    for name in TASK_MODULES:
        hook = getattr(importlib.import_module(name), "beat_schedule", None)
        if hook is not None:
            schedule.update(hook(config))
    return schedule


def transport_options(config: Config, *, worker: bool = False) -> dict[str, Any]:
    """kombu's Redis options: a short visibility timeout that live workers renew (jobs/leases.py),
    swept every lease/12 s by every worker, and timeouts for the role."""
    lease = config.task_lease
    return {
        "visibility_timeout": lease,
        "unacked_restore_interval": max(0.5, lease / 12),
        "unacked_restore_throttle": 1,  # sweep on every interval, not every 10th
        "unacked_mutex_expire": max(1, int(lease)),  # a sweeper that died frees the sweep soon
        **(WORKER_TIMEOUTS if worker else PUBLISH_TIMEOUTS),
    }


def make_celery(config: Config, runtime: Runtime | None = None, *, worker: bool = False) -> Celery:
    """A Celery app on hippo's Redis with at-least-once delivery for idempotent tasks.
    `worker`: the app a `celery worker` runs (longer broker timeouts than a publisher)."""
    if runtime is not None:
        set_runtime(runtime)
    rt = runtime or task_runtime()
    app = Celery("hippo", include=list(TASK_MODULES), set_as_current=True)
    app.conf.update(
        broker_url=rt.redis_url,
        # Results are not read by anyone: tasks report through Slack, the outbox and git.
        result_backend=None,
        task_ignore_result=True,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        # Redeliver a task whose worker died mid-run; every task is idempotent by its key.
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        broker_transport_options=transport_options(config, worker=worker),
        task_publish_retry_policy=PUBLISH_RETRY,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        timezone=config.timezone or "UTC",
        enable_utc=True,
        beat_schedule=beat_schedule(config),
        # Task events (and the "sent" event) so Flower and `celery events` can follow tasks.
        worker_send_task_events=True,
        task_send_sent_event=True,
    )
    from jobs.health import Heartbeat, MetricsEndpoint  # it imports this module
    from jobs.leases import LeaseRenewal  # it imports celery's worker machinery: only here

    app.steps["worker"].update({Heartbeat, MetricsEndpoint})
    app.steps["consumer"].add(LeaseRenewal)
    return app


def enqueue(rt: Runtime, task: str, **kwargs: Any) -> None:
    """Send the task named `task` (e.g. "hippo.slack.save_note") with JSON keyword arguments,
    and the current request id in its headers (the task's logs and commits carry it), written
    down in the intake journal first (jobs/journal.py) so no acked request is lost."""
    rid = observe.REQUEST_ID.get() or observe.new_id()
    team = workspaces.team_of(rt)  # many workspaces: the team travels with the work
    if team and not kwargs.get("team"):
        kwargs["team"] = team
    task_id = journal.record(rt.redis, task, kwargs)
    try:
        rt.celery.send_task(task, kwargs=kwargs, task_id=task_id, headers={observe.HEADER: rid})
    except Exception:
        # The sender will retry; a leftover entry would only be run again, harmlessly.
        with contextlib.suppress(*BROKER_DOWN):
            journal.finished(rt.redis, task_id)
        raise
    log.info("queued %s", task, extra={"request_id": rid, "task": task})


def _task_ran(task_id: str = "", state: str = "", **_: Any) -> None:
    """A task that ran (done, or failed for good) leaves the journal; one waiting to retry stays."""
    if task_id and state != "RETRY":
        try:
            journal.finished(task_runtime().redis, task_id)
        except BROKER_DOWN as exc:  # the sweep will run it again, harmlessly (idempotent)
            log.warning("could not clear journal entry %s: %s", task_id, exc)


# -- what every task does around its run: request id, logs, metrics ----------------------------

log = logging.getLogger("hippo.tasks")
_running: dict[str, tuple[Any, Any, float]] = {}  # task id → (context tokens, team token, start)
_running_lock = threading.Lock()


def _request_id(task: Any) -> str:
    request = getattr(task, "request", None)
    rid = getattr(request, observe.HEADER, None)
    if not rid:  # older message protocols nest custom headers
        rid = (getattr(request, "headers", None) or {}).get(observe.HEADER)
    return str(rid or "")


def _task_started(
    task_id: str = "", task: Any = None, kwargs: dict[str, Any] | None = None, **_: Any
) -> None:
    rid = _request_id(task) or task_id  # a scheduled task: its own id
    tokens = observe.bind(rid, getattr(task, "name", ""))
    many = _runtime is not None and _runtime.config.slack_oauth
    # A task for one of many workspaces: task_runtime() hands it that workspace's Runtime.
    team = workspaces.TEAM.set(str((kwargs or {}).get("team") or "") if many else "")
    with _running_lock:
        _running[task_id] = (tokens, team, time.monotonic())
    log.info("task started", extra={"task_id": task_id})


def _task_finished(task_id: str = "", task: Any = None, state: str = "", **_: Any) -> None:
    with _running_lock:
        tokens, team, started = _running.pop(task_id, (None, None, time.monotonic()))
    if team is not None:
        with contextlib.suppress(ValueError):  # set in another context: nothing to undo here
            workspaces.TEAM.reset(team)
    name = getattr(task, "name", "")
    metrics.TASKS.labels(name, state or "UNKNOWN").inc()
    seconds = round(time.monotonic() - started, 3)
    log.info("task %s", (state or "done").lower(), extra={"task_id": task_id, "seconds": seconds})
    if tokens is not None:
        observe.unbind(tokens)


def _setup_logging(**_: Any) -> None:
    """`celery worker|beat`: our handler (JSON off a terminal) instead of Celery's."""
    import sys

    config = Config.from_env()
    role = "beat" if "beat" in sys.argv else "worker"
    observe.install(role, config.log_format, config.log_level)


signals.task_prerun.connect(_task_started)
signals.task_postrun.connect(_task_finished)
signals.task_postrun.connect(_task_ran, weak=False)
signals.setup_logging.connect(_setup_logging)
