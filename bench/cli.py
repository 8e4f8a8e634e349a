"""Time the `hippo` command as a process, start to exit, against `git` in the same run.

    .venv/bin/python bench/cli.py [--runs 15] [--files 1000] [--against DIR]

A memory of `--files` topic files (pushed in one commit with the git CLI) on a local bare remote,
and a warm cache (one `hippo search` first); then, interleaved round by round so the machine's
load hits all alike: `hippo --help`, `hippo note` (a new note each time), `hippo search`,
`hippo show MEMORY.md`, and the baselines `git --version` and `git log -1` (in the cache). Prints
p50/p90 of wall time and p50 of CPU time (user + system: what load barely changes) in ms, each
command's ratio to `git log -1`, issue 30's targets (--help 100 ms, note 250 ms, search 200 ms,
wall on a quiet machine), and the import profile of each command: the packages that cost it
most (`-X importtime`, self time summed per package) and the heavy libraries it loaded.

`--against DIR`: a checkout of another revision (`git worktree add /tmp/base REV`), run with
the same interpreter and libraries, DIR first on the path, on the same memory, interleaved with
this one (its rows are marked `base:`): the baseline a figure is compared with, measured in the
same run, under the same load.

Python writes bytecode here even when PYTHONDONTWRITEBYTECODE is set, as an installed hippo has
its .pyc files: without them every start compiles hippo's ~250 modules again (~1 s).
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
OURS = ("bot", "jobs", "memory", "integrations")
HEAVY = ("anthropic", "celery", "slack_sdk", "slack_bolt", "flask", "github", "mcp", "redis")
TARGETS = {"hippo --help": 100.0, "hippo note": 250.0, "hippo search": 200.0}


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) milliseconds of one run of `cmd`."""
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = (time.perf_counter() - t0) * 1000
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu * 1000


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def import_profile(cmd: list[str], env: dict[str, str]) -> tuple[list[str], list[str]]:
    """What `cmd` (a hippo command) imported: the five packages of most self time (ms, summed
    over their modules; hippo's own by subpackage) and the heavy libraries among them."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", str(BIN / "hippo"), *cmd[1:]],
        env=env,
        capture_output=True,
        text=True,
    )
    spent: dict[str, int] = {}
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        if not own.strip().isdigit():
            continue  # the header line
        parts = name.strip().split(".")
        key = ".".join(parts[:2]) if parts[0] in OURS else parts[0]
        spent[key] = spent.get(key, 0) + int(own)
    top = sorted(spent.items(), key=lambda kv: -kv[1])[:5]
    return [f"{k} {v / 1000:.0f}" for k, v in top], sorted(h for h in HEAVY if h in spent)


def seed(remote: Path, files: int, work: Path) -> None:
    """`files` topic files of eight entries each and an index, pushed in one commit."""
    subprocess.run(["git", "clone", "-q", str(remote), str(work)], check=True, capture_output=True)
    words = [
        "ledger",
        "checkout",
        "queue",
        "deploy",
        "billing",
        "alert",
        "batch",
        "nightly",
        "replica",
        "cache",
        "worker",
    ]
    for i in range(files):
        folder = work / f"area{i % 20}"
        folder.mkdir(exist_ok=True)
        lines = [f"# Topic {i}", ""]
        for j in range(8):
            said = " ".join(words[(i * 7 + j * 3 + k) % len(words)] for k in range(9))
            lines.append(f"- The {said} fact {i}-{j} [source: slack:C1/p{i}{j}; added: 2026-11-02]")
        (folder / f"t{i}.md").write_text("\n".join(lines) + "\n")
    git = ["git", "-C", str(work), "-c", "user.name=bench", "-c", "user.email=bench@x.invalid"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", f"{files} topic files"], check=True)
    subprocess.run([*git, "push", "-q", "origin", "HEAD:main"], check=True, capture_output=True)


def baseline(checkout: Path, tmp: Path) -> str:
    """A `hippo` script like the installed one that imports hippo from `checkout`."""
    script = tmp / "hippo-base"
    script.write_text(
        f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(checkout)!r})\n"
        "from bot.cli.main import main\nsys.exit(main())\n"
    )
    script.chmod(0o755)
    return str(script)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--against", type=Path, metavar="DIR", help="a checkout to compare with")
    opts = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hippo-bench-cli-"))
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "REDIS_"))}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed hippo has its .pyc files
        env |= {"HIPPO_MEMORY_REMOTE": str(tmp / "remote.git"), "HIPPO_DATA_DIR": str(tmp / "d")}
        hippo = str(BIN / "hippo")
        subprocess.run([hippo, "init"], env=env, check=True, capture_output=True)
        seed(tmp / "remote.git", opts.files, tmp / "seed")
        subprocess.run([hippo, "search", "warm"], env=env, check=True, capture_output=True)
        cache = next((tmp / "d").rglob("cache.git"))
        commands = {
            "git --version": ["git", "--version"],
            "git log -1": ["git", "-C", str(cache), "log", "-1", "origin/main"],
        }
        runs = [(hippo, "")]
        if opts.against:
            runs.append((baseline(opts.against, tmp), "base: "))
        for exe, mark in runs:
            for args in [["--help"], ["search", "warm"]]:  # its bytecode written, outside the runs
                subprocess.run([exe, *args], env=env, check=True, capture_output=True)
            commands |= {
                f"{mark}hippo --help": [exe, "--help"],
                f"{mark}hippo note": [exe, "note"],
                f"{mark}hippo search": [exe, "search", "ledger fact"],
                f"{mark}hippo show": [exe, "show", "MEMORY.md"],
            }
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for r in range(opts.runs):
            for name, cmd in commands.items():
                note = name.endswith("hippo note")
                args = [*cmd, f"bench note {r} {name[:4]} on the checkout queue"] if note else cmd
                wall, cpu = timed(args, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
        base = pct(walls["git log -1"], 50)
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
              f"{opts.files} files in the memory, {opts.runs} runs each\n")  # fmt: skip
        print(f"{'process, start to exit':22} {'wall p50':>9} {'p90':>6} {'cpu p50':>8} "
              f"{'/ git log':>10} {'target':>7}  imports: most self time (ms); heavy")  # fmt: skip
        for name, values in walls.items():
            target = TARGETS.get(name.removeprefix("base: "))
            profile = ""
            if name.startswith("hippo"):
                extra = ["one more note"] if name == "hippo note" else []
                top, heavy = import_profile([*commands[name], *extra], env)
                profile = ", ".join(top) + "; " + (", ".join(heavy) or "no heavy library")
            print(f"{name:22} {pct(values, 50):9.0f} {pct(values, 90):6.0f} "
                  f"{pct(cpus[name], 50):8.0f} {pct(values, 50) / base:9.1f}x "
                  f"{f'{target:.0f}' if target else '':>7}  {profile}")  # fmt: skip
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
