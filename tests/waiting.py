"""Waiting in tests: poll a condition until it holds, never sleep a guessed time and hope.

The one polling helper of the suite (it had four copies). A timeout is a failure that says what
was awaited and, when given, the tail of the logs of the processes that should have made it so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def until(
    cond: Callable[[], T],
    timeout: float = 30.0,
    what: str = "the condition",
    logs: Iterable[Path] = (),
    *,
    tolerate: tuple[type[BaseException], ...] = (),
    interval: float = 0.02,
) -> T:
    """`cond()`'s first truthy value within `timeout` seconds. An exception in `tolerate` (say
    OSError while a server is not listening yet) counts as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found: Any = cond()
        except tolerate:
            found = None
        if found:
            return found  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            break
        time.sleep(interval)
    said = "".join(
        f"\n--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in logs if p.exists()
    )
    raise AssertionError(f"{what} not seen in {timeout:.0f}s{said}")
