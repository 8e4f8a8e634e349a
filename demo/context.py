"""What every demo step receives (`Demo`) and what every step is (`Step`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from jobs.runtime import Runtime


@dataclass
class Demo:
    rt: Runtime
    workdir: Path

    def say(self, text: str = "") -> None:
        print(text, flush=True)

    def heading(self, text: str) -> None:
        self.say()
        self.say(f"== {text} " + "=" * max(0, 70 - len(text)))


class Step(Protocol):
    """A demo step's `run`: show one part of hippo on the demo's memory, then return."""

    def __call__(self, ctx: Demo) -> None: ...
