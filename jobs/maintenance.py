"""`hippo.maintenance`: repack and prune the workspace's cache (and a local remote), weekly from
beat and after a dream that left many loose objects. Thin: the work is
memory.git.maintenance.maintain."""

from __future__ import annotations

import logging
from typing import Any

from celery import Task
from celery.schedules import crontab

from jobs.celery_app import task, task_runtime
from jobs.config import Config
from memory.git.maintenance import maintain

log = logging.getLogger("hippo.maintenance")
MAINTENANCE = "hippo.maintenance"


def beat_schedule(config: Config) -> dict[str, Any]:
    """Sundays, an hour after the nightly dream (quiet hours in HIPPO_TIMEZONE)."""
    hour, _, minute = (config.dream_at or "03:00").partition(":")
    return {
        "hippo-maintenance-weekly": {
            "task": MAINTENANCE,
            "schedule": crontab(
                day_of_week="sun", hour=(int(hour or 3) + 1) % 24, minute=int(minute or 0)
            ),
            "kwargs": {"if_needed": False},
        }
    }


@task(MAINTENANCE, bind=True)
def maintenance(self: Task, *, if_needed: bool = False) -> list[str]:
    rt = task_runtime()
    done = maintain(rt.store, only_if_needed=if_needed)
    for d in done:
        log.info(
            "repacked %s: %d → %d bytes, %d → %d loose objects in %.2f s",
            d.path, d.bytes_before, d.bytes_after, d.loose_before, d.loose_after, d.seconds,
        )  # fmt: skip
    return [d.path for d in done]
