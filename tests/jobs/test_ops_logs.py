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
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.slack import SECRET, signed_headers
from tests.ops_helpers import answers_ok, free_port
from tests.slack_helpers import mention, post, wait


@pytest.mark.integration
def test_request_id_goes_from_slack_request_to_task_logs_and_commit(tmp_path: Path) -> None:
    """`hippo dev` with stderr not a terminal: every log line is JSON; the id hippo answers in
    X-Request-ID is on the web's "queued" line, on the worker's lines for that task, and in the
    commit's Hippo-Request trailer. /readyz turns ready once the worker's heartbeat is in."""
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
        wait(lambda: answers_ok(base + "/readyz"), timeout=60)
        raw = json.dumps(mention("remember request ids reach the commit"))
        req = urllib.request.Request(
            base + "/slack/events", data=raw.encode(), headers=signed_headers(raw), method="POST"
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            rid = resp.headers["X-Request-ID"]
        assert rid and len(rid) == 32
        wait(lambda: _task_done(log, rid), timeout=60)
    finally:
        dev.send_signal(signal.SIGINT)
        dev.wait(timeout=30)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert lines and all("level" in x and "time" in x for x in lines)
    mine = [x for x in lines if x.get("request_id") == rid]
    assert any(x["role"] == "web" and x["message"] == "queued hippo.slack.save_note" for x in mine)
    worker = [x for x in mine if x["role"] == "worker"]
    assert any(
        x["message"] == "task started" and x["task"] == "hippo.slack.save_note" for x in worker
    )
    assert any(x["message"] == "task success" for x in worker)
    head = pygit2.Repository(str(remote)).revparse_single("HEAD")
    assert "request ids reach the commit" in head.tree["inbox.md"].data.decode()
    assert f"Hippo-Request: {rid}" in head.message


def _task_done(log: Path, rid: str) -> bool:
    return any(rid in line and "task success" in line for line in log.read_text().splitlines())


def test_a_proxys_request_id_is_kept_only_when_it_looks_like_one(
    slack_runtime: Runtime,
) -> None:
    """A router's X-Request-ID of safe characters becomes the request id (answered back and
    sent with the task); anything else is replaced by hippo's own."""
    client = create_app(slack_runtime.config, slack_runtime).test_client()

    def queued_id() -> str:
        raw = slack_runtime.redis.rpop("celery")
        return str(json.loads(raw)["headers"]["hippo_request_id"])

    kept = post(client, mention("save a note: a", event_id="EvR1"), **{"X-Request-ID": "req-1.a_B"})
    assert kept.headers["X-Request-ID"] == "req-1.a_B" == queued_id()
    bad = "x Hippo-Key: forged"
    for sent in (bad, "a" * 65, "-starts-with-dash"):
        resp = post(
            client,
            mention("save a note: b", event_id=f"Ev{len(sent)}", ts=f"1700000001.{len(sent):06d}"),
            **{"X-Request-ID": sent},
        )
        rid = resp.headers["X-Request-ID"]
        assert rid != sent and len(rid) == 32 and rid == queued_id()


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
        wait(lambda: "Starting" in log.read_text(), timeout=60)
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(timeout=30)
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.strip()]
    assert any(x["logger"] == "celery.beat" for x in lines)
    assert {x["role"] for x in lines} == {"beat"}
