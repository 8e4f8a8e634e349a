"""The rig bench/faults.py runs its phases against: the Procfile's processes (gunicorn, a Celery
worker), a redis-server, a local bare remote, Slack's and Anthropic's APIs as loopback fakes, and
a sender that delivers signed mentions and retries them the way Slack does. Every process started
here is stopped in `Rig.close`.
"""

from __future__ import annotations

import heapq
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from demo.slack import slack_headers  # noqa: E402
from tests.fakes.anthropic import FakeAnthropic  # noqa: E402
from tests.fakes.slack import SlackFake  # noqa: E402
from tests.redis_proc import RedisServer, free_port  # noqa: E402

SECRET = "bench-signing-secret"
BOT = "U0HIPPO"
LATE = 120.0
SLACK_RETRIES = (1.0, 15.0, 60.0)
DIGEST = "C0DIGEST"
TRAILER = "%(trailers:key=Hippo-Key,valueonly)"


@dataclass
class Event:
    i: int
    ts: str
    body: str
    acked_at: float | None = None
    statuses: list[int] = field(default_factory=list)


@dataclass
class Phase:
    name: str
    target: bool = True
    events: list[Event] = field(default_factory=list)
    fault_ended: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class Rig:
    """The processes and fakes; every one started here is stopped in `close`."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.redis = RedisServer(work / "redis", persistent=True).start()
        self.slack = SlackFake().__enter__()
        self.llm = FakeAnthropic().__enter__()
        self.remote = work / "remote.git"
        self.port = free_port()
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "SLACK_"))},
            "REDIS_URL": self.redis.url,
            "HIPPO_DATA_DIR": str(work / "data"),
            "HIPPO_MEMORY_REMOTE": str(self.remote),
            "SLACK_BOT_TOKEN": "xoxb-bench",
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": self.slack.url,
            "ANTHROPIC_API_KEY": "bench-key",
            "ANTHROPIC_BASE_URL": self.llm.url,
            "HIPPO_LLM_TIMEOUT": "10",
            "HIPPO_DIGEST_CHANNEL": DIGEST,
            "PYTHONUNBUFFERED": "1",
        }
        subprocess.run(
            [sys.executable, "-m", "bot.cli.main", "init"], env=self.env, cwd=ROOT, check=True
        )
        web = ["-m", "gunicorn", "bot.app:create_app()", "--workers", "2", "--threads", "8"]
        self.web = self._start([*web, "--bind", f"127.0.0.1:{self.port}"], "web")
        self.worker = self.start_worker()
        wait_http(f"http://127.0.0.1:{self.port}/healthz")

    def _start(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        with (self.work / f"{name}.log").open("ab") as out:
            return subprocess.Popen(
                [sys.executable, *argv],
                env=self.env,
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def start_worker(self) -> subprocess.Popen[bytes]:
        argv = ["-m", "celery", "-A", "jobs.worker", "worker", "-l", "info", "--pool", "threads"]
        argv += ["--concurrency", "8", "--without-mingle", "--without-gossip"]
        return self._start(argv, "worker")

    def supervise(self) -> int:
        """Restart a worker that exited by itself, as a process supervisor would; 1 if it had."""
        if self.worker.poll() is None:
            return 0
        self.worker = self.start_worker()
        return 1

    def kill_worker(self) -> None:
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(timeout=10)

    def close(self) -> None:
        for proc in (self.web, self.worker):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in (self.web, self.worker):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        self.redis.stop()
        self.slack.__exit__()
        self.llm.__exit__()


def wait_http(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def mention(phase: int, i: int, text: str, *, thread_ts: str = "") -> tuple[str, str]:
    ts = f"{1800000000 + phase * 10000}.{i:06d}"
    event = {"type": "app_mention", "user": "U0BENCH", "text": f"<@{BOT}> {text}"}
    event.update(channel="C0BENCH", ts=ts, event_ts=ts, thread_ts=thread_ts or ts)
    body = {
        "type": "event_callback",
        "team_id": "T0B",
        "api_app_id": "A0B",
        "event_id": f"EvF{phase:02d}{i:05d}",
        "event_time": int(time.time()),
        "authorizations": [{"user_id": BOT, "is_bot": True, "team_id": "T0B"}],
        "event": event,
    }
    return ts, json.dumps(body)


class Sender:
    """Open-loop sends at planned times; a delivery not answered 200 is retried like Slack."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.heap: list[tuple[float, int, Event, int]] = []
        self.lock = threading.Condition()
        self.pool = ThreadPoolExecutor(max_workers=32)
        self.seq = 0
        self.open = 0
        self.stopped = False
        threading.Thread(target=self._dispatch, daemon=True).start()

    def plan(self, at: float, event: Event, attempt: int = 0) -> None:
        with self.lock:
            self.seq += 1
            self.open += 1
            heapq.heappush(self.heap, (at, self.seq, event, attempt))
            self.lock.notify()

    def _dispatch(self) -> None:
        while True:
            with self.lock:
                while not self.stopped and (not self.heap or self.heap[0][0] > time.time()):
                    self.lock.wait(0.01 if self.heap else 0.2)
                if self.stopped:
                    return
                _, _, event, attempt = heapq.heappop(self.heap)
            self.pool.submit(self._send, event, attempt)

    def _send(self, event: Event, attempt: int) -> None:
        headers = slack_headers(SECRET, event.body, "application/json")
        if attempt:
            headers["X-Slack-Retry-Num"] = str(attempt)
            headers["X-Slack-Retry-Reason"] = "http_error"
        status = 0
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=3)
            conn.request("POST", "/slack/events", body=event.body.encode(), headers=headers)
            status = conn.getresponse().status
            conn.close()
        except (OSError, http.client.HTTPException):
            status = 0  # Slack counts a timeout past 3 s as a failure too
        event.statuses.append(status)
        if status == 200:
            event.acked_at = event.acked_at or time.time()
        elif attempt < len(SLACK_RETRIES):
            self.plan(time.time() + SLACK_RETRIES[attempt], event, attempt + 1)
        with self.lock:
            self.open -= 1

    def idle(self) -> bool:
        with self.lock:
            return self.open == 0

    def close(self) -> None:
        with self.lock:
            self.stopped = True
            self.lock.notify()
        self.pool.shutdown(wait=True)


def commits(remote: Path) -> dict[str, list[int]]:
    """Hippo-Key → commit times of every note commit on the remote."""
    out = subprocess.run(
        ["git", "--git-dir", str(remote), "log", f"--format=%ct%x00%s%x00{TRAILER}%x01"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    found: dict[str, list[int]] = {}
    for record in out.split("\x01"):
        stamp, _, rest = record.strip().partition("\x00")
        subject, _, key = rest.partition("\x00")
        if subject.startswith("note:"):
            found.setdefault(key.strip(), []).append(int(stamp))
    return found


def replies(rig: Rig) -> Counter[str]:
    """Successful chat.postMessage calls per thread."""
    return Counter(
        str(c.form.get("thread_ts"))
        for c in rig.slack.calls("chat.postMessage")
        if c.status == 200 and c.form.get("thread_ts")
    )
