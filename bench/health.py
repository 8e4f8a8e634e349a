"""Time the memory's health: the night's figures and the page that draws them (issue 39, item 8).

    .venv/bin/python bench/health.py [--files 10000] [--nights 90] [--seed 7]

The nightly cost: `memory.dream.health.night` over the memory of bench/dream.py (`generate`,
--files topic files), which parses every file that holds facts once (the dream parses them
too). The page's cost: `jobs.memory_health.nights` reading --nights nights back from a real
(embedded) Redis and the four SVG charts drawn from them (bot/console/charts.py), against the
plain table of counts the page drew before in the same run (oplog.days, 14 days). Prints CPU
seconds for the night and milliseconds per page.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dream import generate
from bot.console.charts import chart
from jobs import keys, memory_health, oplog
from jobs.config import Config
from jobs.runtime import Runtime
from memory.dream import health
from memory.dream.report import Report


def per_call(fn, n: int = 50) -> float:  # type: ignore[no-untyped-def]
    started = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - started) / n * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--nights", type=int, default=90)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    tree = generate(args.files, random.Random(args.seed))
    started = time.process_time()
    figures = health.night(tree, Report("2026-11-29"), date(2026, 11, 30))
    night_cpu = time.process_time() - started
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"{len(tree)} files ({sum(map(len, tree.values())) / 1e6:.1f} MB), load {load}")
    print(f"night's figures: {night_cpu:.2f} s CPU ({figures['active']:,} active entries)")
    with tempfile.TemporaryDirectory() as tmp:
        rt = Runtime(Config(data_dir=Path(tmp) / "data", workspace="bench"))
        try:
            first = date(2026, 9, 1)
            for i in range(args.nights):
                night = (first + timedelta(days=i)).isoformat()
                rt.redis.hset(
                    keys.memory_health("bench"), night, json.dumps(figures | {"night": night})
                )

            def page() -> None:
                nights = memory_health.nights(rt.redis, "bench")
                labels = [n["night"] for n in nights]
                for names in (health.STANDINGS, ("fixed", "deleted"), ("proposals", "reminders")):
                    series = [(k, [float(n.get(k) or 0) for n in nights]) for k in names]
                    chart("c", labels, series, "area")
                days = oplog.days(rt.redis, "bench", 30)
                chart(
                    "r",
                    [d for d, _ in days],
                    [("recalls", [float(c["recalls"]) for _, c in days])],
                    "bars",
                )

            before = per_call(lambda: oplog.days(rt.redis, "bench", 14))
            now = per_call(page)
            print(
                f"page, {args.nights} nights: {now:.2f} ms CPU (the table of counts alone: {before:.2f} ms)"
            )
        finally:
            rt.close()


if __name__ == "__main__":
    main()
