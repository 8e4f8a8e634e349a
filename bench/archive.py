"""Cold storage for the archive: clone size and first fetch at N archived episodes, before (all in
the tree as `archive/YYYY-MM-DD.jsonl`) and after the roll-up, and search on purpose over it.

    python bench/archive.py [--episodes 1000000] [--months 24] [--hot-search-max 300000]

The episodes are written straight into a bare repository with `git fast-import` (one commit per
day, as the agent's appends would leave the tree; not through the per-note write path), served
by `git daemon` on loopback. Measured in the same run, before and after the roll-up
(memory/archive/rollup.py, through hippo's write path and the cold ref's compare-and-swap):
`git clone --bare` (the baseline), `git clone --depth 1`, and hippo's first fetch into a fresh
cache (Store.sync, libgit2, as the Mirror does it): seconds and bytes on disk; the tip's archive
files; and search on purpose (`Store.search(archive=True)`): in-tree before (skipped past
`--hot-search-max` episodes: it reads every archive file per query), cold after (first search
builds the index; then warm p50).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.archive.rollup import roll_up
from memory.git.cold import ColdStore
from memory.git.maintenance import disk_bytes
from memory.git.store import Store
from tests.gitservers import bare_repo, git_daemon

TODAY = date(2026, 12, 2)
QUERIES = ["rollback migration", "flaky deploy", "billing webhook retry", "kafka lag", "oncall"]


def _vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    base = [*QUERIES, "deploy", "rollback", "checkout", "payments", "cache", "timeout", "alert"]
    words = [w for q in base for w in q.split()]
    letters = "abcdefghijklmnoprstuvwy"
    words += ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(4000)]
    total, cumulative = 0.0, []
    for k in range(len(words)):  # Zipf-like, as prose is; cumulative: random.choices is O(log n)
        total += 1.0 / (k + 1)
        cumulative.append(total)
    return words, cumulative


class Texts:
    """Sentences of Zipf-distributed words, drawn once: an episode picks four of them, so a
    million episodes take seconds, not minutes (each line still differs from every other)."""

    def __init__(self, rng: random.Random, pool: int = 200_000) -> None:
        words, cumulative = _vocabulary(rng)
        self.rng, self.words = rng, words
        self.pool = [
            " ".join(rng.choices(words, cum_weights=cumulative, k=rng.randint(6, 16)))
            for _ in range(pool)
        ]

    def episode(self, day: str, n: int) -> str:
        pick, rng, names = self.pool, self.rng, self.words[:60]
        return json.dumps(
            {
                "ts": f"{day}T{n % 24:02d}:{n % 60:02d}:00Z",
                "kind": "thread",
                "thread": f"https://example.slack.com/archives/C0{n % 97:03d}/p{1700000000 + n}",
                "question": rng.choice(pick),
                "files_read": [f"services/{rng.choice(names)}.md"],
                "hits": n % 10,
                "problem": rng.choice(pick),
                "approach": "searched memory; read " + rng.choice(pick),
                "outcome": rng.choice(pick),
                "evidence": [f"runbooks/{rng.choice(names)}.md"],
            }
        )


def generate(repo: Path, episodes: int, months: int) -> int:
    """Fill `repo` through `git fast-import`: the layout, then one commit per day."""
    rng, start = random.Random(29), date(2024, 12, 1)
    texts = Texts(rng)
    days = [start + timedelta(d) for d in range(int(months * 30.4))]
    per_day, extra = divmod(episodes, len(days))
    proc = subprocess.Popen(
        ["git", "-C", str(repo), "fast-import", "--quiet"], stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    out, written = proc.stdin, 0

    def blob(path: str, data: bytes) -> bytes:
        return f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"

    for mark, day in enumerate([None, *days], 1):
        k = mark - 1
        stamp = 1733011200 + 86400 * k
        msg = b"init: memory repository" if day is None else b"archive: thread episodes"
        head = f"commit refs/heads/main\nmark :{mark}\n"
        head += f"committer hippo <hippo@hippo.invalid> {stamp} +0000\ndata {len(msg)}\n"
        out.write(head.encode() + msg + b"\n")
        if k > 1:
            out.write(f"from :{mark - 1}\n".encode())
        if day is None:
            out.write(blob("MEMORY.md", b"# Memory\n\n## Index\n"))
            out.write(blob("inbox.md", b"# Inbox: notes not yet filed under a topic\n\n"))
            out.write(
                blob(".gitattributes", b"inbox.md merge=union\narchive/*.jsonl merge=union\n")
            )
        else:
            n = per_day + (1 if k <= extra else 0)
            lines = [texts.episode(f"{day}", written + i) for i in range(n)]
            out.write(blob(f"archive/{day}.jsonl", ("\n".join(lines) + "\n").encode()))
            written += n
        out.write(b"\n")
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    return written


def timed(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - t


def clones(url: str, work: Path, tag: str) -> dict[str, float]:
    """git clone (full and --depth 1) and hippo's first fetch into a fresh cache."""
    full, shallow, cache = work / f"{tag}-clone.git", work / f"{tag}-shallow.git", work / tag
    got = {"git_clone_s": timed(["git", "clone", "-q", "--bare", url, str(full)])}
    got["git_clone_mb"] = disk_bytes(full) / 1e6
    got["depth1_s"] = timed(["git", "clone", "-q", "--bare", "--depth", "1", url, str(shallow)])
    got["depth1_mb"] = disk_bytes(shallow) / 1e6
    t = time.perf_counter()
    Store.open(url, cache).sync()
    got["hippo_fetch_s"] = time.perf_counter() - t
    got["hippo_fetch_mb"] = disk_bytes(cache / "workspaces") / 1e6
    for p in (full, shallow, cache):
        shutil.rmtree(p, ignore_errors=True)
    return got


