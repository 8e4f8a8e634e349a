"""The nightly dream of every workspace hippo is installed in (many workspaces, OAuth).

Beat's schedule is fixed when beat starts, while workspaces come and go: one beat entry runs
`dream_all` at HIPPO_DREAM_AT, which queues one dream per installed workspace, each carrying its
team id (so it runs on that workspace's memory and posts to that workspace's digest channel).
The deployment's own workspace (HIPPO_MEMORY_REMOTE) keeps its own nightly entry (jobs/dream.py).
"""

from __future__ import annotations

from typing import Any

from celery.schedules import crontab

from jobs.config import Config
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Dream, DreamAll, send


def beat_schedule(config: Config) -> dict[str, Any]:
    if not config.slack_oauth:
        return {}
    hour, _, minute = (config.dream_at or "03:00").partition(":")
    return {
        "hippo-dream-workspaces": {
            "task": DreamAll.TASK,
            "schedule": crontab(hour=int(hour or 3), minute=int(minute or 0)),
        }
    }


@task(DreamAll.TASK, max_retries=3, retry_backoff=30)
def dream_all(self: HippoTask, *, now_iso: str | None = None, **ctx: Any) -> list[str]:
    """Queue tonight's dream for each installed workspace; the team ids queued."""
    rt = self.runtime
    teams = [w.team_id for w in rt.workspaces.installs.workspaces(installed_only=True)]
    for team in teams:  # a rerun of this task queues them again: a dream's rerun changes nothing
        send(rt, Dream(team=team, now_iso=now_iso))
    return teams


def register(app: HippoCelery) -> None:
    app.add_tasks(dream_all)
    app.add_schedule(beat_schedule(app.runtime.config))
