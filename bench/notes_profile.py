"""Where a write's time goes: bench/notes.py with the write path's steps timed in every hippo
process (wall and CPU of the calling thread, summed over calls and processes), the batch sizes of
each lock holder, and the git server's requests by kind. Timing starts when the clock of
bench/notes.py does (every process opened and fetched).

    .venv/bin/python bench/notes_profile.py --remote http --git-writers 0 --no-alone

Takes bench/notes.py's flags. The steps are wrapped in place with timers (a profiler's way; the
bench's figures stay its own): save_note, the store's write and file list, validation, the
batch's apply, stage and commit, the push and fetch of each transport, the hand-off's steps,
the lock's tries and the holder's gather. Spread across processes and threads, cProfile would
see only the thread that started it.
"""

from __future__ import annotations

import collections
import functools
import importlib
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench.notes as notes_bench

STEPS = {  # module: names (Class.method or function) timed where they are looked up
    "memory.notes": ["save_note", "clean_note"],
    "memory.git.store": ["Store.files", "Store.write"],
    "memory.git.landing": ["apply_batch", "Lander.run", "Lander._push"],
    "memory.writes.validate": ["commit", "entry"],
    "memory.writes.apply": ["check_op"],
    "memory.git.batch": ["make_commit", "stage", "KeyIndex.learn"],
    "memory.git.network": ["NetworkTransport.push_branch", "NetworkTransport.fetch"],
    "memory.git.local": ["LocalTransport.push_branch", "LocalTransport.fetch"],
    "memory.git.mirror": ["Mirror.sync"],
    "memory.git.handoff": [f"FileHandoff.{n}" for n in ("offer", "claim", "answer", "outcomes")],
    "memory.git.locks": ["FileWorkspaceLock.acquire"],
    "memory.secrets": ["first"],
}
_stats: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
_batches: list[int] = []
_lock = threading.Lock()


def _timed(label: str, fn: Any) -> Any:
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                s = _stats[label]
                s[0] += 1
                s[1] += time.perf_counter() - t0
                s[2] += time.thread_time() - c0

    return run


def _install() -> None:
    for module_name, names in STEPS.items():
        owner_module: Any = importlib.import_module(module_name)
        for name in names:
            owner = owner_module
            *path, attr = name.split(".")
            for part in path:
                owner = getattr(owner, part)
            label = f"{module_name.rsplit('.', 1)[-1]}.{name}"
            setattr(owner, attr, _timed(label, getattr(owner, attr)))
    writer: Any = importlib.import_module("memory.git.writer").Writer
    writer._gather = _timed("writer.Writer._gather", writer._gather)
    lander: Any = importlib.import_module("memory.git.landing").Lander
    run = lander.run

    def counted(self: Any, batch: list[Any]) -> None:
        _batches.append(len(batch))
        run(self, batch)

    lander.run = counted


class _Start:
    """bench/notes.py's barrier: what came before it (opening, the first fetch) is not timed."""

    def __init__(self, barrier: Any) -> None:
        self.barrier = barrier

    def wait(self) -> None:
        self.barrier.wait()
        with _lock:
            _stats.clear()
            _batches.clear()


def profiled_producer(*args: Any) -> None:
    """bench/notes.py's producer process, timed; its figures go to $HIPPO_PROFILE_DIR."""
    _install()
    try:
        notes_bench._producer_process(*args[:-1], _Start(args[-1]))
    finally:
        run = "hand-off" if args[6] else "alone"  # bench/notes.py's `handoff` argument
        out = Path(os.environ["HIPPO_PROFILE_DIR"]) / f"{run}-{os.getpid()}.json"
        out.write_text(json.dumps({"batches": _batches, "stats": dict(_stats)}))


def _report(folder: Path, run: str) -> None:
    total: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    files = sorted(folder.glob(f"{run}-*.json"))
    if not files:
        return
    print(f"\nthe {run} run, each process from its first note on:")
    for f in files:
        d = json.loads(f.read_text())
        if d["batches"]:
            print(f"process {f.stem}: {len(d['batches'])} batches of {d['batches']}")
        for k, (n, w, c) in d["stats"].items():
            t = total[k]
            t[0], t[1], t[2] = t[0] + n, t[1] + w, t[2] + c
    print(
        f"{'step (all hippo processes)':44}{'calls':>7}{'wall s':>9}{'CPU s':>8}{'CPU ms/call':>13}"
    )
    for k, (n, w, c) in sorted(total.items(), key=lambda kv: -kv[1][2]):
        print(f"{k:44}{int(n):>7}{w:>9.2f}{c:>8.2f}{1000 * c / max(1, n):>13.2f}")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HIPPO_PROFILE_DIR"] = tmp
        notes_bench._producer_process = profiled_producer  # type: ignore[assignment]
        code = notes_bench.main()
        for run in ("hand-off", "alone"):
            _report(Path(tmp), run)
    return code


if __name__ == "__main__":
    sys.exit(main())
