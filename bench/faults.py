"""An operator's bad day, measured: signed "save a note" mentions against the Procfile's processes
while things fail, and what became of every acked note and every reply.

    .venv/bin/python bench/faults.py            # short: 2 worker kills, 1 Redis restart, …
    .venv/bin/python bench/faults.py --full     # 20 worker kills, 3 Redis restarts

Starts for real: a redis-server on a free port (append-only, fsync every second: the settings
README asks production for), gunicorn serving `bot.app:create_app()` (2 × 8 threads), a Celery
worker (8 threads, as in the Procfile, the default 60 s task lease), a local bare remote, Slack's
Web API and Anthropic's Messages API as loopback fakes. Every phase sends its own mentions at
--rate per second and plays Slack: a delivery that is not answered 200 is retried after 1, 15
and 60 s (Slack: at once, 1 and 5 minutes). Phases, in order:

- baseline: no fault (the figures the others are read against);
- worker kill -9: SIGKILL to the worker's process group N times, restarted 1 s later;
- redis restart (append-only): stopped and started again 3 s later, N times;
- remote unreachable: the bare remote moved away for --remote-outage s;
- slack 429/500: chat.postMessage answers 429 (Retry-After: 1) and 500 for --slack-outage s;
- anthropic 529: the Messages API answers 529 for --llm-outage s while a dream and an agent turn
  run (the dream must finish on its deterministic path, the agent must answer exactly once);
- redis restart (no persistence): what is lost when Redis keeps nothing (not a target).

Per phase: sent, acked, committed, late (committed more than 2 minutes after both its ack and the
end of the fault), lost (acked, never committed), duplicated (a second commit of one note),
replies lost and doubled, the slowest ack → commit. Exit 1 if a target phase lost, duplicated,
was late, or doubled a reply.
"""

from __future__ import annotations

import argparse
import heapq
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
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


def run_phase(
    rig: Rig,
    sender: Sender,
    index: int,
    phase: Phase,
    n: int,
    rate: float,
    fault: Callable[[float], None],
) -> dict[str, Any]:
    """Send n notes at `rate`/s, run `fault(t0)` alongside, then wait for the outcome."""
    t0 = time.time() + 0.5
    for i in range(n):
        ts, body = mention(index, i, f"save a note: fault {phase.name} fact {i:05d} holds")
        event = Event(i, ts, body)
        phase.events.append(event)
        sender.plan(t0 + i / rate, event)
    fault(t0)
    phase.fault_ended = phase.fault_ended or time.time()
    keys = {f"slack:EvF{index:02d}{e.i:05d}": e for e in phase.events}
    deadline = max(phase.fault_ended, t0 + n / rate) + LATE + 30
    while time.time() < deadline:
        phase.extra["worker_crashes"] = phase.extra.get("worker_crashes", 0) + rig.supervise()
        acked = [k for k, e in keys.items() if e.acked_at]
        landed = commits(rig.remote)
        said = replies(rig)
        if sender.idle() and all(k in landed and said[keys[k].ts] for k in acked):
            break
        time.sleep(1.0)
    time.sleep(3.0)  # anything still to come would be a duplicate
    landed, said = commits(rig.remote), replies(rig)
    acked = [k for k, e in keys.items() if e.acked_at]
    done = [k for k in acked if k in landed]
    slowest = 0.0
    late = 0
    for k in done:
        ack = keys[k].acked_at or 0.0
        first = min(landed[k])
        slowest = max(slowest, first - ack)
        if first - max(ack, phase.fault_ended) > LATE:
            late += 1
    return {
        "phase": phase.name,
        "sent": n,
        "refused_at_first": sum(1 for e in phase.events if e.statuses[:1] != [200]),
        "acked": len(acked),
        "never_acked": n - len(acked),
        "committed": len(done),
        "late": late,
        "lost": len(acked) - len(done),
        "duplicated": sum(len(landed[k]) - 1 for k in keys if k in landed),
        "replies_lost": sum(1 for k in done if not said[keys[k].ts]),
        "replies_doubled": sum(1 for e in phase.events if said[e.ts] > 1),
        "slowest_ack_to_commit_s": round(slowest, 1),
        **phase.extra,
    }


