"""The secret scanner's cost grows linearly with its input, on the worst inputs found for it.

Each test times the same input shape at two sizes and compares: a pattern that backtracks grows
by the square (64x for 8x the input) or exponentially, a linear one by about 8x. Ratios, not
seconds, so a slower machine does not fail them; this thread's CPU time, not the clock, so time
spent waiting for a core on a loaded machine (other processes, the other xdist workers) is not
counted; the two sizes timed in turn, so a stretch of slow cores (caches thrashed by neighbours,
a lower clock) falls on both; the best of a few runs, so a pause does not.
"""

from __future__ import annotations

import functools
import gc
import time
from collections.abc import Callable

from memory.secrets import DETECTORS, Detector, library_detectors, scanner, values
from memory.writes.validate import MAX_ENTRY_CHARS


def _cpu(run: Callable[[], object]) -> float:
    """The CPU time of one run on this thread: a run preempted for another process costs what
    it computed, not what it waited (wall-clock ratios of 28x for a linear pattern were seen
    under load 15 on two cores)."""
    start = time.thread_time()
    run()
    return time.thread_time() - start


def _best(run: Callable[[], object], repeat: int) -> float:
    """The shortest of `repeat` runs, without garbage collection (its passes over every live
    object of the test session are not the scanner's cost)."""
    return _best_pair(run, run, repeat)[0]


def _best_pair(
    short: Callable[[], object], long: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """The shortest of `repeat` runs of each, taken in turn (short, long, short, ...), so that
    both see the same spells of a busy machine; without garbage collection (its passes over
    every live object of the test session are not the scanner's cost)."""
    best_short = best_long = float("inf")
    gc.disable()
    try:
        for _ in range(repeat):
            best_short = min(best_short, _cpu(short))
            best_long = min(best_long, _cpu(long))
    finally:
        gc.enable()
    return best_short, best_long


def _detector(kind: str) -> list[Detector]:
    return [d for d in DETECTORS if d.kind == kind]


def test_a_name_check_is_not_exponential() -> None:
    """A long run of capitals or small letters in a `_`-delimited value (the Hypothesis find:
    `AWS_SECRET_ACCESS_KEY=` + `A`*40 + `1e100npm_…` took minutes) costs about the same at 14
    and 22 letters; splitting the run every way doubled the time per letter."""
    for shape in ("A{}1e100npm_x", "a{}1x_y"):

        def judge(n: int, shape: str = shape) -> Callable[[], object]:
            value = shape.format(shape[0] * n)
            return lambda: (values.is_name(value), values.password_like(value, quoted=True))

        short, long = _best_pair(judge(14), judge(22), 20)
        assert long < 8 * short + 1e-4, (shape, short, long)
    # The example Hypothesis found, whole: it took 66 s.
    text = "AKIA1e100a@b1e100AWS_SECRET_ACCESS_KEY=" + "A" * 40 + "1e100npm_" + "d" * 32
    assert _best(lambda: scanner.scan(text), 1) < 1.0


# Many starts, each of which used to search to the end of the text: (detector, text of n chars).
QUADRATIC: dict[str, Callable[[int], str]] = {
    "JWT": lambda n: ("eyJ-" * n)[:n],
    "private key block": lambda n: ("-----BEGIN PRIVATE KEY-----\n" + "A" * 60 + "\n") * (n // 89),
    "Kubernetes Secret data": lambda n: "kind: Secret\ndata:\n" + "k: AAAA\n" * (n // 8),
    "credential in a name/value pair": lambda n: "value - name: " + ("key" * n)[:n] + "x",
}


def test_no_pattern_is_quadratic_in_its_input() -> None:
    """Each worst shape at an entry's size cap and at eight times it: about 8x the time (a
    quadratic pattern takes 64x; the bound leaves room for a loaded machine), and the shapes
    that hold a secret still report it."""
    n = MAX_ENTRY_CHARS
    for kind, make in QUADRATIC.items():
        detectors = _detector(kind)
        small, big = make(n), make(8 * n)
        short, long = _best_pair(
            functools.partial(scanner._raw, small, detectors),
            functools.partial(scanner._raw, big, detectors),
            5,
        )
        assert long < 24 * short + 5e-3, (kind, short, long)
    # detect-secrets' JWT pattern, which the library detectors run, had the same flaw as ours.
    small, big = QUADRATIC["JWT"](n), QUADRATIC["JWT"](8 * n)
    short, long = _best_pair(
        functools.partial(library_detectors.scan, small),
        functools.partial(library_detectors.scan, big),
        5,
    )
    assert long < 24 * short + 5e-3, ("detect-secrets JWT", short, long)
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    assert library_detectors.scan(f"{small} {jwt}")
    assert scanner._raw(QUADRATIC["private key block"](n), _detector("private key block"))
    assert scanner._raw(QUADRATIC["Kubernetes Secret data"](n), _detector("Kubernetes Secret data"))


def test_library_finds_are_merged_without_comparing_every_pair() -> None:
    """detect-secrets' finds are kept where hippo's own found nothing: the check grows with the
    number of finds, not with its square (each find was compared with every hit)."""

    def merge(n: int) -> Callable[[], object]:
        hits = [scanner.Hit("own", 10 * i, 10 * i + 5) for i in range(n)]
        found = [("library", 10 * i + 6, 10 * i + 9) for i in range(n)]  # between the hits
        return lambda: scanner._unclaimed(hits, found)

    short, long = _best_pair(merge(3000), merge(24_000), 3)
    assert long < 24 * short + 5e-3, (short, long)
    hits = [scanner.Hit("own", 0, 10)]
    kept = scanner._unclaimed(hits, [("a", 5, 12), ("b", 12, 20), ("c", 15, 30), ("d", 30, 31)])
    assert [h.kind for h in kept] == ["b", "d"]