def tree_read(url: str, cache: Path) -> float:
    """Seconds to read every file at the tip (Store.tree, as the dream's context does), in a
    fresh cache fetched beforehand."""
    store = Store.open(url, cache)
    store.sync()
    t = time.perf_counter()
    store.tree()
    took = time.perf_counter() - t
    shutil.rmtree(cache, ignore_errors=True)
    return took


def tip_archive(repo: Path) -> tuple[int, float]:
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "-l", "main", "archive/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return len(listing), sum(int(ln.split()[3]) for ln in listing) / 1e6


def search_times(store: Store, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        store.search(q, limit=20, archive=True)
        out.append(time.perf_counter() - t)
    return out


def count_tree(store: Store) -> int:
    files = store.trees.some(store.head(), store.files("archive/"))
    return sum(sum(1 for ln in b.split(b"\n") if ln.strip()) for b in files.values())


def count_cold(store: Store) -> int:
    cold = ColdStore(store)
    tip = cold.fetch()
    return sum(len(cold.month_lines(tip, m)) for m in cold.months(tip))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=1_000_000)
    ap.add_argument("--months", type=int, default=24)
    ap.add_argument("--hot-search-max", type=int, default=300_000)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hippo-bench-archive-"))
    try:
        srv = work / "srv"
        srv.mkdir()
        repo = bare_repo(srv)
        t = time.perf_counter()
        n = generate(repo, args.episodes, args.months)
        print(
            f"generated {n:,} episodes over {args.months} months in {time.perf_counter() - t:.1f} s"
        )
        with git_daemon(srv) as daemon:
            url = daemon.url("memory.git")
            run(url, repo, work, n, args.hot_search_max)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def run(url: str, repo: Path, work: Path, n: int, hot_max: int) -> None:
    files, mb = tip_archive(repo)
    print(f"before: tip holds {files} archive files, {mb:.1f} MB")
    before = clones(url, work, "before")
    store = Store.open(url, work / "roller")
    store.sync()
    tree_before = tree_read(url, work / "tree-before")
    hot = search_times(store, QUERIES * 2) if n <= hot_max else []
    counted = count_tree(store)
    t = time.perf_counter()
    rolled = roll_up(store, TODAY, max_months=1000)
    roll_s = time.perf_counter() - t
    kept, cold = count_tree(store), count_cold(store)
    print(
        f"roll-up: {len(rolled)} months in {roll_s:.1f} s; episodes before {counted:,}, "
        f"after {kept:,} in the tree + {cold:,} cold = {kept + cold:,} (lost {counted - kept - cold})"
    )
    files, mb = tip_archive(repo)
    print(f"after: tip holds {files} archive files, {mb:.1f} MB")
    after = clones(url, work, "after")
    print(f"{'':16}{'before':>10}{'after':>10}")
    for key in before:
        print(f"{key:16}{before[key]:>10.2f}{after[key]:>10.2f}")
    tree_after = tree_read(url, work / "tree-after")
    print(
        f"reading the tip's whole tree (what a dream reads): {tree_before:.1f} s → {tree_after:.1f} s"
    )
    reader = Store.open(url, work / "reader")
    reader.sync()
    first = search_times(reader, QUERIES[:1])[0]
    warm = search_times(reader, QUERIES * 4)
    if hot:
        print(
            f"search --archive before (in the tree): first {hot[0]:.1f} s (index the tree's "
            f"archive), then p50 {statistics.median(hot[1:]) * 1000:.0f} ms"
        )
    else:
        print(f"search --archive before: skipped ({n:,} > --hot-search-max)")
    print(
        f"search --archive after: first {first:.1f} s (fetch the cold ref, index it), "
        f"then p50 {statistics.median(warm) * 1000:.0f} ms, max {max(warm) * 1000:.0f} ms"
    )
    print(f"server repository: {disk_bytes(repo) / 1e6:.1f} MB (branch and cold ref)")


if __name__ == "__main__":
    raise SystemExit(main())
