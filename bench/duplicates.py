"""Duplicate detection on the written pairs (tests/data/facts/pairs.tsv), against a baseline.

    .venv/bin/python bench/duplicates.py

Baseline: tidy's former rule (the same set of content words, plurals folded, nothing else).
Then memory.facts at several thresholds: pairs written as one fact found (recall), pairs written
as two facts merged (false merges), opposite pairs merged (must be 0). SAME is the threshold used.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import facts
from memory.dream.tidy import content_key
from tests.test_facts import pairs


def main() -> None:
    rows = pairs()
    n = {k: sum(1 for r in rows if r[0] == k) for k in ("same", "different", "opposite")}
    print(f"pairs: {n['same']} same, {n['different']} different, {n['opposite']} opposite")
    print(f"{'rule':<26}{'same found':>11}{'false merges':>14}{'opposites merged':>18}")

    def line(name: str, test: Callable[[str, str], bool]) -> None:
        got = {k: sum(1 for r in rows if r[0] == k and test(r[1], r[2])) for k in n}
        print(f"{name:<26}{got['same']:>6}/{n['same']:<4}{got['different']:>9}/{n['different']:<4}"
              f"{got['opposite']:>13}/{n['opposite']}")  # fmt: skip

    line(
        "baseline (same words)",
        lambda a, b: content_key(a) is not None and content_key(a) == content_key(b),
    )
    for t in (0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0):
        mark = " (SAME)" if t == facts.SAME else ""
        line(f"facts, Jaccard >= {t}{mark}", partial(_same, threshold=t))


def _same(a: str, b: str, *, threshold: float) -> bool:
    return facts.same(a, b, threshold=threshold)


if __name__ == "__main__":
    main()
