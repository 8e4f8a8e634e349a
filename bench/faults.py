"""An operator's bad day, measured: signed "save a note" mentions against the Procfile's processes
while things fail, and what became of every acked note and every reply.

    .venv/bin/python bench/faults.py            # short: 2 worker kills, 1 Redis restart, …
    .venv/bin/python bench/faults.py --full     # 20 worker kills, 3 Redis restarts

Starts for real: a redis-server on a free port (append-only, fsync every second: the settings
docs/DEPLOY.md asks production for), gunicorn serving `bot.app:create_app()` (2 × 8 threads), a Celery
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
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.faults_rig import (  # noqa: E402
    DIGEST,
    LATE,
    Event,
    Phase,
    Rig,
    Sender,
    commits,
    mention,
    replies,
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
