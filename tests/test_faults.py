"""Faults with real processes: a Celery worker killed with SIGKILL (its whole process group), a
task that outlives its lease, Redis stopped under the front doors, the memory remote away.

Each test starts its own redis-server on a free port (append-only, as production runs it) and
Celery workers as subprocesses (the Procfile's thread pool) with a 3 s task lease, so the
recovery a production worker does within ~65 s happens here within a few seconds.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.config import Config
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.github import delivery_headers
from tests.fakes.slack import SECRET, SlackFake
from tests.redis_proc import RedisServer
from tests.slack_helpers import mention, post
from tests.waiting import no_task_can_run_again, until

pytestmark = pytest.mark.integration
LEASE = 3.0
HOOK_SECRET = "hook-secret"


class Worker:
    """`celery -A jobs.worker worker` (threads, as in the Procfile) in its own process group."""

    def __init__(self, rt: Runtime, log: Path, concurrency: int = 4) -> None:
        c = rt.config
        env = {
            **os.environ,
            "REDIS_URL": c.redis_url,
            "HIPPO_DATA_DIR": str(c.data_dir),
            "HIPPO_MEMORY_REMOTE": c.remote,
            "SLACK_BOT_TOKEN": c.slack_bot_token,
            "SLACK_API_URL": c.slack_api_url,
            "HIPPO_PUBLIC_URL": c.public_url,
            "HIPPO_TASK_LEASE": str(c.task_lease),
        }
        argv = [sys.executable, "-m", "celery", "-A", "jobs.worker", "worker", "-l", "info"]
        argv += ["--pool", "threads", "--concurrency", str(concurrency)]
        argv += ["--without-mingle", "--without-gossip"]
        self.log = log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def ready(self, timeout: float = 60.0) -> Worker:
        deadline = time.monotonic() + timeout
        while b" ready." not in self.log.read_bytes():
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, f"worker not ready:\n{self.log.read_text()}"
            time.sleep(0.05)
        return self

    def kill9(self) -> None:
        """SIGKILL to the whole process group: nothing gets to ack, restore or say goodbye."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis", persistent=True) as server:
        yield server


@pytest.fixture
def rt(tmp_path: Path, slack_fake: SlackFake, redis_server: RedisServer) -> Iterator[Runtime]:
    config = Config(
        redis_url=redis_server.url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack_fake.url,
        github_webhook_secret=HOOK_SECRET,
        public_url="http://hippo.test",
        task_lease=LEASE,
    )
    runtime = Runtime(config)
    runtime.store.init()
    yield runtime
    runtime.redis.close()


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[Worker]]:
    """Workers a test starts; every one is stopped at the end."""
    started: list[Worker] = []
    yield started
    for w in started:
        w.stop()


def note_commits(rt: Runtime) -> list[str]:
    repo = pygit2.Repository(rt.config.remote)
    return [c.message for c in repo.walk(repo.head.target) if c.message.startswith("note:")]


def test_a_killed_workers_task_runs_again_within_the_lease_and_only_once(
    rt: Runtime, slack_fake: SlackFake, workers: list[Worker], tmp_path: Path
) -> None:
    """kill -9 of the worker's process group mid-task: the worker that is up runs the task again
    within lease + sweep (it was 6 hours). That second run takes over two leases; its worker
    keeps renewing its hold, so its own sweep never hands the task out a third time (without
    renewal it would, and Slack would see a third call). One commit, one reply."""
    slack_fake.delay("chat.getPermalink", 15.0, 2 * LEASE + 1)  # both attempts hang here a while
    first = Worker(rt, tmp_path / "w1.log").ready()
    workers.append(first)
    client = create_app(rt.config, rt).test_client()
    post(client, mention("save a note: the worker may die, the note may not"))
    slack_fake.wait_for("chat.getPermalink", 1, timeout=30)
    workers.append(Worker(rt, tmp_path / "w2.log"))  # starts while the first one works
    first.kill9()
    killed = time.monotonic()
    slack_fake.wait_for("chat.getPermalink", 2, timeout=60)
    took = time.monotonic() - killed
    assert took < LEASE + 20, f"ran again {took:.1f}s after the kill"  # start-up: 3-10 s
    [reply] = slack_fake.wait_for("chat.postMessage", 1, timeout=60)
    assert "Saved" in reply.form["text"]
    until(lambda: no_task_can_run_again(rt.redis), timeout=60)  # else a third run may come
    assert len(slack_fake.calls("chat.getPermalink")) == 2
    assert len(slack_fake.calls("chat.postMessage")) == 1
    assert len(note_commits(rt)) == 1


def _hook(client: FlaskClient, delivery: str) -> tuple[int, float]:
    raw = json.dumps(
        {"action": "created", "installation": {"id": 7}, "repositories": [{"full_name": "o/r"}]}
    ).encode()
    started = time.monotonic()
    resp = client.post(
        "/github/webhook",
        data=raw,
        headers=delivery_headers(HOOK_SECRET, raw, "installation", delivery),
    )
    return resp.status_code, time.monotonic() - started


