"""A second night's dream: what bench/dream.py (first nights only) does not show.

    .venv/bin/python bench/dream_nights.py [--files 10000 100000] [--seed 7] [--baseline eed3c38]

For each size: bench/dream.py's generated memory, night 1 dreamt in a child process, then a
day's work committed with pygit2 (CHANGED files get an entry, RENAMED files move, a few are
added and removed), then night 2 dreamt in a fresh child process, which reports its CPU
(`night2_cpu_s`), wall time and peak resident memory (`night2_rss_mb`): from the second night
on, a dream compares the last dream's commit with the tip (what changed, where renamed files
went). `tree` is the tip's tree after night 2: the same on every release whose nights write the
same files. `--baseline eed3c38 …` first runs this same file on each release (its `memory` and
`bench` from `git archive`, in a temporary directory), for a comparison in one run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.baseline import run_at
from bench.dream import ALICE, fake_verifiers, generate, setup
from memory.dream.run import dream
from memory.git.store import Store

CHANGED, RENAMED, ADDED, REMOVED = 200, 20, 20, 10
NIGHTS = (datetime(2026, 11, 30, 3, 0), datetime(2026, 12, 1, 3, 0))


def day(remote: pygit2.Repository, seed: int) -> None:
    """A day's work between the nights, committed on the remote's main in one commit."""
    rng = random.Random(seed)
    parent = remote.references["refs/heads/main"].target
    index = pygit2.Index()
    index.read_tree(remote[parent].peel(pygit2.Commit).tree)
    topics = sorted(e.path for e in index if e.path.count("/") == 1 and e.path.endswith(".md"))
    picked = rng.sample(topics, CHANGED + RENAMED + REMOVED)
    blob = pygit2.GIT_FILEMODE_BLOB
    for i, path in enumerate(picked[:CHANGED]):
        text = remote[index[path].id].data.decode()
        text += f"- the day-2 note {i} about {path} [added: 2026-11-30]\n"
        index.add(pygit2.IndexEntry(path, remote.create_blob(text.encode()), blob))
    for path in picked[CHANGED : CHANGED + RENAMED]:  # links to these now need history
        moved = path.replace(".md", "-moved.md")
        index.add(pygit2.IndexEntry(moved, index[path].id, blob))
        index.remove(path)
    for path in picked[CHANGED + RENAMED :]:
        index.remove(path)
    for i in range(ADDED):
        text = f"# New {i}\n\n- the day-2 topic {i} [added: 2026-11-30]\n"
        index.add(
            pygit2.IndexEntry(f"services/new-{i}.md", remote.create_blob(text.encode()), blob)
        )
    who = pygit2.Signature(ALICE.name, ALICE.email)
    tree = index.write_tree(remote)
    commit = remote.create_commit(None, who, who, "bench: a day's work\n", tree, [parent])
    remote.references["refs/heads/main"].set_target(commit)


def bench(n_files: int, seed: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(n_files, random.Random(seed))
        setup(files, Path(tmp))
        del files
        night1 = night(tmp, 0, seed)
        day(pygit2.Repository(str(Path(tmp) / "remote.git")), seed)
        night2 = night(tmp, 1, seed)
    night1.pop("steps_s")
    out: dict[str, object] = {"files": n_files}
    out.update({f"night1_{k}": v for k, v in night1.items()})
    out.update({f"night2_{k}": v for k, v in night2.items()})
    return out


def night(tmp: str, which: int, seed: int) -> dict[str, object]:
    child = subprocess.run(
        [sys.executable, __file__, "--night-in", tmp, "--night", str(which), "--seed", str(seed)],
        capture_output=True,
    )
    if child.returncode:
        raise SystemExit(child.stderr.decode())
    out: dict[str, object] = json.loads(child.stdout.decode().strip().splitlines()[-1])
    return out


def night_in(tmp: Path, which: int, seed: int) -> dict[str, object]:
    """Night `which` over the repository in `tmp`, in this (child) process."""
    rng = random.Random(seed + which)
    store = Store.open(str(tmp / "remote.git"), tmp / "data")
    verifiers, _ = fake_verifiers(rng)
    t0, c0 = time.perf_counter(), time.process_time()
    report = dream(store, now=NIGHTS[which], verifiers=verifiers)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    remote = pygit2.Repository(str(tmp / "remote.git"))
    tip = remote.references["refs/heads/main"].target
    return {
        "s": round(took, 2),
        "cpu_s": round(cpu, 2),
        "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "steps_s": {s.step: round(s.seconds, 2) for s in report.steps},
        "commits": len(report.commits),
        "tree": files_hash(remote, remote[tip].peel(pygit2.Commit).tree),
    }


def files_hash(repo: pygit2.Repository, tree: pygit2.Tree) -> str:
    """A hash of every file (the dream's state without the commit it names, whose id holds the
    time it was made): equal when two nights wrote the same files."""
    out = hashlib.sha256()
    stack = [("", tree)]
    while stack:
        prefix, at = stack.pop()
        for obj in at:
            path = prefix + (obj.name or "")
            if isinstance(obj, pygit2.Tree):
                stack.append((path + "/", obj))
            elif path == ".dream/state.json":  # all of it but the commit it names
                state = json.loads(repo[obj.id].data)
                state.pop("lastCommit", None)
                out.update(json.dumps(state, sort_keys=True).encode())
            else:
                out.update(f"{path} {obj.id}\n".encode())
    return out.hexdigest()[:16]


def baseline(rev: str, n_files: int, seed: int) -> str:
    """This bench, same size and seed, run on the release `rev`'s code: its JSON line."""
    return run_at(
        rev, "dream_nights.py", ["--files", str(n_files), "--seed", str(seed)], ("dream.py",)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[10000])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--night-in", type=Path, help=argparse.SUPPRESS)  # the child's part
    parser.add_argument("--night", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", nargs="*", default=[], help="also run these releases")
    args = parser.parse_args()
    if args.night_in is not None:
        print(json.dumps(night_in(args.night_in, args.night, args.seed)), flush=True)
        return
    for n in args.files:
        for rev in args.baseline:
            print(f"{rev}: {baseline(rev, n, args.seed)}", flush=True)
        print(f"this tree: {json.dumps(bench(n, args.seed))}", flush=True)


if __name__ == "__main__":
    main()
