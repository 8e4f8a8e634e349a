"""`make demo`: hippo on sample data with embedded defaults, start to finish, then exit.

Each step is a module in STEPS with `run(ctx: Demo) -> None`; they run in order on one fresh
memory repository under .hippo/demo (a local bare remote and hippo's cache).
"""

from __future__ import annotations

import importlib
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from jobs.config import Config
from jobs.runtime import Runtime

STEPS: tuple[str, ...] = (
    "demo.memory",
    "demo.github",
    "demo.slack",
    "demo.dream",
)


@dataclass
class Demo:
    rt: Runtime
    workdir: Path

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def heading(self, text: str) -> None:
        self.say()
        self.say(f"== {text} " + "=" * max(0, 70 - len(text)))


def main(argv: list[str] | None = None) -> int:
    workdir = Path(argv[0] if argv else ".hippo/demo").resolve()
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    config = replace(
        Config.from_env(), data_dir=workdir / "data", memory_remote=str(workdir / "remote.git")
    )
    demo = Demo(Runtime(config), workdir)
    started = time.monotonic()
    for name in STEPS:
        importlib.import_module(name).run(demo)
    demo.heading(f"done in {time.monotonic() - started:.1f}s")
    demo.say(f"memory remote: {config.remote}")
    demo.say(f"try: .venv/bin/hippo --remote {config.remote} log")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
