"""Growth curves: how note, search, dream, lint, memory and disk grow with the memory's size.

    .venv/bin/python bench/growth.py [--sizes 1000 10000 100000] [--notes 40] [--queries 40]

Each size runs in its own process (so its RSS is its own) on a generated memory (bench/dream.py's
generator: topic files with claims, duplicates, broken links, lessons, an inbox, an archive)
committed with the git CLI into a local bare remote. Per size: the first fetch into hippo's cache,
the first search of a new process (tree read and index build), warm search p50/p99, notes saved
through the store (p50/p99) each followed by the first search after that commit, a dream (time
by step, fake verifiers, no network), lint, peak RSS and the cache's size on disk. Baselines in
the same run: `git grep` over the same commit (a full pass over the text) and one git CLI writer
(pull, append, commit, push) on a clone. Then the table and the slope of each figure between
sizes (log-log: 1.0 grows linearly, 2.0 quadratically). Not part of `make test`: 100,000 files
(about 100 MB of text here) take several minutes and a few GB of disk on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dream import fake_verifiers, generate
from memory import notes
from memory.dream.run import dream
from memory.format.lint import lint
from memory.git import Author, Store

WHO = Author("bench", "bench@example.com")
WORDS = ["checkout", "billing", "ledger", "gateway", "latency", "replica", "rollout", "oncall"]


def ms(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)
    return out.stdout.decode()


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def rss_mb() -> float:
    """Current resident set size of this process (Linux /proc)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def make_repo(tmp: Path, n: int, seed: int) -> tuple[Path, Path, dict[str, str]]:
    """The generated memory, committed in a work tree, and a bare clone as hippo's remote."""
    files = generate(n, random.Random(seed))
    work, remote = tmp / "work", tmp / "remote.git"
    for path, text in files.items():
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "generated")
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(remote)], check=True)
    git(work, "remote", "add", "origin", str(remote))
    git(work, "fetch", "-q", "origin")
    git(work, "branch", "-q", "--set-upstream-to=origin/main")
    return work, remote, files


def grep(remote: Path, word: str) -> None:
    subprocess.run(["git", "-C", str(remote), "grep", "-i", "-n", "-F", "-e", word, "main"],
                   capture_output=True)  # fmt: skip


