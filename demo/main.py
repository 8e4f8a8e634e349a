"""`make demo`: hippo on sample data with embedded defaults, start to finish, then exit.

Each step is a module with `run(ctx: Demo) -> None` (the `Step` protocol, demo/context.py),
imported here and listed in STEPS; they run in order on one fresh memory repository under
.hippo/demo (a local bare remote and hippo's cache).
"""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

from demo import dream, github, memory, slack
from demo.context import Demo, Step
from jobs.config import Config
from jobs.runtime import Runtime

STEPS: tuple[Step, ...] = (memory.run, github.run, slack.run, dream.run)


def main(argv: list[str] | None = None) -> int:
    workdir = Path(argv[0] if argv else ".hippo/demo").resolve()
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    config = replace(
        Config.from_env(), data_dir=workdir / "data", memory_remote=str(workdir / "remote.git")
    )
    demo = Demo(Runtime(config), workdir)
    started = time.monotonic()
    for step in STEPS:
        step(demo)
    demo.heading(f"done in {time.monotonic() - started:.1f}s")
    demo.say(f"memory remote: {config.remote}")
    demo.say(f"try: .venv/bin/hippo --remote {config.remote} log")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
