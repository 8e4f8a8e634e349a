"""Known-answer recall: do people find the note they mean? hippo's ranked search (SQLite FTS5
under our ranking) against, in the same run on the same notes and questions: the search before
issue 25 (every word required) and issue 25's hand-written word index, both loaded from git
history (bench/baseline.py), and two off-the-shelf BM25 engines, SQLite FTS5 and tantivy.

    python bench/recall.py [--sizes 1000 10000] [--queries 200] [--seed 11] [--writes 20]

Notes are generated engineering facts filed under their service's topic file
(bench/recall_corpus.py); each query (bench/recall_queries.py) names one note by 2-4 of its
rarest slot values in a question frame, never by its sentence, in five kinds: distinctive words
only, plus 1-2 extra words the note does not hold, and those with another word form, a partial
word or a typo.
Prints recall@1, recall@5 and MRR (over the top 10) per kind and engine, then build time, RSS
growth, the peak RSS of a process holding only that engine (each runs in a forked child), search
p50/p95 and the cost of a one-file commit followed by a search. Last, through the real store
(git, a bare remote): a cold first search with no index and with the index on disk, then the
first search after each of `--writes` notes.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import baseline
from bench import recall_corpus as corpus
from bench import recall_queries as queries
from bench.recall_engines import Engine, Fts5, Hippo, Indexed, Tantivy
from memory import notes as hippo_notes
from memory.git import Author, Store

LIMIT = 10


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def targets(all_notes: list[corpus.Note]) -> list[tuple[str, int]]:
    """Where each note lands: its file, and its line there (title, blank line, then entries)."""
    seen: dict[str, int] = {}
    out = []
    for note in all_notes:
        seen[note.path] = seen.get(note.path, 0) + 1
        out.append((note.path, seen[note.path] + 2))
    return out


def build(make: Callable[[], Engine]) -> tuple[Engine, float, float]:
    """The engine, its build time (ms) and how much the process grew (MB, rough)."""
    gc.collect()
    rss = psutil.Process().memory_info().rss
    t0 = time.perf_counter()
    engine = make()
    ms = (time.perf_counter() - t0) * 1000
    gc.collect()
    return engine, ms, (psutil.Process().memory_info().rss - rss) / 1e6


def one_size(n: int, n_queries: int, seed: int) -> None:
    rng = random.Random(seed + n)
    all_notes = corpus.notes(n, rng)
    tree = corpus.files(all_notes)
    where = targets(all_notes)
    df = corpus.doc_freq(all_notes)
    picked = rng.sample(range(n), min(n_queries, n))
    qs = [
        (kind, queries.query(all_notes[i], kind, df, rng), where[i])
        for i in picked
        for kind in queries.KINDS_OF_QUERY
    ]
    size = sum(len(b) for b in tree.values())
    print(f"\n## {n} notes in {len(tree)} files ({size / 1e6:.1f} MB), {len(qs)} queries")
    for kind in queries.KINDS_OF_QUERY:
        print(f"  e.g. {kind}: {next(q for k, q, _ in qs if k == kind)!r}")
    before, hand = baseline.search_before_i25(), baseline.search_hand_written()
    makers: list[Callable[[Path], Engine]] = [
        lambda _: Indexed("before issue 25 (all words)", before, tree),
        lambda _: Fts5(tree),
        lambda _: Fts5(tree, prefix=True),
        lambda _: Indexed("hand-written index (ranked)", hand, tree),
        lambda tmp: Hippo(tree, tmp / "search.sqlite"),
    ]
    try:
        import tantivy  # noqa: F401

        makers.insert(3, lambda _: Tantivy(tree))
    except ImportError:
        print("  (tantivy is not installed: pip install tantivy to compare it too)")
    quality: list[tuple[str, dict[str, tuple[float, float, float]]]] = []
    speed = []
    fork = multiprocessing.get_context("fork")
    for make in makers:
        mine, theirs = fork.Pipe()
        child = fork.Process(target=_measure, args=(make, tree, qs, seed, theirs))
        child.start()
        name, scores, row = mine.recv()
        child.join()
        quality.append((name, scores))
        speed.append((name, *row))
    print(f"\n{'recall@1 / recall@5 / MRR':28}" + "".join(f"{k:>25}" for k, _ in quality))
    for kind in queries.KINDS_OF_QUERY:
        cells = "".join(f"{'{:.1%} {:.1%} {:.2f}'.format(*q[kind]):>25}" for _, q in quality)
        print(f"{kind:28}{cells}")
    head = ["build ms", "RSS +MB", "peak MB", "p50 ms", "p95 ms", "CPU p50"]
    head += ["commit+search ms", "(CPU)"]
    print(f"\n{'engine':28}" + "".join(f"{h:>10}" for h in head[:6]) + f"{head[6]:>18}{head[7]:>8}")
    for name, build_ms, grew, peak, p50, p95, cpu50, commit, commit_cpu in speed:
        print(
            f"{name:28}{build_ms:10.0f}{grew:10.0f}{peak:10.0f}{p50:10.2f}{p95:10.2f}{cpu50:10.2f}"
            f"{commit:18.1f}{commit_cpu:8.1f}"
        )


def _measure(
    make: Callable[[Path], Engine],
    tree: dict[str, bytes],
    qs: list[tuple[str, str, tuple[str, int]]],
    seed: int,
    out: Any,
) -> None:
    """In a forked child: build one engine, ask every query, time a one-file commit, and send
    back its name, scores per kind and (build ms, RSS growth, peak RSS, p50, p95, CPU p50,
    commit+search wall and CPU ms)."""
    with tempfile.TemporaryDirectory(prefix="hippo-bench-recall-") as tmp:
        engine, build_ms, grew = build(lambda: make(Path(tmp)))
        engine.search(qs[0][1], LIMIT)  # warm-up
        ranks: dict[str, list[int]] = {}
        times, cpu = [], []
        for kind, q, want in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            found = engine.search(q, LIMIT)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            ranks.setdefault(kind, []).append(found.index(want) + 1 if want in found else 0)
        commit = _commit_cost(engine, tree, qs, random.Random(seed))
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        row = (build_ms, grew, peak, pct(times, 50), pct(times, 95), pct(cpu, 50), *commit)
        out.send((engine.name, {k: _scores(r) for k, r in ranks.items()}, row))


def _scores(ranks: list[int]) -> tuple[float, float, float]:
    n = len(ranks)
    r1 = sum(1 for r in ranks if r == 1) / n
    r5 = sum(1 for r in ranks if 0 < r <= 5) / n
    mrr = sum(1 / r for r in ranks if r) / n
    return r1, r5, mrr


def _commit_cost(
    engine: Engine, tree: dict[str, bytes], qs: list[tuple[str, str, object]], rng: random.Random
) -> tuple[float, float]:
    """Medians over 10 one-file commits (a note appended) of applying it and searching once:
    wall ms and CPU ms (this process, every thread)."""
    costs, cpu = [], []
    paths = sorted(tree)
    for i in range(10):
        path = rng.choice(paths)
        tree = tree | {path: tree[path] + f"- a new note {i} about the sweep rollout\n".encode()}
        t0, c0 = time.perf_counter(), time.process_time()
        engine.update(tree, path)
        engine.search(qs[i][1], LIMIT)
        costs.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(costs), statistics.median(cpu)


def through_the_store(n: int, writes: int, seed: int) -> None:
    """The real path: a git memory of `n` notes, a bare remote, `hippo note` then a search."""
    rng = random.Random(seed)
    all_notes = corpus.notes(n, rng)
    tree = corpus.files(all_notes)
    qs = [
        queries.query(all_notes[i], "extra words", corpus.doc_freq(all_notes), rng)
        for i in range(writes)
    ]
    with tempfile.TemporaryDirectory(prefix="hippo-bench-recall-") as tmp:
        root = Path(tmp) / "work"
        for path, data in tree.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
        git = ["git", "-C", str(root)]
        subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run(
            [*git, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "m"], check=True
        )
        remote = Path(tmp) / "remote.git"
        subprocess.run(["git", "clone", "-q", "--bare", str(root), str(remote)], check=True)
        cold = []
        for _ in range(2):  # no index yet, then a new process's store with the index on disk
            store = Store.open(str(remote), Path(tmp) / "data")
            store.sync()
            t0 = time.perf_counter()
            store.search(qs[0])
            cold.append((time.perf_counter() - t0) * 1000)
        warm, warm_cpu = [], []
        for q in qs:
            t0, c0 = time.perf_counter(), time.process_time()
            store.search(q)
            warm.append((time.perf_counter() - t0) * 1000)
            warm_cpu.append((time.process_time() - c0) * 1000)
        first, first_cpu = [], []
        who = Author("bench", "bench@example.com")
        for i, q in enumerate(qs):
            text = (
                f"{rng.choice(corpus.AREAS)}-api note {i} about the {rng.choice(corpus.TECH)} sweep"
            )
            hippo_notes.save_note(store, text, today="2026-12-01", author=who)
            t0, c0 = time.perf_counter(), time.process_time()
            store.search(q)
            first.append((time.perf_counter() - t0) * 1000)
            first_cpu.append((time.process_time() - c0) * 1000)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\n## through the store, {n} notes: cold first search {cold[0]:.0f} ms with no index"
        f" (reads the tree, builds), {cold[1]:.0f} ms with the index on disk; peak RSS {peak:.0f} MB"
    )
    print(
        f"warm search p50 {pct(warm, 50):.1f} ms, p95 {pct(warm, 95):.1f} ms"
        f" (CPU p50 {pct(warm_cpu, 50):.1f} ms)"
    )
    print(
        f"first search after each of {writes} notes: p50 {pct(first, 50):.1f} ms,"
        f" max {max(first):.1f} ms (CPU p50 {pct(first_cpu, 50):.1f} ms,"
        f" max {max(first_cpu):.1f} ms)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000])
    ap.add_argument("--queries", type=int, default=200, help="notes asked about, per size")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--writes", type=int, default=20, help="notes saved through the store")
    opts = ap.parse_args()
    print(f"load average {psutil.getloadavg()[0]:.1f} on {psutil.cpu_count()} cores")
    for n in opts.sizes:
        one_size(n, opts.queries, opts.seed)
    if opts.writes:  # in a child of its own, so its peak RSS is the store's
        child = multiprocessing.get_context("fork").Process(
            target=through_the_store, args=(max(opts.sizes), opts.writes, opts.seed)
        )
        child.start()
        child.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
