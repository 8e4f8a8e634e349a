"""The Celery app factory, and how tasks reach the Runtime inside a worker process.

Task modules define their tasks with `@shared_task` and are listed in TASK_MODULES (one line each).
A task module may also define `beat_schedule(config) -> dict` (Celery `beat_schedule` entries);
`make_celery` merges them all. Tasks get their Runtime from `task_runtime()`: the one passed to
`make_celery` (tests, the demo, `hippo dev`), else one built once from the environment.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

from celery import Celery, shared_task

from jobs.config import Config
from jobs.runtime import Runtime

# Each module defines tasks with @shared_task (and optionally `beat_schedule(config)`).
TASK_MODULES: tuple[str, ...] = (
    "jobs.slack_tasks",
    "jobs.slack_instructions",
    "jobs.agent_tasks",
    "jobs.github_tasks",
    "jobs.dream_tasks",
    "jobs.maintenance_tasks",
)

# Every task must finish (and every countdown fire) well inside this, or Redis hands the
# unacked message to a second worker (celery#2599, kombu#337): 6 hours against tasks of minutes.
VISIBILITY_TIMEOUT = 6 * 3600

_runtime: Runtime | None = None
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
    """The Runtime a task should use; built lazily from the environment in a bare worker."""
    global _runtime
    with _runtime_lock:
        if _runtime is None:
            _runtime = Runtime(Config.from_env())
        return _runtime


def beat_schedule(config: Config) -> dict[str, Any]:
    """Every task module's `beat_schedule(config)`, merged."""
    schedule: dict[str, Any] = {}
    for name in TASK_MODULES:
        hook = getattr(importlib.import_module(name), "beat_schedule", None)
        if hook is not None:
            schedule.update(hook(config))
    return schedule


def make_celery(config: Config, runtime: Runtime | None = None) -> Celery:
    """A Celery app on hippo's Redis with at-least-once delivery for idempotent tasks."""
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
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        timezone=config.timezone or "UTC",
        enable_utc=True,
        beat_schedule=beat_schedule(config),
    )
    return app


def enqueue(rt: Runtime, task: str, **kwargs: Any) -> None:
    """Send the task named `task` (e.g. "hippo.slack.save_note") with JSON keyword arguments."""
    rt.celery.send_task(task, kwargs=kwargs)
