"""Time the dream's look at every file for forgotten facts a plain push brought back.

    .venv/bin/python bench/resurrected.py [--files 10000] [--stones 200] [--seed 7]

The memory of bench/dream.py (`generate`), plus a forgotten.md of `--stones` records: half the
text of an entry the memory still holds (so each is found: brought back), half made-up facts
(found nowhere). Times, in one run, `plain_git.resurrected` over every file (what the dream does
on a memory's first night and whenever the forgotten facts change: memory/dream/plain_git.py,
which parses only files whose words can hold a forgotten fact's) against the same look with
no such filter (each file parsed, each entry checked against the records: the code before
issue 37, which looked only at the files changed since the last dream). Prints the CPU seconds
of each and that both found the same entries.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dream import generate
from memory import format as fmt
from memory.dream import plain_git
from memory.dream.context import is_topic
from memory.errors import TombstoneConflict
from memory.facts import tombstones


def forgotten(files: dict[str, str], n: int, rng: random.Random) -> str:
    """`n` records: half entries the memory holds, half facts it does not."""
    entries = [e.text for p in sorted(files) if is_topic(p) for e in fmt.parse(files[p]).entries]
    held = rng.sample(entries, n // 2)
    made_up = [f"the {rng.choice(['quartz', 'zephyr', 'lumen'])} relay {i} rotates keys" for i in range(n - n // 2)]  # fmt: skip
    lines = [f"- {t} [removed: 2026-11-01; by: ann; reason: wrong]" for t in held + made_up]
    return "# Forgotten\n\n" + "\n".join(lines) + "\n"


def unfiltered(tree: dict[str, str]) -> list[tuple[str, str]]:
    """Every file parsed, every entry checked (the scan without the words' filter)."""
    stones = tombstones.load(tree[tombstones.PATH])
    out = []
    for path in sorted(p for p in tree if is_topic(p) or p in ("MEMORY.md", "inbox.md")):
        for e in fmt.parse(tree[path]).entries:
            try:
                tombstones.check(e.text, stones, person=True)
            except TombstoneConflict:
                out.append((path, e.text))
    return out


def cpu(fn):  # type: ignore[no-untyped-def]
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--stones", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tree = generate(args.files, rng)
    tree[tombstones.PATH] = forgotten(tree, args.stones, rng)
    before, t0 = cpu(lambda: unfiltered(tree))
    found, t1 = cpu(lambda: plain_git.resurrected(tree))
    same = sorted(before) == sorted((p, e.text) for p, e, _ in found)
    print(
        f"{len(tree)} files, {args.stones} forgotten facts: every file parsed and checked "
        f"{t0:.2f} s CPU; with the words' filter {t1:.2f} s CPU; {len(found)} found, same: {same}"
    )


if __name__ == "__main__":
    main()
