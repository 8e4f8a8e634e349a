"""A worker child killed mid-task: the task is redelivered and still makes one commit, one reply."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import psutil
import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.slack import SlackFake
from tests.slack_helpers import mention, post
from tests.waiting import no_task_can_run_again, until

pytestmark = pytest.mark.integration


def test_killed_worker_child_is_redelivered(slack_runtime: Runtime, slack_fake: SlackFake) -> None:
    """SIGKILL on the prefork child mid-task → requeued (acks_late, reject on worker lost) → the
    rerun makes exactly one note commit and one reply."""
    config = slack_runtime.config
    env = {
        **os.environ,
        "REDIS_URL": config.redis_url,
        "HIPPO_DATA_DIR": str(config.data_dir),
        "HIPPO_MEMORY_REMOTE": config.remote,
        "SLACK_BOT_TOKEN": config.slack_bot_token,
        "SLACK_API_URL": config.slack_api_url,
        "HIPPO_PUBLIC_URL": config.public_url,
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "jobs.worker",
            "worker",
            "--pool",
            "prefork",
            "--concurrency",
            "1",
            "--without-mingle",
            "--without-gossip",
            "-l",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        slack_fake.delay("chat.getPermalink", 30.0)  # the first attempt hangs here, mid-task
        client: FlaskClient = create_app(config, slack_runtime).test_client()
        post(client, mention("save a note: the worker may die, the note may not"))
        slack_fake.wait_for("chat.getPermalink", 1, timeout=60)
        [child] = psutil.Process(worker.pid).children()
        os.kill(child.pid, signal.SIGKILL)
        replies = slack_fake.wait_for("chat.postMessage", 1, timeout=60)
        assert len(slack_fake.calls("chat.getPermalink")) >= 2  # it really ran again
        until(lambda: no_task_can_run_again(slack_runtime.redis))
        assert len(slack_fake.calls("chat.postMessage")) == 1 and "Saved" in replies[0].form["text"]
        repo = pygit2.Repository(config.remote)
        notes = [c for c in repo.walk(repo.head.target) if c.message.startswith("note:")]
        assert len(notes) == 1
    finally:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
