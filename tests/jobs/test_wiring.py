"""How tasks are wired: every task module registers its named tasks, each app carries its own
Runtime to its tasks, and the worker entry point builds nothing until Celery asks for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from jobs import dream, maintenance, proposals, workspace_dreams
from jobs.agent.tasks import ANSWER
from jobs.celery_app import make_celery, registered_tasks
from jobs.config import Config
from jobs.github.checks import CHECK_PULL_REQUEST
from jobs.github.tasks import HANDLE_PULL_REQUEST, INSTALLATION
from jobs.runtime import Runtime
from jobs.slack import instructions
from jobs.slack import tasks as slack
from jobs.slack.home import HOME
from tests.paths import ROOT

EVERY_TASK = {
    slack.SAVE_NOTE,
    slack.SAVE_REACTED,
    slack.FORGET,
    slack.FORGET_PICK,
    slack.RECALL,
    slack.SHOW_HELP,
    instructions.INSTRUCTIONS_ADD,
    instructions.INSTRUCTIONS_LIST,
    instructions.INSTRUCTIONS_REMOVE,
    HOME,
    ANSWER,
    HANDLE_PULL_REQUEST,
    INSTALLATION,
    CHECK_PULL_REQUEST,
    dream.DREAM,
    dream.SLACK_DREAM,
    dream.REVERT,
    dream.FORGET_FILE,
    dream.MERGE_PAIR,
    proposals.SETTLE,
    maintenance.MAINTENANCE,
    workspace_dreams.DREAM_ALL,
}


def test_every_named_task_is_registered_and_nothing_else(
    tmp_path: Path, embedded_redis_url: str
) -> None:
    """Each task name constant has its task in the app, and the app has no task without one."""
    app = make_celery(Runtime(Config(data_dir=tmp_path, redis_url=embedded_redis_url)))
    assert registered_tasks(app) == EVERY_TASK
    assert set(app.conf.beat_schedule) == {"hippo-dream-nightly", "hippo-maintenance-weekly"}


def test_each_app_gives_its_tasks_its_own_runtime(tmp_path: Path, embedded_redis_url: str) -> None:
    """No process-wide Runtime: a task reads the Runtime of the app that runs it."""
    one = Runtime(Config(data_dir=tmp_path / "one", redis_url=embedded_redis_url))
    two = Runtime(Config(data_dir=tmp_path / "two", redis_url=embedded_redis_url))
    app_one, app_two = make_celery(one), make_celery(two)
    assert app_one.tasks[slack.SAVE_NOTE].runtime is one
    assert app_two.tasks[slack.SAVE_NOTE].runtime is two
    assert app_one.tasks[ANSWER].runtime is one  # still, after another app was made
    assert not EVERY_TASK & set(one.celery.tasks)  # the publishing app only sends by name


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_importing_the_worker_entry_reads_and_starts_nothing() -> None:
    """`import jobs.worker` neither reads the environment (a bad setting does not fail it) nor
    builds the app; `celery -A jobs.worker` asking for `app` builds it and meets the error."""
    imported = _python(
        "import jobs.worker as w; print(w.create_app.cache_info().currsize)",
        HIPPO_TIMEZONE="Not/AZone",
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.strip() == "0"
    asked = _python("import jobs.worker as w; w.app", HIPPO_TIMEZONE="Not/AZone")
    assert asked.returncode != 0 and "HIPPO_TIMEZONE='Not/AZone'" in asked.stderr