def sleep_until(t: float) -> None:
    time.sleep(max(0.0, t - time.time()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true", help="20 worker kills, 3 Redis restarts")
    parser.add_argument("--rate", type=float, default=12.0)
    parser.add_argument("--kills", type=int, default=2)
    parser.add_argument("--restarts", type=int, default=1)
    parser.add_argument("--remote-outage", type=float, default=60.0)
    parser.add_argument("--slack-outage", type=float, default=20.0)
    parser.add_argument("--llm-outage", type=float, default=30.0)
    parser.add_argument("--only", default="", help="comma-separated phase names to run")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    if args.full:
        args.kills, args.restarts = max(args.kills, 20), max(args.restarts, 3)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still stop every process
    work = Path(tempfile.mkdtemp(prefix="hippo-bench-faults-"))
    rig = Rig(work)
    sender = Sender(rig.port)
    time.sleep(3)  # let the worker connect before the clock starts
    results: list[dict[str, Any]] = []
    try:
        for index, (phase, n, fault) in enumerate(phases(rig, sender, args), start=1):
            if args.only and phase.name.split()[0] not in args.only.split(","):
                continue
            print(f"-- {phase.name}: {n} notes at {args.rate}/s", flush=True)
            result = run_phase(rig, sender, index, phase, n, args.rate, fault)
            result["target"] = phase.target
            print(json.dumps(result), flush=True)
            results.append(result)
    finally:
        sender.close()
        rig.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder: {work}")
    return report(results)


def phases(
    rig: Rig, sender: Sender, args: argparse.Namespace
) -> list[tuple[Phase, int, Callable[[float], None]]]:
    rate = args.rate

    def nothing(t0: float) -> None:
        sleep_until(t0 + 10)

    kill_every = 5.0
    kill = Phase(f"worker kill -9 x{args.kills}")

    def kills(t0: float) -> None:
        for k in range(args.kills):
            sleep_until(t0 + 2 + k * kill_every)
            rig.kill_worker()
            time.sleep(1.0)
            rig.worker = rig.start_worker()
        kill.fault_ended = time.time()

    aof = Phase(f"redis restart (append-only) x{args.restarts}")

    def restarts(t0: float, phase: Phase = aof) -> None:
        for k in range(args.restarts):
            sleep_until(t0 + 3 + k * 8)
            rig.redis.stop()
            time.sleep(3.0)
            rig.redis.start()
        phase.fault_ended = time.time()

    remote = Phase(f"remote unreachable {args.remote_outage:.0f}s")

    def unreachable(t0: float) -> None:
        sleep_until(t0 + 2)
        away = rig.remote.with_name("remote.away")
        rig.remote.rename(away)
        time.sleep(args.remote_outage)
        away.rename(rig.remote)
        remote.fault_ended = time.time()

    slack = Phase(f"slack 429/500 {args.slack_outage:.0f}s")

    def slack_down(t0: float) -> None:
        sleep_until(t0 + 2)
        rig.slack.outage("chat.postMessage", args.slack_outage)
        time.sleep(args.slack_outage)
        slack.fault_ended = time.time()

    llm = Phase(f"anthropic 529 {args.llm_outage:.0f}s")

    def llm_down(t0: float) -> None:
        until = time.monotonic() + args.llm_outage
        rig.llm.default = lambda body: (
            rig.llm.error(529) if time.monotonic() < until else rig.llm.text("It is the pool.")
        )
        asked_at = time.time()
        ts, body = mention(90, 0, "why does checkout-api return 504s after deploys?")
        sender.plan(time.time(), Event(0, ts, body))
        dream = subprocess.run(
            [sys.executable, "-m", "bot.cli.main", "dream"],
            env=rig.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        llm.fault_ended = max(time.time(), asked_at + args.llm_outage)
        deadline = time.time() + LATE + 60
        while time.time() < deadline and not replies(rig)[ts]:
            time.sleep(1.0)
        posted = [c for c in rig.slack.calls("chat.postMessage") if c.status == 200]
        llm.extra.update(
            dream_exit=dream.returncode,
            dream_digests=sum(c.form.get("channel") == DIGEST for c in posted),
            llm_requests=len(rig.llm.requests),
            agent_replies=replies(rig)[ts],
            agent_reply=next(
                (str(c.form.get("text"))[:80] for c in posted if c.form.get("thread_ts") == ts),
                "",
            ),
        )

    loose = Phase("redis restart (no persistence)", target=False)

    def forgetful(t0: float) -> None:
        rig.redis.persistent = False
        restarts(t0, loose)

    n = int(rate * 10)
    return [
        (Phase("baseline"), n, nothing),
        (kill, int(rate * max(10.0, 2 + args.kills * kill_every)), kills),
        (aof, int(rate * max(10.0, 3 + args.restarts * 8)), restarts),
        (remote, n, unreachable),
        (slack, n, slack_down),
        (llm, n, llm_down),
        (loose, n, forgetful),
    ]


def report(results: list[dict[str, Any]]) -> int:
    cols = ["acked", "committed", "late", "lost", "duplicated", "replies_lost", "replies_doubled"]
    print(f"\n{'phase':<34} {'sent':>5} " + " ".join(f"{c:>9}"[:9] for c in cols) + "  slowest")
    bad = False
    for r in results:
        row = " ".join(f"{r[c]:>9}" for c in cols)
        print(f"{r['phase']:<34} {r['sent']:>5} {row}  {r['slowest_ack_to_commit_s']:>6}s")
        if r["target"] and (r["lost"] or r["duplicated"] or r["late"] or r["replies_doubled"]):
            bad = True
    verdict = "MISSED" if bad else "met"
    print(f"targets (every phase but 'no persistence'): 0 lost, 0 duplicated, 0 late: {verdict}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
