"""Growth curves: how fetch, search, note, dream, lint, memory and disk grow with the memory's size.

    .venv/bin/python bench/growth.py [--sizes 1000 10000 100000] [--notes 40]
        [--parts write lint dream] [--baseline /tmp/base-worktree] [--json out.json]

Per size, one process makes the repository (bench/dream.py's generator: topic files with
claims, duplicates, broken links, lessons, an inbox, an archive), written by `git fast-import`
into a local bare remote and repacked as a git host keeps it; then each measurement runs in a
process of its own, so its peak RSS (getrusage) is its own and not the generator's. Per size:
the first fetch into hippo's new cache (wall and CPU, git's included) against `git clone --bare
--no-local` of the same remote; the first search of a process (the index built from the tree);
warm search p50/p99; the peak RSS so far (fetch, index, searches); a new process's first search
with the index already on disk, and its peak RSS. `--parts` adds: notes through the store
(p50/p99), each followed by the first search after that commit, against `git grep` and one git
CLI writer (pull, append, commit, push); lint; a dream (time by step, fake verifiers, no
network); RSS and the cache's size on disk. `--baseline DIR` measures fetch and search with the
`memory` package of another checkout (`git worktree add /tmp/base <rev>`) on the same remote,
in the same run. Then the tables and the slope of each figure between sizes (log-log: 1.0 grows
linearly, 2.0 quadratically). Not part of `make test`: 100,000 files (about 100 MB of text) take
minutes and a few GB of disk on a 2-core machine.
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

# HIPPO_BENCH_CODE: a baseline checkout whose `memory` (and bench.dream) a child imports.
sys.path.insert(0, os.environ.get("HIPPO_BENCH_CODE") or str(Path(__file__).resolve().parents[1]))

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


def make_repo(tmp: Path, n: int, seed: int) -> dict[str, Any]:
    """The generated memory as one commit of a packed bare remote, written by `git fast-import`
    (one pack, no work tree, no index: 100,000 files in seconds where `git add` of a written
    tree took minutes), repacked with deltas as a git host keeps it; and a git CLI clone with a
    work tree for the git writer baseline. Runs in its own process: the generator's RSS is not
    the measured one's."""
    files = generate(n, random.Random(seed))
    remote, work = tmp / "remote.git", tmp / "work"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    feed = subprocess.Popen(["git", "-C", str(remote), "fast-import", "--quiet"],
                            stdin=subprocess.PIPE)  # fmt: skip
    assert feed.stdin is not None
    out, paths = feed.stdin, sorted(files)
    for i, path in enumerate(paths, 1):
        data = files[path].encode()
        out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (i, len(data), data))
    out.write(b"commit refs/heads/main\ncommitter b <b@x> 1764547200 +0000\ndata 9\ngenerated\n")
    out.writelines(b"M 100644 :%d %s\n" % (i, p.encode()) for i, p in enumerate(paths, 1))
    out.close()
    if feed.wait():
        raise RuntimeError("git fast-import failed")
    git(remote, "repack", "-a", "-d", "-q")
    subprocess.run(["git", "clone", "-q", str(remote), str(work)], check=True)
    return {"files": len(files), "text_mb": sum(map(len, files.values())) / 1e6}


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


