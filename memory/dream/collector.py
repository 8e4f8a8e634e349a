"""The garbage collector during a dream: a night holds every entry of the memory parsed, keyed and
compared at once (millions of objects at 100,000 files, alive until the night ends), and with
the default thresholds (a collection every 700 allocations) the collector walked them all over
and over: 1,493 collections, 18% of a 10,000-file night's CPU. For the night, a collection
every 50,000 allocations (16 collections); the thresholds are put back after. Cycles are still
collected, later; nothing is held longer than the night itself."""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
NIGHT_THRESHOLD = 50_000  # allocations between two young-generation collections
_LOCK = threading.Lock()
_nights = 0  # dreams running in this process (the thresholds are the process's)
_saved: tuple[int, int, int] = (700, 10, 10)


def fewer_collections(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` with the collector's young-generation threshold raised while it runs."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        _enter()
        try:
            return fn(*args, **kwargs)
        finally:
            _leave()

    return wrapper


def _enter() -> None:
    global _nights, _saved
    with _LOCK:
        if _nights == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(max(_saved[0], NIGHT_THRESHOLD), *_saved[1:])
        _nights += 1


def _leave() -> None:
    global _nights
    with _LOCK:
        _nights -= 1
        if _nights == 0:
            gc.set_threshold(*_saved)
