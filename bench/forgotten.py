"""A night whose forgotten.md is full: what tidy merges, and what the night costs, on this tree and
on an earlier release's code in the same run (decision 19, memory/archive/forgotten.py).

    python bench/forgotten.py [--topics 400] [--baseline f90d631]

The memory: `--topics` topic files, each holding one provable duplicate pair, and a forgotten.md
a few KB under its 2 MiB cap, its records spread over the twelve months before the night (the
format forget and tidy write). One dream (memory/dream/run.py, no Claude, no verifiers) on a
local bare remote; measured: the night's process CPU and wall time, the merges written,
forgotten.md's bytes before and after, and (this tree) the records rolled into the cold ref and
that every seeded record is in the tree or the cold ref. The baseline holds every merge back
(its tidy's parts wait while forgotten.md is full); this tree rolls the old months first.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.baseline import run_at
from memory import format as fmt
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git.batch import DREAMER, Author
from memory.git.store import Store
from memory.writes.operations import WriteFile
from memory.writes.validate import MAX_FILE_BYTES

NIGHT = datetime(2026, 11, 30, 3, 0)
MONTHS = ["2025-12"] + [f"2026-{m:02d}" for m in range(1, 12)]
TITLE = "# Forgotten: facts removed on purpose, with when, why and by whom\n\n"
PERSON = Author("bench", "bench@example.com")


def _record(month: str, i: int) -> str:
    return (
        f"- the {i}th service of {month} deploys from branch release-{i} on host h{i}.example.com "
        f"[removed: {month}-{1 + i % 28:02d}; by: U0{i % 9}; reason: wrong: gone; "
        f"source: https://acme.slack.com/archives/C1/p17000{i:08d}; scope: services/s{i % 40}.md]\n"
    )


def stones() -> str:
    """forgotten.md a few KB under its cap: too full for a night's merges."""
    lines = [_record(m, i) for i in range(100_000) for m in MONTHS]
    text, size, out = TITLE, len(TITLE), []
    for line in lines:
        if size + len(line) > MAX_FILE_BYTES - 2_000:
            break
        out.append(line)
        size += len(line)
    return text + "".join(out)


def topics(n: int) -> dict[str, str]:
    return {
        f"teams/t{i}.md": f"# Team {i}\n\n"
        f"- The on call of team {i} hands over every Monday at 10am. [source: https://b{i}]\n"
        f"- the on-call of team {i} hand over every Monday at 10:00 [source: https://c{i}]\n"
        for i in range(n)
    }


def records(text: str | None) -> Counter[str]:
    lines = (text or "").split("\n")
    return Counter(lines[e.line] for e in fmt.parse(text or "").entries)


def bench(n: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(str(Path(tmp) / "remote.git"), Path(tmp) / "data")
        store.init()
        seeded = stones()
        store.write([WriteFile("forgotten.md", seeded)], author=DREAMER, message="stones")
        files = topics(n)
        store.write([WriteFile(p, t) for p, t in files.items()], author=PERSON, message="seed")
        cpu, wall = time.process_time(), time.perf_counter()
        report = dream(store, now=NIGHT, verifiers=Verifiers())
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        after = store.read_or_none("forgotten.md")
        merged = sum(len(fmt.parse(store.read(p)).entries) == 1 for p in files)
        out: dict[str, object] = {
            "topics": n,
            "merged": merged,
            "forgotten_bytes": [len(seeded.encode()), len((after or "").encode())],
            "night_cpu_s": round(cpu, 2),
            "night_wall_s": round(wall, 2),
            "commits": len([s for s in report.steps if s.commit]),
        }
        try:
            from memory.archive import forgotten as rolling  # this tree only
            from memory.git.cold import ColdStore
        except ImportError:  # the baseline: nothing rolls
            return out
        cold = ColdStore(store)
        tip = cold.fetch()
        held = Counter(
            line
            for month in rolling.held_months(cold, tip)
            for line in rolling.month_lines(cold, tip, month)
        )
        out["rolled_records"] = sum(held.values())
        out["lost"] = sum((records(seeded) - records(after) - held).values())
        return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--topics", type=int, default=400)
    p.add_argument("--baseline", help="a commit whose code runs the same night, first")
    args = p.parse_args()
    if args.baseline:
        found = run_at(args.baseline, "forgotten.py", ["--topics", str(args.topics)])
        print(f"baseline {args.baseline}: {found}", flush=True)
    print(f"this tree: {json.dumps(bench(args.topics))}", flush=True)


if __name__ == "__main__":
    main()
