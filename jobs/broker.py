"""How hippo reaches its Redis broker: timeouts per role, kombu's options, Celery settings.

Below the Runtime (it needs only the Config), so the Runtime's publishing app and the worker app
that `jobs.celery_app.make_celery` builds share one set of settings.
"""

from __future__ import annotations

from typing import Any

import redis.exceptions
from kombu.exceptions import OperationalError

from jobs.config import Config

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


def settings(config: Config, broker_url: str, *, worker: bool = False) -> dict[str, Any]:
    """Celery settings for hippo's Redis with at-least-once delivery for idempotent tasks.
    `worker`: the app a `celery worker` runs (longer broker timeouts than a publisher)."""
    return {
        "broker_url": broker_url,
        # Results are not read by anyone: tasks report through Slack, the outbox and git.
        "result_backend": None,
        "task_ignore_result": True,
        "task_serializer": "json",
        "result_serializer": "json",
        "accept_content": ["json"],
        # Redeliver a task whose worker died mid-run; every task is idempotent by its key.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "broker_transport_options": transport_options(config, worker=worker),
        "task_publish_retry_policy": PUBLISH_RETRY,
        "broker_connection_retry_on_startup": True,
        "worker_hijack_root_logger": False,
        "timezone": config.timezone or "UTC",
        "enable_utc": True,
        # Task events (and the "sent" event) so Flower and `celery events` can follow tasks.
        "worker_send_task_events": True,
        "task_send_sent_event": True,
    }