def git_writer(work: Path, k: int) -> list[float]:
    """One git CLI writer: pull, append a line, commit, push (the baseline of a note)."""

    def one(i: int) -> None:
        git(work, "pull", "-q", "--rebase")
        with (work / "inbox.md").open("a") as f:
            f.write(f"- git note {i} [added: 2026-12-01]\n")
        git(work, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qam", f"note {i}")
        git(work, "push", "-q", "origin", "main")

    return [ms(lambda i=i: one(i)) for i in range(k)]


def notes_and_searches(store: Store, k: int, qs: list[str]) -> dict[str, list[float]]:
    """`k` notes through the store, each followed by the first search after its commit."""
    rng = random.Random(k)
    out: dict[str, list[float]] = {"note": [], "after": []}
    for i in range(k):
        text = f"{rng.choice(WORDS)} note {i} about {rng.choice(WORDS)} {rng.randint(1, 999)}"
        out["note"].append(
            ms(lambda t=text: notes.save_note(store, t, today="2026-12-01", author=WHO))
        )
        query = qs[i % len(qs)]
        out["after"].append(ms(lambda q=query: store.search(q, 20)))
    return out


def one_size(n: int, n_notes: int, n_queries: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    qs = [f"{rng.choice(WORDS)}-{rng.randint(1, 999)}" for _ in range(n_queries // 2)]
    qs += [rng.choice(WORDS) for _ in range(n_queries - len(qs))]
    with tempfile.TemporaryDirectory(prefix="hippo-bench-growth-") as name:
        tmp = Path(name)
        t0 = time.perf_counter()
        work, remote, files = make_repo(tmp, n, seed)
        r: dict[str, Any] = {"files": len(files), "text_mb": sum(map(len, files.values())) / 1e6}
        r["generate_s"] = time.perf_counter() - t0
        store = Store.open(str(remote), tmp / "data")
        r["first_fetch_ms"] = ms(store.sync)
        phases = r["rss_by_phase_mb"] = {"fetched": rss_mb()}
        r["search_cold_ms"] = ms(lambda: store.search(qs[0], 20))
        phases["indexed"] = rss_mb()
        warm = [ms(lambda q=q: store.search(q, 20)) for q in qs]
        r["search_p50_ms"], r["search_p99_ms"] = pct(warm, 50), pct(warm, 99)
        greps = [ms(lambda q=q: grep(remote, q)) for q in qs[:10]]
        r["git_grep_p50_ms"] = pct(greps, 50)
        ran = notes_and_searches(store, n_notes, qs)
        r["note_p50_ms"], r["note_p99_ms"] = pct(ran["note"], 50), pct(ran["note"], 99)
        r["after_write_p50_ms"] = pct(ran["after"], 50)
        r["after_write_p99_ms"] = pct(ran["after"], 99)
        phases["noted"] = rss_mb()
        gw = git_writer(work, max(3, n_notes // 4))
        r["git_writer_p50_ms"] = pct(gw, 50)
        tree = store.tree()
        r["lint_ms"] = ms(lambda: lint(tree))
        phases["linted"] = rss_mb()
        verifiers, _ = fake_verifiers(random.Random(seed))
        t0 = time.perf_counter()
        report = dream(store, now=datetime(2026, 11, 30, 3, 0), verifiers=verifiers)
        r["dream_s"] = time.perf_counter() - t0
        r["dream_steps_s"] = {s.step: round(s.seconds, 3) for s in report.steps}
        r["rss_now_mb"] = phases["dreamed"] = rss_mb()
        r["rss_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
        r["cache_mb"] = du(tmp / "data") / 1e6
        r["remote_mb"] = du(remote) / 1e6
        r["load"] = os.getloadavg()[0]
        return r


ROWS = [
    ("text_mb", "text (MB)"),
    ("first_fetch_ms", "first fetch into the cache (ms)"),
    ("search_cold_ms", "search, first in a process (ms)"),
    ("search_p50_ms", "search warm p50 (ms)"),
    ("search_p99_ms", "search warm p99 (ms)"),
    ("after_write_p50_ms", "search after a note p50 (ms)"),
    ("after_write_p99_ms", "search after a note p99 (ms)"),
    ("git_grep_p50_ms", "  baseline: git grep p50 (ms)"),
    ("note_p50_ms", "note p50 (ms)"),
    ("note_p99_ms", "note p99 (ms)"),
    ("git_writer_p50_ms", "  baseline: git CLI writer p50 (ms)"),
    ("lint_ms", "lint (ms)"),
    ("dream_s", "dream (s)"),
    ("rss_now_mb", "RSS after all (MB)"),
    ("rss_peak_mb", "RSS peak (MB)"),
    ("cache_mb", "cache on disk (MB)"),
    ("remote_mb", "remote on disk (MB)"),
]


def table(results: list[dict[str, Any]]) -> None:
    """Figures per size, then the log-log slope between consecutive sizes."""
    sizes = [r["files"] for r in results]
    steps = sorted({k for r in results for k in r["dream_steps_s"]})
    rows = [(key, label, [r[key] for r in results]) for key, label in ROWS]
    rows += [
        (s, f"dream step {s} (s)", [r["dream_steps_s"].get(s, 0.0) for r in results]) for s in steps
    ]
    head = "".join(f"{n:>12,}" for n in sizes)
    slope_head = "".join(f"{'slope':>9}" for _ in sizes[1:])
    print(f"\n{'files':38}{head}{slope_head}")
    for _, label, values in rows:
        cells = "".join(f"{v:12.1f}" for v in values)
        slopes = ""
        pairs = list(zip(sizes, values, strict=True))
        for (n1, v1), (n2, v2) in pairwise(pairs):
            ok = v1 > 0 and v2 > 0
            slopes += f"{math.log(v2 / v1) / math.log(n2 / n1):9.2f}" if ok else f"{'-':>9}"
        print(f"{label:38}{cells}{slopes}")
    loads = ", ".join(f"{r['load']:.1f}" for r in results)
    print(f"\nload average per size: {loads}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--notes", type=int, default=40)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: one size, JSON out
    ap.add_argument("--json", type=Path, help="also write the results here")
    opts = ap.parse_args()
    if opts.one:
        print(json.dumps(one_size(opts.one, opts.notes, opts.queries, opts.seed)))
        return 0
    results = []
    for n in opts.sizes:
        args = ["--one", str(n), "--notes", str(opts.notes), "--queries", str(opts.queries)]
        out = subprocess.run([sys.executable, __file__, *args, "--seed", str(opts.seed)],
                             check=True, capture_output=True, text=True).stdout  # fmt: skip
        results.append(json.loads(out.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), flush=True)
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1))
    table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
