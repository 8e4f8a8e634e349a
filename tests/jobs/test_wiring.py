"""How tasks are wired: every task module registers its named tasks, each app carries its own
Runtime to its tasks, and the worker entry point builds nothing until Celery asks for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from jobs import task_messages as m
from jobs.celery_app import make_celery, registered_tasks
from jobs.config import Config
from jobs.runtime import Runtime
from tests.paths import ROOT

EVERY_TASK = {
    m.SaveNote.TASK,
    m.SaveReacted.TASK,
    m.Forget.TASK,
    m.ForgetPick.TASK,
    m.Recall.TASK,
    m.ShowHelp.TASK,
    m.InstructionsAdd.TASK,
    m.InstructionsList.TASK,
    m.InstructionsRemove.TASK,
    m.Home.TASK,
    m.Answer.TASK,
    m.HandlePullRequest.TASK,
    m.Installation.TASK,
    m.CheckPullRequest.TASK,
    m.Dream.TASK,
    m.SlackDream.TASK,
    m.Revert.TASK,
    m.ForgetFile.TASK,
    m.MergePair.TASK,
    m.Settle.TASK,
    m.Maintenance.TASK,
    m.DreamAll.TASK,
    m.DreamMemories.TASK,
    m.DreamMemory.TASK,
    m.MemoryPushed.TASK,
    m.ReminderAdd.TASK,
    m.RemindersList.TASK,
    m.ReminderClose.TASK,
}


def test_every_named_task_is_registered_and_nothing_else(
    tmp_path: Path, embedded_redis_url: str
) -> None:
    """Each task message's task is in the app, and the app has no task without one."""
    app = make_celery(Runtime(Config(data_dir=tmp_path, redis_url=embedded_redis_url)))
    assert registered_tasks(app) == EVERY_TASK
    assert set(app.conf.beat_schedule) == {"hippo-dream-nightly", "hippo-maintenance-weekly"}


def test_each_app_gives_its_tasks_its_own_runtime(tmp_path: Path, embedded_redis_url: str) -> None:
    """No process-wide Runtime: a task reads the Runtime of the app that runs it."""
    one = Runtime(Config(data_dir=tmp_path / "one", redis_url=embedded_redis_url))
    two = Runtime(Config(data_dir=tmp_path / "two", redis_url=embedded_redis_url))
    app_one, app_two = make_celery(one), make_celery(two)
    assert app_one.tasks[m.SaveNote.TASK].runtime is one
    assert app_two.tasks[m.SaveNote.TASK].runtime is two
    assert app_one.tasks[m.Answer.TASK].runtime is one  # still, after another app was made
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
