"""Save N notes from 20 concurrent producers into one workspace with a local bare remote, verify
the remote, and run the same workload through the git CLI in the same run.

    .venv/bin/python bench/notes.py [--notes 2000] [--git-notes 300]

hippo: 2 processes × 10 threads (each process with its own cache, as web and worker have).
git CLI: 20 threads, each with its own clone: append, commit, push; on rejection pull (merge,
union for inbox.md) and push again.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import notes
from memory.store import Author, Store

PRODUCERS = 20
PROCESSES = 2


def _producer_process(
    remote: str, cache: str, start: int, count: int, threads: int, q: mp.Queue
) -> None:  # type: ignore[type-arg]
    store = Store.open(remote, Path(cache))
    latencies: list[float] = []
    lock = threading.Lock()

    def produce(ids: range) -> None:
        for i in ids:
            t0 = time.perf_counter()
            notes.save_note(
                store,
                f"bench note {i:06d} about the nightly batch",
                today="2026-11-30",
                author=Author("bench", "bench@example.com"),
                key=f"bench-{i}",
            )
            with lock:
                latencies.append(time.perf_counter() - t0)

    per = count // threads
    ths = [
        threading.Thread(target=produce, args=(range(start + k * per, start + (k + 1) * per),))
        for k in range(threads)
    ]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    q.put(latencies)


def bench_hippo(root: Path, n: int) -> dict[str, float]:
    remote = str(root / "hippo-remote.git")
    Store.open(remote, root / "init").init()
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    per_proc = n // PROCESSES
    t0 = time.perf_counter()
    procs = [
        ctx.Process(
            target=_producer_process,
            args=(
                remote,
                str(root / f"cache-{p}"),
                p * per_proc,
                per_proc,
                PRODUCERS // PROCESSES,
                q,
            ),
        )
        for p in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    latencies: list[float] = []
    for _ in procs:
        latencies.extend(q.get())
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - t0
    reader = Store.open(remote, root / "reader")
    reader.sync()
    lines = [x for x in reader.read("inbox.md").splitlines() if x.startswith("- bench note")]
    return _summary(n, elapsed, latencies, lines, commits=len(reader.log(limit=10**6)) - 1)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "gc.auto=0", *args], cwd=cwd, capture_output=True, text=True
    )


def bench_git(root: Path, n: int, producers: int = PRODUCERS) -> dict[str, float]:
    remote = root / f"git-remote-{producers}.git"
    Store.open(str(remote), root / f"git-init-{producers}").init()  # same layout, .gitattributes
    clones = []
    for k in range(producers):
        c = root / f"clone-{producers}-{k}"
        _git(root, "clone", "-q", str(remote), str(c))
        _git(c, "config", "user.name", "bench")
        _git(c, "config", "user.email", "bench@example.com")
        clones.append(c)
    latencies: list[float] = []
    lock = threading.Lock()
    per = n // producers

    def produce(k: int) -> None:
        c = clones[k]
        for j in range(per):
            i = k * per + j
            t0 = time.perf_counter()
            with (c / "inbox.md").open("a") as f:
                f.write(f"- bench note {i:06d} about the nightly batch [added: 2026-11-30]\n")
            _git(c, "commit", "-qam", f"note {i}")
            while _git(c, "push", "-q", "origin", "HEAD:main").returncode != 0:
                _git(c, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
            with lock:
                latencies.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    ths = [threading.Thread(target=produce, args=(k,)) for k in range(producers)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    elapsed = time.perf_counter() - t0
    show = _git(root, "--git-dir", str(remote), "show", "main:inbox.md").stdout
    lines = [x for x in show.splitlines() if x.startswith("- bench note")]
    return _summary(per * producers, elapsed, latencies, lines, commits=0)


def _summary(
    n: int, elapsed: float, lat: list[float], lines: list[str], commits: int
) -> dict[str, float]:
    ids = [x.split()[3] for x in lines]
    lat_ms = sorted(x * 1000 for x in lat)
    return {
        "notes": n,
        "seconds": elapsed,
        "notes_per_s": n / elapsed,
        "p50_ms": statistics.median(lat_ms),
        "p99_ms": lat_ms[min(len(lat_ms) - 1, int(len(lat_ms) * 0.99))],
        "lost": n - len(set(ids)),
        "duplicated": len(ids) - len(set(ids)),
        "commits": commits,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--git-notes", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        h = bench_hippo(root, args.notes)
        g = bench_git(root, args.git_notes)
        g1 = bench_git(root, args.git_notes, producers=1)
    print(f"{'':24}{'notes':>7}{'notes/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'lost':>6}{'dup':>6}")
    rows = (("hippo (2 proc × 10 thr)", h), ("git CLI (20 clones)", g), ("git CLI (1 writer)", g1))
    for name, r in rows:
        print(
            f"{name:24}{r['notes']:>7.0f}{r['notes_per_s']:>10.1f}{r['p50_ms']:>9.1f}"
            f"{r['p99_ms']:>9.1f}{r['lost']:>6.0f}{r['duplicated']:>6.0f}"
        )
    print(f"hippo commits: {h['commits']:.0f} (one per note)")
    print(
        f"ratio hippo/git CLI: {h['notes_per_s'] / g['notes_per_s']:.1f}x against 20 clones, "
        f"{h['notes_per_s'] / g1['notes_per_s']:.1f}x against one writer "
        "(target: ≥ 150 notes/s and ≥ 5x)"
    )
    return 0 if h["lost"] == h["duplicated"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
