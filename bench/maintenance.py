"""Repository size and fetch time after N notes, without and with `hippo maintenance`.

    .venv/bin/python bench/maintenance.py [--notes 20000] [--threads 10]

Saves N notes into a local remote through hippo (one process, T threads: group commits, one
commit per note), then measures, before and after `maintain(store)` (repack with a bitmap,
prune): the remote's and the cache's size on disk and loose objects, the time of a first fetch
into a new hippo cache (pygit2), and the time of `git clone --bare --no-local` (git's pack
protocol, as a new host or a person cloning would pay). The git CLI's own `git gc` on a copy of
the same remote is the baseline for the repack.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import notes
from memory.git import Author, Store
from memory.git.maintenance import disk_bytes, maintain

A = Author("bench", "bench@example.com")


def loose(repo: Path) -> int:
    return sum(
        len(list(d.iterdir()))
        for d in (repo / "objects").iterdir()
        if len(d.name) == 2 and d.is_dir()
    )


def fill(store: Store, n: int, threads: int) -> float:
    def run(k: int) -> None:
        for i in range(k, n, threads):
            notes.save_note(
                store,
                f"bench note {i:06d} about service {i % 97} and its nightly batch",
                today="2026-11-30",
                author=A,
                path=f"topics/t{i % 40:02d}.md",
                key=f"m-{i}",
            )

    t0 = time.perf_counter()
    ts = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return time.perf_counter() - t0


def measure(remote: Path, cache: Path, work: Path, label: str) -> dict[str, float | str]:
    reader = work / f"reader-{label}"
    t0 = time.perf_counter()
    Store.open(str(remote), reader).sync()
    hippo_fetch = time.perf_counter() - t0
    clone = work / f"clone-{label}.git"
    t0 = time.perf_counter()
    subprocess.run(
        ["git", "clone", "-q", "--bare", "--no-local", str(remote), str(clone)],
        check=True,
        capture_output=True,
    )
    git_clone = time.perf_counter() - t0
    shutil.rmtree(reader, ignore_errors=True)
    shutil.rmtree(clone, ignore_errors=True)
    return {
        "": label,
        "remote MB": disk_bytes(remote) / 1e6,
        "remote loose": loose(remote),
        "cache MB": disk_bytes(cache) / 1e6,
        "cache loose": loose(cache),
        "hippo first fetch s": hippo_fetch,
        "git clone s": git_clone,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--threads", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        remote = work / "remote.git"
        store = Store.open(str(remote), work / "data")
        store.init()
        took = fill(store, args.notes, args.threads)
        print(f"{args.notes} notes saved in {took:.1f} s ({args.notes / took:.0f} notes/s)")
        rows = [measure(remote, store.cache, work, "before")]
        baseline = work / "git-gc-copy.git"
        shutil.copytree(remote, baseline)
        t0 = time.perf_counter()
        subprocess.run(["git", "-C", str(baseline), "gc", "-q"], check=True, capture_output=True)
        git_gc = time.perf_counter() - t0
        t0 = time.perf_counter()
        done = maintain(store)
        hippo_maint = time.perf_counter() - t0
        rows.append(measure(remote, store.cache, work, "after"))
        cols = list(rows[0])
        print(" ".join(f"{c:>20}" for c in cols))
        for r in rows:
            print(
                " ".join(
                    f"{v:>20.2f}" if isinstance(v, float) else f"{v!s:>20}" for v in r.values()
                )
            )
        print(
            f"hippo maintenance: {hippo_maint:.1f} s for {len(done)} repositories "
            f"(git gc on a copy of the remote alone: {git_gc:.1f} s, "
            f"{disk_bytes(baseline) / 1e6:.1f} MB)"
        )
        store.write([], author=A, message="noop")  # the store still works after maintenance
        print("fsck:", "clean" if _fsck(remote) else "FAILED")


def _fsck(repo: Path) -> bool:
    return (
        subprocess.run(["git", "-C", str(repo), "fsck", "--strict"], capture_output=True).returncode
        == 0
    )


if __name__ == "__main__":
    main()
