"""Time what the operational log's records add to a recall (issue 39, item 10).

    .venv/bin/python bench/oplog.py [--recalls 2000] [--hits 5] [--baseline 75d03ec]

A Slack recall hands out up to 5 files and counts each as read (jobs/read_counts.count_read:
the read counts dreaming uses, the day's recalls in the operational log), and now records each
read (who, door, file, entry) in the workspace's Redis stream, in the same round trip. This
runs `--recalls` recalls of `--hits` reads each against a real Redis (the embedded one, in a
temporary folder), alternating, recall by recall, the count_read of `--baseline` (loaded from
the repository's history, bench/baseline.py: five separate Redis calls per read, no record)
and today's (one pipeline with the record), so both meet the same load. Prints per recall the
p50 and p95 wall time and the CPU time of this process for each, Redis's own CPU over the run,
and the stream's bytes per record.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import baseline
from jobs import keys
from jobs.config import Config
from jobs.read_counts import ReadBy, count_read
from jobs.runtime import Runtime

Recall = Callable[[int], None]


def redis_cpu(rt: Runtime) -> float:
    info = rt.redis.info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def timed(recall: Recall, n: int, walls: list[float]) -> float:
    started_cpu = time.process_time()
    started = time.perf_counter()
    recall(n)
    walls.append(time.perf_counter() - started)
    return time.process_time() - started_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recalls", type=int, default=2000)
    parser.add_argument("--hits", type=int, default=5)
    parser.add_argument("--baseline", default="75d03ec", help="main before issue 39")
    args = parser.parse_args()
    old = baseline.load("jobs/read_counts.py", "read_counts_before", rev=args.baseline)
    entry = "the checkout cache warms at six every morning before the first deploy"
    with tempfile.TemporaryDirectory() as tmp:
        rt = Runtime(Config(data_dir=Path(tmp) / "data", workspace="bench"))
        try:

            def before(i: int) -> None:
                for h in range(args.hits):
                    old.count_read(rt.redis, "bench", f"services/s{(i + h) % 200}.md")

            def now(i: int) -> None:
                who = ReadBy("U0ALICE", "slack")
                for h in range(args.hits):
                    path = f"services/s{(i + h) % 200}.md"
                    count_read(rt.redis, "bench", path, by=who, entry=entry)

            walls: dict[str, list[float]] = {"before": [], "now": []}
            cpu = {"before": 0.0, "now": 0.0}
            server = {"before": 0.0, "now": 0.0}
            for i in range(args.recalls):
                for name, fn in (("before", before), ("now", now))[:: 1 if i % 2 else -1]:
                    start = redis_cpu(rt)
                    cpu[name] += timed(fn, i, walls[name])
                    server[name] += redis_cpu(rt) - start
            stream = keys.oplog_events("bench")
            per = (rt.redis.memory_usage(stream) or 0) / max(1, rt.redis.xlen(stream))
            load = Path("/proc/loadavg").read_text().split()[0]
            print(f"{args.recalls} recalls of {args.hits} reads each, load {load}")
            for name, label in (("before", f"baseline {args.baseline}"), ("now", "this tree")):
                w = sorted(walls[name])
                p50, p95 = statistics.median(w), w[int(len(w) * 0.95)]
                print(
                    f"{label}: p50 {p50 * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms wall; "
                    f"CPU {cpu[name] / args.recalls * 1000:.3f} ms here, "
                    f"{server[name] / args.recalls * 1000:.3f} ms in Redis per recall"
                )
            print(f"stream: {rt.redis.xlen(stream)} records, {per:.0f} bytes each in Redis")
        finally:
            rt.close()


if __name__ == "__main__":
    main()