def test_front_doors_answer_503_fast_while_redis_is_down_and_retries_land_once(
    rt: Runtime,
    slack_fake: SlackFake,
    redis_server: RedisServer,
    workers: list[Worker],
    tmp_path: Path,
) -> None:
    """Redis stopped: /slack/events and /github/webhook answer 503 in well under Slack's 3 s and
    queue nothing; Redis back (same address, append-only file): Slack's retry and GitHub's
    redelivery are each queued once, and the note is committed and answered once."""
    workers.append(Worker(rt, tmp_path / "w.log").ready())
    client = create_app(rt.config, rt).test_client()
    body = mention("save a note: the queue was away for a moment", event_id="EvDown1")
    redis_server.stop()
    started = time.monotonic()
    down = post(client, body)
    assert down.status_code == 503 and time.monotonic() - started < 3.0
    assert down.headers.get("Retry-After")
    status, took = _hook(client, "d-1")
    assert status == 503 and took < 3.0
    redis_server.start()
    retry = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_error"}
    assert post(client, body, **retry).status_code == 200
    assert post(client, body, **{**retry, "X-Slack-Retry-Num": "2"}).status_code == 200
    assert _hook(client, "d-1")[0] == 202
    assert _hook(client, "d-1")[0] == 200  # a second redelivery is a duplicate
    [reply] = slack_fake.wait_for("chat.postMessage", 1, timeout=60)
    assert "Saved" in reply.form["text"]
    until(lambda: rt.redis.hget("hippo:github:installations", "o/r") == b"7", timeout=30)
    until(lambda: no_task_can_run_again(rt.redis), timeout=60)
    assert len(slack_fake.calls("chat.postMessage")) == 1 and len(note_commits(rt)) == 1


def test_a_half_open_redis_gets_503_within_slacks_three_seconds(rt: Runtime) -> None:
    """A Redis address that accepts connections and never answers (a dead host behind a NAT, a
    failover in progress): the socket timeouts turn the hang into a 503 in time."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        port = silent.getsockname()[1]
        hung = Runtime(replace(rt.config, redis_url=f"redis://127.0.0.1:{port}/0"))
        client = create_app(hung.config, hung).test_client()
        started = time.monotonic()
        resp = post(client, mention("save a note: nobody answers", event_id="EvHung"))
        took = time.monotonic() - started
        status, hook_took = _hook(client, "d-hung")
    assert resp.status_code == 503 and took < 3.0, (resp.status_code, took)
    assert status == 503 and hook_took < 3.0


def test_notes_wait_for_an_unreachable_remote_and_land_once(
    rt: Runtime, slack_fake: SlackFake, workers: list[Worker], tmp_path: Path
) -> None:
    """The memory remote is away for a few seconds: the note task retries on RemoteError with
    backoff and lands once when the remote is back; one reply."""
    workers.append(Worker(rt, tmp_path / "w.log").ready())
    remote = Path(rt.config.remote)
    away = remote.with_name("remote.away")
    client = create_app(rt.config, rt).test_client()
    remote.rename(away)
    try:
        post(client, mention("save a note: the remote came back", event_id="EvRemote"))
        until(lambda: b"Retry in" in (tmp_path / "w.log").read_bytes(), timeout=30)
        assert not slack_fake.calls("chat.postMessage")
    finally:
        away.rename(remote)
    [reply] = slack_fake.wait_for("chat.postMessage", 1, timeout=60)
    assert "Saved" in reply.form["text"]
    until(lambda: no_task_can_run_again(rt.redis), timeout=60)
    assert len(note_commits(rt)) == 1 and len(slack_fake.calls("chat.postMessage")) == 1


def test_a_message_taken_off_the_queue_by_a_dying_worker_is_sent_again(
    rt: Runtime, slack_fake: SlackFake, workers: list[Worker], tmp_path: Path
) -> None:
    """kombu's one blind spot: a worker that BRPOPs a message and dies before writing it to the
    unacked set loses it (the lease never sees it). Here the test pops it off the queue as that
    worker would; the intake journal's sweep publishes it again: one commit, one reply, and the
    journal is empty once the task has run."""
    client = create_app(rt.config, rt).test_client()
    assert post(client, mention("save a note: popped and lost", event_id="EvPop")).status_code
    assert rt.redis.hlen("hippo:journal") == 1
    assert rt.redis.rpop("celery") is not None  # BRPOP by a worker killed a moment later
    workers.append(Worker(rt, tmp_path / "w.log"))
    [reply] = slack_fake.wait_for("chat.postMessage", 1, timeout=60)
    assert "Saved" in reply.form["text"]
    until(lambda: no_task_can_run_again(rt.redis), timeout=60)
    assert len(note_commits(rt)) == 1 and len(slack_fake.calls("chat.postMessage")) == 1
