"""`hippo.maintenance`: repack and prune the workspace's cache (and a local remote), weekly from
beat and after a dream that left many loose objects. Thin: the work is
memory.git.maintenance.maintain."""

from __future__ import annotations

import logging
from typing import Any

from celery.schedules import crontab

from jobs.config import Config
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Maintenance
from memory.git.maintenance import maintain

log = logging.getLogger("hippo.maintenance")


def beat_schedule(config: Config) -> dict[str, Any]:
    """Sundays, an hour after the nightly dream (quiet hours in HIPPO_TIMEZONE)."""
    hour, _, minute = (config.dream_at or "03:00").partition(":")
    return {
        "hippo-maintenance-weekly": {
            "task": Maintenance.TASK,
            "schedule": crontab(
                day_of_week="sun", hour=(int(hour or 3) + 1) % 24, minute=int(minute or 0)
            ),
            "kwargs": {"if_needed": False},
        }
    }


@task(Maintenance.TASK)
def maintenance(self: HippoTask, *, if_needed: bool = False) -> list[str]:
    rt = self.runtime
    done = maintain(rt.store, only_if_needed=if_needed)
    for d in done:
        log.info(
            "repacked %s: %d → %d bytes, %d → %d loose objects in %.2f s",
            d.path, d.bytes_before, d.bytes_after, d.loose_before, d.loose_after, d.seconds,
        )  # fmt: skip
    return [d.path for d in done]


def register(app: HippoCelery) -> None:
    app.add_tasks(maintenance)
    app.add_schedule(beat_schedule(app.runtime.config))
