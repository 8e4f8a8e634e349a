"""Time the `hippo` command as a process, start to exit, against `git` in the same run.

    .venv/bin/python bench/cli.py [--runs 15] [--notes 200]

A memory with a local bare remote and a warm cache (one `hippo init`, then `--notes` notes) in a
temporary folder; then, interleaved round by round so the machine's load hits all alike:
`hippo --help`, `hippo note` (a new note each time), `hippo search`, `hippo show MEMORY.md`,
and the baselines `git --version` and `git log -1` (in the cache). Prints p50/p90 in ms, each
command's ratio to `git log -1`, the targets (--help 150 ms, note 400 ms, search 300 ms), and the
heavy modules each command imported (`-X importtime`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
HEAVY = ("anthropic", "celery", "slack_sdk", "slack_bolt", "flask", "github", "mcp", "redis")
TARGETS = {"hippo --help": 150.0, "hippo note": 400.0, "hippo search": 300.0}


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t0) * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def heavy_imports(cmd: list[str], env: dict[str, str]) -> list[str]:
    """The heavy top-level packages `cmd` (a hippo command) imports, from -X importtime."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", str(BIN / "hippo"), *cmd[1:]],
        env=env,
        capture_output=True,
        text=True,
    )
    names = {ln.rsplit("|", 1)[-1].strip() for ln in run.stderr.splitlines() if "|" in ln}
    return sorted(h for h in HEAVY if h in names)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--notes", type=int, default=200)
    opts = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hippo-bench-cli-"))
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "REDIS_"))}
        env |= {"HIPPO_MEMORY_REMOTE": str(tmp / "remote.git"), "HIPPO_DATA_DIR": str(tmp / "d")}
        hippo = str(BIN / "hippo")
        subprocess.run([hippo, "init"], env=env, check=True, capture_output=True)
        for i in range(opts.notes):  # in one process: the memory, not the CLI, is set up here
            subprocess.run([hippo, "note", f"warm-up fact {i} about the ledger"], env=env,
                           check=True, capture_output=True)  # fmt: skip
        cache = next((tmp / "d").rglob("cache.git"))
        commands = {
            "git --version": ["git", "--version"],
            "git log -1": ["git", "-C", str(cache), "log", "-1", "origin/main"],
            "hippo --help": [hippo, "--help"],
            "hippo note": [hippo, "note"],
            "hippo search": [hippo, "search", "ledger fact"],
            "hippo show": [hippo, "show", "MEMORY.md"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for r in range(opts.runs):
            for name, cmd in commands.items():
                args = (
                    [*cmd, f"bench note {r} on the checkout queue"] if name == "hippo note" else cmd
                )
                times[name].append(timed(args, env))
        base = pct(times["git log -1"], 50)
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
              f"{opts.notes} notes in the memory, {opts.runs} runs each\n")  # fmt: skip
        print(f"{'process, start to exit':24} {'p50 ms':>8} {'p90 ms':>8} {'/ git log':>10} "
              f"{'target':>8}  heavy imports")  # fmt: skip
        for name, values in times.items():
            target = TARGETS.get(name)
            heavy = ""
            if name.startswith("hippo"):
                extra = ["one more note"] if name == "hippo note" else []
                heavy = ", ".join(heavy_imports([*commands[name], *extra], env)) or "none"
            print(f"{name:24} {pct(values, 50):8.0f} {pct(values, 90):8.0f} "
                  f"{pct(values, 50) / base:9.1f}x {f'{target:.0f}' if target else '':>8}  {heavy}")  # fmt: skip
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
