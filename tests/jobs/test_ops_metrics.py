"""/metrics: the counters move with the work (Slack notes, writes, tasks, tokens, verifiers)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families

from bot.app import create_app
from demo.worker import worker_thread
from jobs import health
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from tests.conftest import ROOT
from tests.fakes.slack import SlackFake
from tests.ops_helpers import answers_ok, free_port
from tests.slack_helpers import mention, post
from tests.waiting import until


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
    until(lambda: _samples(client).get(done, 0) == before.get(done, 0) + 1)
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

    from jobs.dream import make_verifiers
    from memory.dream.checkable_claims import URL, Claim

    class Gone(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Gone)
    Thread(target=server.serve_forever, daemon=True).start()
    try:
        rt = Runtime(
            Config(data_dir=tmp_path, verify_hosts=("127.0.0.1",), verify_private=("127.0.0.0/8",))
        )
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
    (multiprocess mode), and gunicorn's access log is JSON lines ending with the request id.
    The access log never records an OAuth redirect's code or state (issue 24, item 10)."""
    port, log = free_port(), tmp_path / "serve.log"
    env = {
        **os.environ,
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "HIPPO_MEMORY_REMOTE": str(tmp_path / "remote.git"),
        "REDIS_URL": embedded_redis_url,
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with log.open("wb") as out:
        serve = subprocess.Popen(
            [sys.executable, "-m", "bot.cli.main", "serve", "--port", str(port), "--workers", "2"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
            start_new_session=True,  # gunicorn is its child: stop the whole group at the end
        )
    base = f"http://127.0.0.1:{port}"
    try:
        until(lambda: answers_ok(base + "/healthz"), timeout=60)
        ids = set()
        for _ in range(20):
            with urllib.request.urlopen(base + "/healthz", timeout=5) as resp:
                ids.add(resp.headers["X-Request-ID"])
        with urllib.request.urlopen(base + "/metrics", timeout=5) as resp:
            text = resp.read().decode()
        oauth = "/slack/oauth_redirect?code=1234.5678.secretcode&state=secretstate42"
        with contextlib.suppress(urllib.error.HTTPError):  # 404 here: no OAuth configured
            urllib.request.urlopen(base + oauth, timeout=5).close()
        until(lambda: "oauth_redirect" in log.read_text(), timeout=10)
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
    [redirect] = [x["message"] for x in access if "oauth_redirect" in x["message"]]
    assert "code=[redacted]&state=[redacted]" in redirect
    assert "secretcode" not in log.read_text() and "secretstate42" not in log.read_text()
    assert all(x["role"] == "web" for x in lines)


@pytest.mark.integration
def test_a_worker_serves_its_metrics_on_hippo_metrics_port(slack_runtime: Runtime) -> None:
    """With HIPPO_METRICS_PORT a worker serves /metrics itself (and its heartbeat is written);
    the port closes when the worker stops."""
    from dataclasses import replace

    port = free_port()
    rt = Runtime(replace(slack_runtime.config, metrics_port=port))
    with worker_thread(make_celery(rt)):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
        assert "hippo_notes_saved_total" in text
        assert health.last_beat(rt.redis, rt.config.workspace) is not None
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2)


@pytest.mark.integration
def test_task_events_are_sent_for_flower(celery_worker_for: Runtime, slack_fake: SlackFake) -> None:
    """Workers send task events and the sender the "task-sent" event (what Flower reads)."""
    import threading

    rt = celery_worker_for
    seen: list[str] = []
    receivers: list[Any] = []
    failed: list[BaseException] = []

    def listen() -> None:
        try:
            with rt.celery.connection() as conn:
                recv = rt.celery.events.Receiver(
                    conn, handlers={"*": lambda event: seen.append(event["type"])}
                )
                receivers.append(recv)
                recv.capture(limit=None, timeout=30, wakeup=False)
        except BaseException as exc:  # reported below, not lost in the thread
            failed.append(exc)

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    until(lambda: receivers)
    time.sleep(0.5)  # the receiver's queue is bound before anything is sent
    client = create_app(rt.config, rt).test_client()
    post(client, mention("save a note: flower sees this task", event_id="EvF1"))
    until(lambda: {"task-sent", "task-received", "task-started", "task-succeeded"} <= set(seen))
    receivers[0].should_stop = True
    listener.join(10)
    assert not listener.is_alive() and failed == []
