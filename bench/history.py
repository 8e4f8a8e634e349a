"""Search over history: hippo's entry-level search (memory/git/changes.py) against `git log -S`.

    .venv/bin/python bench/history.py [--commits 1000 5000] [--files 200]

A memory of `--files` topic files gets `--commits` commits, each adding, re-wording or removing
one entry of one file (as hippo's write path makes them: one commit per change, in time order),
written with pygit2 into a local bare remote. Per size: hippo's history search for a word three
commits add (cold: the first search after the store's first fetch; warm: again), a common word
(limit 20), recent activity since the last 100 commits' date, and one file's history. The
baseline in the same run is `git log -S WORD` over the same bare repository (git's own pickaxe:
a full pass that finds the commits, without the entries, reason or evidence). Figures are
milliseconds, median of 5, and the commits each found for the rare word: hippo also finds an
entry re-worded around the word, where the word's count (all `git log -S` looks at) is unchanged.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.git import changes
from memory.git.store import Store

WORDS = ["checkout", "billing", "ledger", "gateway", "latency", "replica", "rollout", "oncall"]
RARE = "zanzibar"
START = 1_700_000_000


def build(remote: Path, n_commits: int, n_files: int) -> None:
    repo = pygit2.init_repository(str(remote), bare=True, initial_head="main")
    rng = random.Random(7)
    files = {f"topics/t{i:04d}.md": [f"# Topic {i}", ""] for i in range(n_files)}
    index, parent = pygit2.Index(), None
    rare_at = {n_commits // 4, n_commits // 2, 3 * n_commits // 4}
    for i in range(n_commits):
        path = f"topics/t{rng.randrange(n_files):04d}.md"
        lines = files[path]
        words = " ".join(rng.choice(WORDS) for _ in range(6))
        if i in rare_at:
            lines.append(f"- the {RARE} {words} entry {i}")
        elif len(lines) > 4 and rng.random() < 0.2:
            lines.pop(rng.randrange(2, len(lines)))
        elif len(lines) > 4 and rng.random() < 0.2:
            k = rng.randrange(2, len(lines))
            lines[k] += " (corrected)"
        else:
            lines.append(f"- {words} fact {i} [source: https://example.test/{i}]")
        blob = repo.create_blob(("\n".join(lines) + "\n").encode())
        index.add(pygit2.IndexEntry(path, blob, pygit2.enums.FileMode.BLOB))
        who = pygit2.Signature(f"person{i % 5}", f"p{i % 5}@example.test", START + i * 60, 0)
        message = f"note: change {i}\n\nbecause of case {i}\n\nHippo-Key: k{i}\n"
        parents = [parent] if parent else []
        parent = repo.create_commit(
            "refs/heads/main", who, who, message, index.write_tree(repo), parents
        )


def median_ms(fn: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run(n_commits: int, n_files: int) -> dict[str, float]:
    """Figures for one size. hippo may find more commits than `git log -S`: an entry re-worded
    around the word (the count of the word unchanged) is a change to hippo, not to git."""
    with tempfile.TemporaryDirectory() as tmp:
        remote = Path(tmp) / "remote.git"
        build(remote, n_commits, n_files)
        store = Store.open(str(remote), Path(tmp) / "data")
        store.sync()  # the first fetch is the clone's cost, not the search's
        t0 = time.perf_counter()
        found = store.search_history([RARE], limit=20)
        cold = (time.perf_counter() - t0) * 1000
        assert len(found.changes) >= 3 and found.complete, found
        last = datetime.fromtimestamp(START + (n_commits - 100) * 60, tz=UTC)
        git = ["git", "-C", str(remote), "log", "--oneline", "-S", RARE, "main"]
        by_git = len(subprocess.run(git, check=True, capture_output=True).stdout.splitlines())
        return {
            "commits found: git log -S": by_git,
            "commits found: hippo": len(found.changes),
            "git log -S (baseline)": median_ms(
                lambda: subprocess.run(git, check=True, stdout=subprocess.DEVNULL)
            ),
            "history, rare word, cold": cold,
            "history, rare word, warm": median_ms(lambda: store.search_history([RARE], limit=20)),
            "history, common word": median_ms(lambda: store.search_history(["ledger"], limit=20)),
            "recent 100 commits": median_ms(
                lambda: store.search_history([], limit=200, since=last)
            ),
            "file history": median_ms(
                lambda: store.search_history([], limit=20, path="topics/t0001.md")
            ),
        }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, nargs="+", default=[1000, 5000])
    ap.add_argument("--files", type=int, default=200)
    args = ap.parse_args()
    rows = {n: run(n, args.files) for n in args.commits}
    names = list(next(iter(rows.values())))
    print(f"{'ms (median of 5)':28}" + "".join(f"{n:>12,} commits" for n in rows))
    for name in names:
        print(f"{name:28}" + "".join(f"{rows[n][name]:>20.1f}" for n in rows))
    print(f"(scan bound: {changes.MAX_SCAN} commits per search)")


if __name__ == "__main__":
    main()
