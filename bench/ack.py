"""The Slack ack path in process: CPU, memory, GC, Redis and SQL work per signed app_mention.

    .venv/bin/python bench/ack.py [--requests 1500] [--against REV] [--profile 15]

Wall-clock latency (bench/slack.py) needs a quiet machine; what one request costs on the ack path
does not. This drives `bot.app:create_app()` through Flask's test client (no sockets, no other
process but Redis) with signed "@hippo save a note: …" app_mentions, all distinct, and measures
per request, over the same requests for each setup:

- cpu_us: this process's CPU time (time.process_time), min_us: that of the cheapest batch of
  100 requests (steadier when other processes share the cores), and gc_us: the time inside the garbage
  collector (gc.callbacks), with the collections of each generation per 1,000 requests;
- peak_kb: tracemalloc's peak above the start of one request (its transient memory), in a second
  pass with tracemalloc on; kept_b: bytes still held after that pass, per request (caches, leaks);
- redis: Redis commands run per request (INFO's total_commands_processed), sql: SQL statements.

Setups, in the same run: `floor` (a Flask route that only reads the body: the test client's own
cost), `one` (the one workspace of SLACK_BOT_TOKEN: the baseline) and `two` (two workspaces
installed through OAuth, requests alternating between them). `--against REV` runs this same file
against the code of git revision REV too (`git archive` into a temporary folder) and prints both.
`--profile N` prints cProfile's N costliest functions of the `two` setup.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SECRET = "bench-signing-secret"
SETUPS = ("floor", "one", "two")


def mention(i: int, team: str) -> str:
    bot = f"U{team}"
    ts = f"1700000000.{i:06d}"
    text = f"<@{bot}> save a note: ack fact {i:05d} says widget {i * 7919 % 100003} is warm"
    return json.dumps(
        {
            "type": "event_callback",
            "team_id": team,
            "api_app_id": "A0B",
            "event_id": f"EvA{team}{i:07d}",
            "event_time": 1700000000,
            "authorizations": [{"user_id": bot, "is_bot": True, "team_id": team}],
            "event": {
                "type": "app_mention",
                "user": "U0BENCH",
                "text": text,
                "channel": f"C{team}",
                "ts": ts,
                "event_ts": ts,
            },
        }
    )


def signed(body: str) -> dict[str, str]:
    from slack_sdk.signature import SignatureVerifier

    ts = str(int(time.time()))
    signature = SignatureVerifier(SECRET).generate_signature(timestamp=ts, body=body)
    return {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
    }


def build(setup: str, work: Path) -> tuple[Any, Any, list[str], Any]:
    """(the Flask app, its Runtime or None, the teams its requests come from, a SQL counter)."""
    from flask import Flask, request

    if setup == "floor":
        app = Flask("floor")

        @app.post("/slack/events")
        def events() -> str:
            json.loads(request.get_data(as_text=True))
            return ""

        return app, None, ["T0F"], None

    from bot.app import create_app
    from jobs.config import Config
    from jobs.runtime import Runtime

    config = replace(
        Config(),
        data_dir=work / setup,
        memory_remote=str(work / setup / "remote.git"),
        slack_signing_secret=SECRET,
        slack_api_url="http://127.0.0.1:9/api/",  # the ack path never calls Slack
        slack_bot_token="xoxb-bench-one" if setup == "one" else "",
    )
    teams = ["T0ONE"]
    if setup == "two":
        teams = ["T0BA", "T0BB"]
        config = replace(
            config,
            slack_client_id="bench.client",
            slack_client_secret="bench-client-secret",
            memory_remote_template=str(work / setup / "memory-{team}.git"),
            public_url="https://hippo.bench",
        )
    rt = Runtime(config)
    sql = [0]
    if setup == "two":
        from sqlalchemy import event

        from tests.workspaces_helpers import installed

        for team in teams:
            installed(rt, team, f"xoxb-bench-{team}")
        event.listen(rt.workspaces.installs.engine, "before_cursor_execute", _counter(sql))
    app = create_app(config, rt)
    return app, rt, teams, sql


def _counter(sql: list[int]) -> Any:
    def count(*_: Any) -> None:
        sql[0] += 1

    return count


def commands(rt: Any) -> int:
    return int(rt.redis.info("stats")["total_commands_processed"]) if rt is not None else 0


def drive(client: Any, requests: list[tuple[str, dict[str, str]]]) -> None:
    for body, headers in requests:
        # buffered: read and close the answer as a server does (work after the ack runs then)
        answer = client.post("/slack/events", data=body, headers=headers, buffered=True)
        if answer.status_code != 200:
            raise SystemExit(f"ack answered {answer.status_code}: {answer.get_data(as_text=True)}")


def measure(setup: str, n: int, work: Path, profile: int) -> dict[str, Any]:
    app, rt, teams, sql = build(setup, work)
    client = app.test_client()

    def batch(start: int, count: int) -> list[tuple[str, dict[str, str]]]:
        bodies = [mention(start + i, teams[i % len(teams)]) for i in range(count)]
        return [(b, signed(b)) for b in bodies]

    drive(client, batch(0, 200))  # warm: connections, pools, first-use imports
    gc.collect()
    if os.environ.get("BENCH_ACK_FREEZE", "1") == "1":
        gc.freeze()  # as gunicorn's post_worker_init does before a worker takes requests
    paused = [0.0]
    started = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            paused[0] += time.perf_counter() - started[0]

    requests = batch(1000, n)
    before_gc = [s["collections"] for s in gc.get_stats()]
    before_cmd, before_sql = commands(rt), sql[0] if sql else 0
    gc.callbacks.append(on_gc)
    # CPU per batch of 100: the total, and the cheapest batch (another process on the same
    # cores only ever adds to a batch's CPU time, through caches and frequency: the minimum is
    # the steadier figure on a loaded machine)
    batches = []
    for at in range(0, n, 100):
        began = time.process_time()
        drive(client, requests[at : at + 100])
        batches.append((time.process_time() - began, len(requests[at : at + 100])))
    cpu = sum(spent for spent, _ in batches)
    gc.callbacks.remove(on_gc)
    after_cmd = commands(rt) - 1  # the INFO of `before_cmd`
    collections = [s["collections"] - b for s, b in zip(gc.get_stats(), before_gc, strict=True)]
    result: dict[str, Any] = {
        "setup": setup,
        "cpu_us": round(cpu / n * 1e6),
        "cpu_min_us": round(min(spent / count for spent, count in batches) * 1e6),
        "gc_us": round(paused[0] / n * 1e6, 1),
        "gc_per_1000": [round(c * 1000 / n, 1) for c in collections],
        "redis": round((after_cmd - before_cmd) / n, 2) if rt is not None else 0,
        "sql": round(((sql[0] if sql else 0) - before_sql) / n, 2),
    }
    result.update(memory(client, batch(100000, min(n, 300))))
    if profile and setup == "two":
        result["profile"] = profiled(client, batch(200000, min(n, 500)), profile)
    if rt is not None:
        rt.close()
    return result


def memory(client: Any, requests: list[tuple[str, dict[str, str]]]) -> dict[str, Any]:
    """Transient and kept memory per request (tracemalloc on: slower, so a pass of its own)."""
    tracemalloc.start()
    peaks: list[int] = []
    start = tracemalloc.get_traced_memory()[0]
    for req in requests:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        drive(client, [req])
        peaks.append(tracemalloc.get_traced_memory()[1] - base)
    gc.collect()
    kept = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    peaks.sort()
    return {
        "peak_kb": round(peaks[len(peaks) // 2] / 1024, 1),
        "kept_b": round(kept / len(requests)),
    }


def profiled(client: Any, requests: list[tuple[str, dict[str, str]]], top: int) -> str:
    prof = cProfile.Profile(time.process_time)  # CPU, not wall: the machine may be loaded
    prof.enable()
    drive(client, requests)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats(os.environ.get("BENCH_ACK_SORT", "tottime")).print_stats(top)
    return out.getvalue()


def child(args: argparse.Namespace) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="hippo-bench-ack-") as work:
        wanted = [s for s in SETUPS if s in args.setups.split(",")]
        return [measure(s, args.requests, Path(work), args.profile) for s in wanted]


def against(rev: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """This file run against the code of `rev`, in a child process (its own imports)."""
    with tempfile.TemporaryDirectory(prefix="hippo-bench-ack-rev-") as tree:
        archive = subprocess.run(["git", "archive", rev], cwd=ROOT, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tree], input=archive.stdout, check=True)
        script = Path(tree) / "bench" / "ack_this.py"
        script.write_text(Path(__file__).read_text())
        argv = [sys.executable, str(script), "--json", "--requests", str(args.requests)]
        done = subprocess.run(argv, cwd=tree, check=True, capture_output=True, text=True)
        return list(json.loads(done.stdout.strip().splitlines()[-1]))


def show(label: str, results: list[dict[str, Any]]) -> None:
    print(f"{label}:")
    print("  setup  cpu_us  min_us  gc_us  gc/1000 (gen0,1,2)  redis  sql  peak_kb  kept_b")
    for r in results:
        gens = ",".join(str(c) for c in r["gc_per_1000"])
        print(
            f"  {r['setup']:<5} {r['cpu_us']:>7} {r.get('cpu_min_us', '')!s:>7} {r['gc_us']:>6}"
            f"  {gens:<19} {r['redis']:>6}"
            f" {r['sql']:>4} {r['peak_kb']:>8} {r['kept_b']:>7}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1500)
    parser.add_argument("--against", default="", help="a git revision to measure beside this tree")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions")
    parser.add_argument("--json", action="store_true", help="one JSON line (for --against)")
    parser.add_argument("--setups", default=",".join(SETUPS), help="which of floor,one,two")
    args = parser.parse_args()
    if args.against:
        show(f"at {args.against}", against(args.against, args))
    results = child(args)
    if args.json:
        print(json.dumps([{k: v for k, v in r.items() if k != "profile"} for r in results]))
        return 0
    show("this tree", results)
    for r in results:
        if "profile" in r:
            print(r["profile"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
