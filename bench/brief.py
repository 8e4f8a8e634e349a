"""Time briefings on the generated 10,000-file memory (bench/search.py's) against `git grep` for
the task's words, in the same run, on the same tasks.

    python bench/brief.py [--files 10000] [--tasks 200] [--lessons 40] [--seed 7]

The memory gets a conventions file for acme/shop (lessons with recorded scopes and signatures,
some tentative, some revoked) and its preferences, is committed to a bare remote and read through
hippo's Store, as `hippo brief` and the MCP tool do. Timed: `memory.prompts.briefing.build` with a warm
store (the web and MCP processes keep the search index of the newest commit), after one cold call
(which builds that index) reported on its own. Baseline: `git grep -i -n -F` with every task word
OR-ed, plus `git show` of the conventions and preferences files: what an agent without hippo runs
to find the same things, unranked and without a budget. The target is p50 <= 20 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: the repository root holds `bench`
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import CORE, Corpus, generate, git, pct
from memory.git import Store
from memory.prompts import briefing

REPO = "acme/shop"
FOLDERS = ["tests/api", "tests/unit", "src/billing", "src/checkout", "docs", "migrations", "web"]
EXTS = [".py", ".ts", ".md", ".sql"]


def lessons(corpus: Corpus, rng: random.Random, n: int) -> str:
    """A conventions file as the GitHub outcomes write it: scope, signature, sources, status."""
    lines = [f"# Conventions: {REPO}", ""]
    for i in range(n):
        scope = f"{rng.choice(FOLDERS)}/*{rng.choice(EXTS)}"
        plus = sorted({rng.choice(CORE) for _ in range(3)})
        minus = sorted({rng.choice(CORE) for _ in range(2)})
        status = rng.choices(["active", "tentative", "revoked"], [5, 3, 1])[0]
        words = " ".join([*(f"+{w}" for w in plus), *(f"-{w}" for w in minus)])
        text = (
            f"Observed: people edit the agent's changes to {scope} before merging: they added "
            f"{', '.join(plus)} and removed {', '.join(minus)}; {corpus.sentence()}"
        )
        meta = (
            f"source: https://github.com/{REPO}/pull/{100 + i}; added: 2026-11-0{1 + i % 9}; "
            f"by: github; status: {status}; scope: {scope}; signature: edit {scope} {words}"
        )
        lines.append(f"- {text} [{meta}]")
    return "\n".join(lines) + "\n"


def prefs(corpus: Corpus) -> str:
    body = [
        f"- {corpus.sentence()} [source: https://acme.slack.com/archives/C1/p{i}]" for i in range(8)
    ]
    return f"# Repository {REPO}: how to work here\n\n" + "\n".join(body) + "\n"


def tasks(corpus: Corpus, rng: random.Random, n: int) -> list[tuple[str, list[str]]]:
    out = []
    for _ in range(n):
        paths = [f"{rng.choice(FOLDERS)}/{rng.choice(corpus.tail)}{rng.choice(EXTS)}"]
        out.append((corpus.sentence(), paths if rng.random() < 0.7 else []))
    return out


def grep_baseline(root: Path, task: str) -> int:
    """What an agent without hippo runs: the task's words OR-ed over the tree, then the two files."""
    args: list[str] = []
    for word in briefing.task_words(task):
        args += ["-e", word]
    found = subprocess.run(
        ["git", "-C", str(root), "grep", "-i", "-n", "-F", *args], capture_output=True, text=True
    ).stdout
    for path in (f"conventions/{REPO}.md", f"preferences/repos/{REPO}.md"):
        subprocess.run(["git", "-C", str(root), "show", f"HEAD:{path}"], capture_output=True)
    return found.count("\n")


def ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def setup(root: Path, opts: argparse.Namespace, rng: random.Random) -> Corpus:
    root.mkdir(parents=True, exist_ok=True)
    corpus = generate(root, opts.files, rng)
    for rel, text in (
        (f"conventions/{REPO}.md", lessons(corpus, rng, opts.lessons)),
        (f"preferences/repos/{REPO}.md", prefs(corpus)),
    ):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=bench", "-c", "user.email=b@x", "commit", "-qm", "bench")
    return corpus


def measure(
    store: Store, root: Path, work: list[tuple[str, list[str]]]
) -> tuple[list[float], list[float], list[float], int, list[int], int]:
    """Briefings (wall and CPU ms), the baseline's ms, briefings over budget, their sizes, and
    how many with a path were led by a lesson."""
    ours: list[float] = []
    cpu: list[float] = []
    theirs: list[float] = []
    sizes: list[int] = []
    over = lead = 0
    for task, paths in work:
        t0, c0 = time.perf_counter(), time.process_time()
        b = briefing.build(store, task, repo=REPO, paths=paths)
        ours.append(ms(t0))
        cpu.append((time.process_time() - c0) * 1000)
        over += b.tokens > b.budget
        sizes.append(b.tokens)
        lead += bool(paths and b.lines and b.lines[0].section == "conventions")
    for task, _ in work:
        t0 = time.perf_counter()
        grep_baseline(root, task)
        theirs.append(ms(t0))
    return ours, cpu, theirs, over, sizes, lead


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--tasks", type=int, default=200)
    ap.add_argument("--lessons", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    opts = ap.parse_args()
    rng = random.Random(opts.seed)
    tmp = Path(tempfile.mkdtemp(prefix="hippo-bench-brief-"))
    try:
        root = tmp / "work"
        corpus = setup(root, opts, rng)
        subprocess.run(
            ["git", "clone", "-q", "--bare", str(root), str(tmp / "remote.git")], check=True
        )
        store = Store.open(str(tmp / "remote.git"), tmp / "data", workspace="bench")
        store.sync()
        work = tasks(corpus, rng, opts.tasks)
        t0 = time.perf_counter()
        briefing.build(store, work[0][0], repo=REPO, paths=work[0][1])
        cold = ms(t0)
        print(f"memory: {len(store.files())} files; {opts.lessons} lessons for {REPO}")
        print(f"load average before timing: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"first briefing (reads the tree, builds the search index): {cold:.0f} ms\n")
        ours, cpu, theirs, over, sizes, lead = measure(store, root, work)
        print(f"{'ms per briefing':34} {'p50':>7} {'p95':>7} {'p99':>7}")
        for name, v in (
            ("hippo briefing.build (warm)", ours),
            ("git grep (OR) + git show x2", theirs),
        ):
            print(f"{name:34} {pct(v, 50):7.1f} {pct(v, 95):7.1f} {pct(v, 99):7.1f}")
        print(f"ratio git grep / hippo, p50: {pct(theirs, 50) / pct(ours, 50):.1f}x")
        # CPU time: what a briefing costs when other processes share the cores.
        print(f"hippo CPU time per briefing: p50 {pct(cpu, 50):.1f} ms, p95 {pct(cpu, 95):.1f} ms")
        print(f"load average after timing: {os.getloadavg()[0]:.1f}")
        print(f"target p50 <= 20 ms: {'met' if pct(ours, 50) <= 20 else 'NOT met'}")
        print(f"briefings over budget: {over}/{len(work)}; tokens p50 {pct(sizes, 50):.0f}")
        print(f"briefings with paths led by a lesson: {lead}/{sum(bool(p) for _, p in work)}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