def cpu() -> float:
    """CPU seconds of this process and of the children it waited for (the git CLI)."""
    me, kids = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(r: dict[str, Any], key: str, fn: Callable[[], object]) -> None:
    """Wall and CPU milliseconds of `fn` as r[key_ms] and r[key_cpu_ms]."""
    c0 = cpu()
    r[f"{key}_ms"] = ms(fn)
    r[f"{key}_cpu_ms"] = (cpu() - c0) * 1000


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def hwm_mb() -> float:
    """This process's own peak RSS since exec (/proc VmHWM): ru_maxrss of a process started by
    a big one keeps the parent's (Linux carries it over exec), as a nested child is here."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1e3
    return peak_mb()


def queries(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    qs = [f"{rng.choice(WORDS)}-{rng.randint(1, 999)}" for _ in range(n // 2)]
    return qs + [rng.choice(WORDS) for _ in range(n - len(qs))]


def one_size(tmp: Path, data: Path, parts: set[str], n_notes: int, seed: int) -> dict[str, Any]:
    """The figures of one size, measured in this process against the remote `make_repo` left in
    `tmp`, with the cache in `data`: fetch and search always; `parts` may add write, lint, dream.
    """
    remote, work, qs = tmp / "remote.git", tmp / "work", queries(40, seed)
    r: dict[str, Any] = json.loads((tmp / "repo.json").read_text())
    store = Store.open(str(remote), data)
    timed(r, "first_fetch", store.sync)
    phases = r["rss_by_phase_mb"] = {"fetched": rss_mb()}
    timed(r, "search_cold", lambda: store.search(qs[0], 20))
    phases["indexed"] = rss_mb()
    warm = [ms(lambda q=q: store.search(q, 20)) for q in qs]
    r["search_p50_ms"], r["search_p99_ms"] = pct(warm, 50), pct(warm, 99)
    r["rss_peak_search_mb"] = peak_mb()  # the fetch, the index's build and the searches
    # A new process on this index (before writes move the tip), with this process's code.
    r.update(child("--reopen", data.name.removeprefix("data-"), "--dir", str(tmp)))
    clone = tmp / f"{data.name}-git-clone.git"  # git's own protocol (upload-pack), no hard links
    timed(
        r,
        "git_clone",
        lambda: git(tmp, "clone", "-q", "--bare", "--no-local", str(remote), str(clone)),
    )
    if "write" in parts:
        greps = [ms(lambda q=q: grep(remote, q)) for q in qs[:10]]
        r["git_grep_p50_ms"] = pct(greps, 50)
        ran = notes_and_searches(store, n_notes, qs)
        r["note_p50_ms"], r["note_p99_ms"] = pct(ran["note"], 50), pct(ran["note"], 99)
        r["after_write_p50_ms"] = pct(ran["after"], 50)
        r["after_write_p99_ms"] = pct(ran["after"], 99)
        phases["noted"] = rss_mb()
        r["git_writer_p50_ms"] = pct(git_writer(work, max(3, n_notes // 4)), 50)
    if "lint" in parts:
        tree = store.tree()
        r["lint_ms"] = ms(lambda: lint(tree))
        phases["linted"] = rss_mb()
    if "dream" in parts:
        verifiers, _ = fake_verifiers(random.Random(seed))
        t0 = time.perf_counter()
        report = dream(store, now=datetime(2026, 11, 30, 3, 0), verifiers=verifiers)
        r["dream_s"] = time.perf_counter() - t0
        r["dream_steps_s"] = {s.step: round(s.seconds, 3) for s in report.steps}
        phases["dreamed"] = rss_mb()
    r["rss_now_mb"], r["rss_peak_mb"] = rss_mb(), peak_mb()
    r["cache_mb"] = du(data) / 1e6
    r["remote_mb"] = du(remote) / 1e6
    r["load"] = os.getloadavg()[0]
    return r


def reopen(data: Path, remote: Path, qs: list[str]) -> dict[str, Any]:
    """A new process on a cache and index already on disk: its first search and peak RSS."""
    r: dict[str, Any] = {}
    store = Store.open(str(remote), data)
    timed(r, "reopen_search", lambda: store.search(qs[1 % len(qs)], 20))
    r["reopen_rss_peak_mb"] = hwm_mb()
    return r


ROWS = [
    ("text_mb", "text (MB)"),
    ("first_fetch_ms", "first fetch into the cache (ms)"),
    ("first_fetch_cpu_ms", "  its CPU, with git's (ms)"),
    ("git_clone_ms", "  baseline: git clone --bare (ms)"),
    ("git_clone_cpu_ms", "  its CPU (ms)"),
    ("search_cold_ms", "search, first in a process (ms)"),
    ("search_cold_cpu_ms", "  its CPU (ms)"),
    ("search_p50_ms", "search warm p50 (ms)"),
    ("search_p99_ms", "search warm p99 (ms)"),
    ("rss_peak_search_mb", "RSS peak: fetch, index, search (MB)"),
    ("reopen_search_ms", "search, new process, index on disk (ms)"),
    ("reopen_rss_peak_mb", "  its RSS peak (MB)"),
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
    """Figures per size (what a run did not measure left out), then the log-log slope between
    consecutive sizes."""
    sizes = [r["files"] for r in results]
    steps = sorted({k for r in results for k in r.get("dream_steps_s", {})})
    rows = [(label, [r.get(key, 0.0) for r in results]) for key, label in ROWS]
    rows += [
        (f"dream step {s} (s)", [r.get("dream_steps_s", {}).get(s, 0.0) for r in results])
        for s in steps
    ]
    head = "".join(f"{n:>12,}" for n in sizes)
    slope_head = "".join(f"{'slope':>9}" for _ in sizes[1:])
    print(f"\n{'files':40}{head}{slope_head}")
    for label, values in rows:
        if not any(values):
            continue
        cells = "".join(f"{v:12.1f}" for v in values)
        slopes = ""
        pairs = list(zip(sizes, values, strict=True))
        for (n1, v1), (n2, v2) in pairwise(pairs):
            ok = v1 > 0 and v2 > 0
            slopes += f"{math.log(v2 / v1) / math.log(n2 / n1):9.2f}" if ok else f"{'-':>9}"
        print(f"{label:40}{cells}{slopes}")
    loads = ", ".join(f"{r['load']:.1f}" for r in results)
    print(f"\nload average per size: {loads}")


def child(*args: str, code: str | None = None) -> dict[str, Any]:
    """Run this script with `args` in a new process (its RSS its own); its last line is JSON.
    `code`: a checkout whose `memory` package it imports instead of this one (a baseline;
    without it a child imports what its parent does)."""
    env = dict(os.environ, HIPPO_BENCH_CODE=code) if code else None
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True,
                         text=True, env=env).stdout  # fmt: skip
    return dict(json.loads(out.strip().splitlines()[-1]))


def run_size(n: int, opts: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """One size: the repository made once, then measured by the baseline's code (fetch and
    search only: its writes would change the remote) and by this checkout's."""
    with tempfile.TemporaryDirectory(prefix="hippo-bench-growth-") as name:
        seed = str(opts.seed)
        t0 = time.perf_counter()
        child("--setup", str(n), "--dir", name, "--seed", seed)
        made = time.perf_counter() - t0
        base = None
        if opts.baseline:
            base = child("--one", "base", "--dir", name, "--parts", "", "--seed", seed,
                         code=opts.baseline)  # fmt: skip
        parts, notes_n = ",".join(opts.parts), str(opts.notes)
        r = child(
            "--one", "new", "--dir", name, "--parts", parts, "--notes", notes_n, "--seed", seed
        )
        r["setup_s"] = made
        return r, base


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--notes", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--parts", nargs="*", default=["write", "lint", "dream"],
                    help="what to measure besides fetch and search")  # fmt: skip
    ap.add_argument("--baseline", help="a checkout (git worktree) measured in the same run")
    ap.add_argument("--json", type=Path, help="also write the results here")
    # A child's work: make a size's repository, measure it, or search it from a new process.
    ap.add_argument("--setup", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--reopen", help=argparse.SUPPRESS)
    ap.add_argument("--dir", type=Path, help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.setup:
        made = make_repo(opts.dir, opts.setup, opts.seed)
        (opts.dir / "repo.json").write_text(json.dumps(made))
        print(json.dumps(made))
        return 0
    if opts.one:
        parts = set(",".join(opts.parts).split(","))
        r = one_size(opts.dir, opts.dir / f"data-{opts.one}", parts, opts.notes, opts.seed)
        print(json.dumps(r))
        return 0
    if opts.reopen:
        print(json.dumps(reopen(opts.dir / f"data-{opts.reopen}", opts.dir / "remote.git",
                                queries(40, opts.seed))))  # fmt: skip
        return 0
    results, bases = [], []
    for n in opts.sizes:
        r, base = run_size(n, opts)
        results.append(r)
        print(json.dumps(r), flush=True)
        if base is not None:
            bases.append(base)
            print(json.dumps({"baseline": base}), flush=True)
    if opts.json:
        opts.json.write_text(json.dumps({"results": results, "baseline": bases}, indent=1))
    table(results)
    if bases:
        print(f"\nbaseline ({opts.baseline}), same run:")
        table(bases)
    return 0


if __name__ == "__main__":
    sys.exit(main())
