"""Logs and the request id: JSON lines, one id from the request to the task and its commit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pygit2
import pytest

from bot.app import create_app
from jobs import context
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.slack import SECRET, signed_headers
from tests.ops_helpers import answers_ok, free_port
from tests.slack_helpers import mention, post
from tests.waiting import until

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # the shape of a GitHub token


@pytest.mark.integration
def test_request_id_goes_from_slack_request_to_task_logs_and_commit(tmp_path: Path) -> None:
    """`hippo dev` with stderr not a terminal: every log line is JSON; the id hippo answers in
    X-Request-ID is on the web's "queued" line, on the worker's lines for that task, and in the
    commit's Hippo-Request trailer. /readyz turns ready once the worker's heartbeat is in.

    The id in history is hippo's own: the caller's X-Request-ID is logged beside it as
    `caller_request_id`, never a trailer (issue 24, item 12). The worker's lines name tasks and
    ids, never their arguments: neither a note's words nor a token hippo refused to store
    reach the log (item 10)."""
    port, log = free_port(), tmp_path / "dev.log"
    remote = tmp_path / "remote.git"
    env = {
        **os.environ,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(remote),
        "SLACK_SIGNING_SECRET": SECRET,
    }
    with log.open("wb") as out:
        dev = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "dev", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        until(lambda: answers_ok(base + "/readyz"), timeout=60)
        raw = json.dumps(mention("remember request ids reach the commit"))
        headers = {**signed_headers(raw), "X-Request-ID": "caller-7.a"}
        req = urllib.request.Request(
            base + "/slack/events", data=raw.encode(), headers=headers, method="POST"
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            rid = resp.headers["X-Request-ID"]
        assert rid and len(rid) == 32 and rid != "caller-7.a"
        until(lambda: _task_done(log, rid), timeout=60)
        body = mention(f"save a note: the deploy key is {TOKEN}", event_id="EvT", ts="2.0")
        raw = json.dumps(body)
        req = urllib.request.Request(
            base + "/slack/events", data=raw.encode(), headers=signed_headers(raw), method="POST"
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            refused = resp.headers["X-Request-ID"]
        until(lambda: _task_done(log, refused), timeout=60)
    finally:
        dev.send_signal(signal.SIGINT)
        dev.wait(timeout=30)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert lines and all("level" in x and "time" in x for x in lines)
    mine = [x for x in lines if x.get("request_id") == rid]
    queued = [
        x for x in mine if x["role"] == "web" and x["message"] == "queued hippo.slack.save_note"
    ]
    assert queued and queued[0]["caller_request_id"] == "caller-7.a"
    worker = [x for x in mine if x["role"] == "worker"]
    assert any(
        x["message"] == "task started" and x["task"] == "hippo.slack.save_note" for x in worker
    )
    assert any(x["message"] == "task success" for x in worker)
    head = pygit2.Repository(str(remote)).revparse_single("HEAD")
    assert "request ids reach the commit" in head.tree["inbox.md"].data.decode()
    assert f"Hippo-Request: {rid}" in head.message and "caller-7" not in head.message
    received = [x for x in lines if x["logger"] == "celery.worker.strategy"]
    assert len(received) >= 2 and all(x["message"].endswith("received") for x in received)
    assert TOKEN[4:20] not in log.read_text()  # the refused token: nowhere
    # The note's words: on no task line (only in the console outbox's, the reply without Slack)
    tasks = [json.dumps(x) for x in lines if x["logger"].startswith(("celery", "hippo.tasks"))]
    assert tasks and not [x for x in tasks if "ids reach" in x or "deploy key" in x]


def _task_done(log: Path, rid: str) -> bool:
    return any(rid in line and "task success" in line for line in log.read_text().splitlines())


def test_a_callers_request_id_is_logged_never_taken(slack_runtime: Runtime) -> None:
    """Whatever a caller sends in X-Request-ID (a router's well-formed id, or something forged
    to look like a trailer), the request id, answered back and sent with the task, is hippo's
    own (issue 24, item 12); the caller's is only a log field, made safe for a text log."""
    client = create_app(slack_runtime.config, slack_runtime).test_client()

    def queued_id() -> str:
        raw = slack_runtime.redis.rpop("celery")
        return str(json.loads(raw)["headers"]["hippo_request_id"])

    for sent in ("req-1.a_B", "x Hippo-Key: forged", "a" * 65, "-starts-with-dash"):
        resp = post(
            client,
            mention("save a note: b", event_id=f"Ev{len(sent)}", ts=f"1700000001.{len(sent):06d}"),
            **{"X-Request-ID": sent},
        )
        rid = resp.headers["X-Request-ID"]
        assert rid != sent and len(rid) == 32 and rid == queued_id()
    assert context.loggable("x\nHippo-Key: forged") == "x?Hippo-Key??forged"


@pytest.mark.integration
def test_beat_logs_json_lines(tmp_path: Path, embedded_redis_url: str) -> None:
    """`hippo beat` with stderr not a terminal: Celery beat's own lines are JSON, role "beat"."""
    log = tmp_path / "beat.log"
    env = {
        **os.environ,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(tmp_path / "remote.git"),
        "REDIS_URL": embedded_redis_url,
    }
    with log.open("wb") as out:
        beat = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "beat"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
            start_new_session=True,
        )
    try:
        until(lambda: "Starting" in log.read_text(), timeout=60)
        # Beat opens its schedule file just after saying so: a SIGTERM in between ran Celery's
        # handler inside the import of dbm (a traceback from celery.beat, seen under load).
        until(lambda: any((tmp_path / "data").glob("celerybeat-schedule*")), timeout=60)
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=30)
    text = log.read_text()
    assert "Traceback" not in text, text  # what beat said, when it said more than JSON
    lines = [json.loads(x) for x in text.splitlines() if x.strip()]
    assert any(x["logger"] == "celery.beat" for x in lines)
    assert {x["role"] for x in lines} == {"beat"}
