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

from jobs import dream, maintenance, memory_dreams, proposals, snapshots, workspace_dreams
from jobs.agent import tasks as agent_tasks
from jobs.broker import settings
from jobs.github import checks as github_checks
from jobs.github import tasks as github_tasks
from jobs.health import Heartbeat, MetricsEndpoint
from jobs.leases import LeaseRenewal
from jobs.niceness import Niceness
from jobs.runtime import Runtime
from jobs.slack import home, instructions, reminders
from jobs.slack import tasks as slack_tasks
from jobs.task_base import HippoCelery, TaskModule, connect_signals

__all__ = ["TASK_MODULES", "make_celery", "registered_tasks", "warm"]

TASK_MODULES: tuple[TaskModule, ...] = (
    slack_tasks,
    instructions,
    reminders,  # prospective memory: remind, list, close
    home,
    agent_tasks,
    github_tasks,
    github_checks,
    dream,
    proposals,
    workspace_dreams,  # many workspaces: one nightly dream per installed workspace
    memory_dreams,  # the org memory and each person's own, each its own dream
    maintenance,
    snapshots,  # a push to the memory repository on GitHub publishes its snapshot
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
    if worker:  # a worker process's own priority; never an in-process test worker's host
        app.steps["worker"].add(Niceness)
    app.steps["consumer"].add(LeaseRenewal)
    connect_signals()
    return app


def registered_tasks(app: HippoCelery) -> frozenset[str]:
    """The names of hippo's tasks in `app` (Celery's own built-in tasks left out)."""
    return frozenset(name for name in app.tasks if not name.startswith("celery."))


def warm(rt: Runtime) -> None:
    """Build now what a process's first `send` would: Redis's pool, the publishing app, its
    producer pool and a broker connection. A web worker's first acks otherwise wait on them
    (about 50 ms, all of its threads at once). Never fails: a broker down now is reported by
    the first send, as before."""
    try:
        rt.redis.ping()
        publisher = rt.celery
        publisher.backend, publisher.events.Dispatcher  # noqa: B018  (built on first use)
        with publisher.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=1)
    except Exception as exc:  # anything: the process must start regardless
        log.warning("could not warm the broker connection: %s", exc)
